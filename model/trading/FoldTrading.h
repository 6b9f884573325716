// Per-fold trading figures of a walk-forward (the Trading tab's fold table, the HTML report):
// each fold's share of the stitched out-of-sample report, so the folds add up to the stitched
// series. A fold's trades are those signalled in its test window (signal bar in [first, last]:
// the fold whose model decided them); its equity is the report's equity over the window's bars,
// less the equity at the bar before it. Pure function; any thread.
#pragma once

#include <cstddef>
#include <vector>

#include "model/trading/TradingReport.h"

namespace nnwb {

struct FoldBars {
    size_t first = 0, last = 0;  // the fold's test window, bar indices of the report's bars
};

// tradingFigures (TradingEvaluation.h) of each fold's trades and equity, with the report's bars
// per year. A fold whose window has no bar of the report's equity has figures of no trades.
std::vector<TradingFigures> foldTradingFigures(const TradingReport& r,
                                               const std::vector<FoldBars>& folds);

}  // namespace nnwb
