// Trading evaluation of a model's signals: turns a SignalSeries on a BarSeries into trades
// under the documented rules (docs/trading.md: enter at the next bar's open, one position at a
// time, exits on the opposite signal, after N bars, at an ATR stop or take, at the range's
// end), with costs (spread, commission, slippage), and reports the strategy, a buy-and-hold and
// a random-signal baseline. Pure functions; any thread (one call per thread).
#pragma once

#include <stdexcept>

#include "model/data/BarSeries.h"
#include "model/trading/SignalSeries.h"
#include "model/trading/TradingReport.h"
#include "model/trading/TradingSettings.h"

namespace nnwb {

// Bad input: signals beyond the series or out of order, unsorted bars, settings out of range,
// no point size. The message names the setting or the input ("trading.commission: -1 is
// outside [0, 1e+09]", "signals: bar 120 is beyond the 100 bars of EURUSD.csv").
class TradingInputError : public std::invalid_argument {
public:
    explicit TradingInputError(const std::string& what) : std::invalid_argument(what) {}
};

// Evaluates the signals of `series` over the range [first signal bar, last signal bar] of `bars`
// (a bar in the range without a signal counts as "none"). Only bars up to t decide what happens
// at bar t + 1's open. Throws TradingInputError. (Not `signals`: Qt defines that word as a
// macro, and a unity batch of test files may include this header after Qt's.)
TradingReport evaluateTrading(const BarSeries& bars, const SignalSeries& series,
                              const TradingSettings& settings);

// The figures of `trades` and `equity` over a range whose bars step `barsPerYear` times a
// year (what evaluateTrading reports for each of its series).
TradingFigures tradingFigures(const std::vector<Trade>& trades, const TradingEquity& equity,
                              double barsPerYear);
// The winners' net over the losers' |net|: infinite when none lost and one won, n/a
// (kNotAvailable) when none won or lost (no trades, or only breakeven ones).
double profitFactorOf(double won, double lost);

}  // namespace nnwb
