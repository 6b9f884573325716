// The verdict line: one plain sentence that says what a trading evaluation's figures allow a
// trader to conclude, by the stated rules of docs/trading.md ("Verdict"): too few trades, a
// loss, trailing buy and hold, no better than random entries, or evidence of an edge, never
// stronger than the random baseline and the deflated Sharpe ratio allow. Pure functions; any
// thread.
#pragma once

#include <string>

#include "model/trading/TradingReport.h"

namespace nnwb {

// The thresholds of the rules (docs/trading.md, "Verdict").
inline constexpr double kVerdictMinTrades = 30;         // fewer: too few trades to judge
inline constexpr double kVerdictRandomShare = 0.05;     // random draws at or above: at most this
inline constexpr double kVerdictDeflatedSharpe = 0.95;  // the DSR needed where there is one

struct VerdictFigures {
    double trades = 0;                        // the strategy's trade count
    double netPoints = 0;                     // the strategy's net after costs, points
    double buyAndHoldPoints = kNotAvailable;  // buy and hold's net, points; n/a: none
    double randomShare = kNotAvailable;  // share (0..1) of random draws with net >= the strategy's
    int randomDraws = 0;
    double deflatedSharpe = kNotAvailable;  // probability 0..1 where a sweep gives one
    int folds = 0;                          // > 0: a walk-forward's stitched out-of-sample series
};

// The figures of a report (folds 0, no deflated Sharpe).
VerdictFigures verdictFigures(const TradingReport& r);

// "Out of sample (6 folds) the strategy lost 375,565 points after costs over 9,353 trades; buy
// and hold made 37,252; 38 % of random entries did as well: no evidence of an edge."
std::string tradingVerdict(const VerdictFigures& f);

// A count or points figure with thousands separators: whole numbers from 100 on, one decimal
// below ("375,565", "-12.5"); "n/a" for NaN.
std::string groupedNumber(double v);

}  // namespace nnwb
