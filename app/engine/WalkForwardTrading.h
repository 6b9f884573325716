// The stitched out-of-sample series of a walk-forward traded under its experiment's trading
// settings (docs/trading.md), computed here once for every driver: `nnwb-cli walkforward`'s
// text and JSON, and the result line of a walk-forward sweep trial. Qt-free; the thread that
// ran the walk-forward.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "app/engine/WalkForward.h"
#include "model/trading/TradingEvaluation.h"

namespace nnwb {

struct StitchedTrading {
    // Null when nothing was stitched, the data has no bars, or the series cannot be traded.
    std::shared_ptr<const TradingReport> report;
    std::string error;  // why it could not be traded (TradingInputError's message)
};

// result.outOfSample (stitched by wf.run() or WalkForward::stitch) traded on wf's bars.
StitchedTrading tradeStitched(const WalkForward& wf, const WalkForwardResult& result);
// A sweep trial's trading JSON of it: the report's JSON with "part": "outOfSample", "settings"
// and "returnSeries" (app/runs/RunReturns.h); {"error": why}; null when nothing was traded.
nlohmann::json stitchedTradingJson(const WalkForward& wf, const StitchedTrading& trading);

}  // namespace nnwb
