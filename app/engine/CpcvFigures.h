// The figures of a combinatorial purged cross-validation's paths (app/engine/Cpcv.h): each
// stitched path's task figures and, traded under the experiment's trading settings, its
// strategy figures and equity; the figures the distribution covers, by key; and the one-line
// verdict of what the distribution says (docs/walkforward-cpcv.md). Shared by nnwb-cli
// walkforward, the window and sweep trials. Qt-free; any thread (one call per thread).
#pragma once

#include <string>
#include <vector>

#include "app/engine/Cpcv.h"
#include "model/data/BarSeries.h"
#include "model/overfitting/PathDistribution.h"
#include "model/trading/TradingReport.h"
#include "model/trading/TradingSettings.h"

namespace nnwb {

struct CpcvPathFigures {
    double loss = 0, accuracy = 0, missed = 0;  // accuracy n/a (NaN) below the signal minimum
    bool traded = false;                        // false: the trading evaluation refused it
    TradingFigures trading;
    TradingEquity equity;  // the strategy's equity over the path (empty unless traded)
};

// A figure of the distribution: its JSON key ("sharpe"), its label ("Sharpe (per bar)") and a
// path's value (NaN when n/a: a path without trades has no Sharpe ratio).
struct CpcvFigure {
    const char* key;
    const char* label;
    double (*of)(const CpcvPathFigures&);
};

// loss, accuracyPct, missedPct, trades, netPoints, sharpe, sharpeAnnual, maxDrawdownPoints.
const std::vector<CpcvFigure>& cpcvFigures();
// The figure named `key`; nullptr when there is none.
const CpcvFigure* cpcvFigure(const std::string& key);

struct CpcvEvaluation {
    std::vector<CpcvPathFigures> paths;  // one per path of the result, in order
    std::string tradingError;            // the last path the trading evaluation refused: why
    std::vector<double> values(const CpcvFigure& figure) const;  // one per path
    PathDistribution distribution(const CpcvFigure& figure) const;
};

// Every path of `result` (stitched over `bars`) with its figures, traded under `trading`.
CpcvEvaluation evaluateCpcvPaths(const CpcvResult& result, const BarSeries& bars,
                                 const TradingSettings& trading);

// One line of what the paths' net points and Sharpe ratios say: "All 5 paths lose money
// (Sharpe per bar -0.034 .. -0.015, median -0.028): ...", "3 of 5 paths make money ...",
// "No path traded ...". "" when there are no paths.
std::string cpcvVerdict(const CpcvEvaluation& evaluation);

}  // namespace nnwb
