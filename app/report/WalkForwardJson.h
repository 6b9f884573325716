// The JSON form of a walk-forward's outcome: the fold records and the stitched object
// `nnwb-cli walkforward --json` prints, which the HTML report (model/trading/HtmlReport.h) reads
// back; the window's File > Export Report builds its walk-forward page from the same records.
// A completed fold inside the traded series also carries its part of the stitched trading
// (model/trading/FoldTrading.h). Pure functions; any thread.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "app/engine/WalkForward.h"
#include "model/data/BarSeries.h"
#include "model/data/FoldPlan.h"
#include "model/trading/HtmlReport.h"
#include "model/trading/TradingReport.h"

namespace nnwb {

// {fold, folds, name, runId, status, epochs, bestEpoch, stoppedEarly, [error], train,
//  validation (null without), test}: each part {firstBar, lastBar, from, to, samples, loss, ...}.
nlohmann::ordered_json foldRecordJson(const FoldRecord& r);
// {folds, plannedFolds, status, contiguous, outOfSample (null without a series)}.
nlohmann::ordered_json stitchedJson(const WalkForwardResult& w, const BarSeries& bars,
                                    const FoldPlan& plan);
// One line per fold record, then {"stitched": ...} with "trading" (the report with its trades,
// curves and monthly net) where `trading` is given; each completed fold whose test window lies
// in the report's range gets "trading": its figures (tradingFiguresJson form).
std::vector<nlohmann::ordered_json> walkForwardJsonLines(const WalkForwardResult& w,
                                                         const BarSeries& bars,
                                                         const FoldPlan& plan,
                                                         const TradingReport* trading);
// The same lines as the HTML report reads them (parseWalkForwardOutput's result).
WalkForwardOutput walkForwardOutput(const WalkForwardResult& w, const BarSeries& bars,
                                    const FoldPlan& plan, const TradingReport* trading);

}  // namespace nnwb
