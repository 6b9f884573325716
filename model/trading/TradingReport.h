// What the trading evaluation of a signal series reports (TradingEvaluation.h, rules in
// docs/trading.md): the trades, the per-bar equity over the evaluated range, and the figures of
// the strategy, of a buy-and-hold over the same range and of a random-signal baseline with the
// same trade count. Plain value types; built by one thread, then safe to read from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "model/trading/RandomBand.h"

namespace nnwb {

enum class ExitReason { Opposite, Time, Stop, Take, End };
// "opposite", "time", "stop", "take", "end".
const char* exitReasonName(ExitReason r);

struct Trade {
    int direction = 0;  // +1 long, -1 short
    size_t signalBar = 0, entryBar = 0, exitBar = 0;
    int64_t entryTime = 0, exitTime = 0;  // open times of the entry and exit bars
    // Fill prices: a long buys at the ask (bid + spread) and sells at the bid, a short the
    // other way round; slippage moves each fill against the trade.
    double entryPrice = 0, exitPrice = 0;
    ExitReason exitReason = ExitReason::End;
    // The ATR of the signal bar the stop and take were set from, and their levels (a bid price
    // for a long, an ask price for a short); 0 where there is none.
    double atr = 0, stopLevel = 0, takeLevel = 0;
    size_t bars = 0;  // bars held: entry bar .. the bar before an exit at an open (opposite,
                      // time, a gap through the stop or take), or the exit bar itself for a
                      // stop or take inside it or an end exit
    // Spread paid, points: at the entry for a long, at the exit for a short (at bar i's open
    // bar i - 1's spread, inside or at the close of bar i bar i's).
    double spread = 0;
    double gross = 0;     // points: the bid price's move in the trade's direction
    double cost = 0;      // points: spread + 2 × slippage + commission
    double net = 0;       // points: gross - cost
    double grossPct = 0;  // the same as % of the entry price
    double costPct = 0;
    double netPct = 0;
};

// Per bar of the evaluated range, at the bar's close: the closed trades' net plus the open
// position's net if it were closed at that close (all costs included).
struct TradingEquity {
    std::vector<size_t> bar;
    std::vector<int64_t> time;
    std::vector<int> position;   // +1 long, -1 short, 0 flat at the close
    std::vector<double> points;  // cumulative net, points
    std::vector<double> pct;     // cumulative net, sum of the trades' % (not compounded)
};

// A figure that does not exist (a win rate without trades, ...): NaN, "n/a" in text, null in
// JSON.
inline constexpr double kNotAvailable = std::numeric_limits<double>::quiet_NaN();

// Without trades, winRate, profitFactor, perTrade*, sharpe*, sortino* are kNotAvailable.
struct TradingFigures {
    double trades = 0;          // a count (the random baseline's is a mean)
    double winRate = 0;         // % of trades with net > 0 (net 0: neither win nor loss)
    double profitFactor = 0;    // winners' net / |losers' net|; inf without losers; n/a: neither
    double netPoints = 0;       // sum of the trades' net
    double netPct = 0;          // sum of the trades' net %
    double perTradePoints = 0;  // net / trades
    double perTradePct = 0;
    double maxDrawdownPoints = 0;  // largest fall of the equity from its running peak (from 0)
    double maxDrawdownPct = 0;     // the same on the % equity (percentage points)
    // Of the per-bar returns r = pct[i] - pct[i-1] over the range: mean / sample deviation
    // (Sharpe), mean / sqrt(mean of min(r, 0)²) (Sortino); 0 where undefined (fewer than two
    // returns, a deviation within rounding of zero). Annual: times
    // sqrt(TradingReport::barsPerYear).
    double sharpe = 0, sortino = 0;
    double sharpeAnnual = 0, sortinoAnnual = 0;
    double exposure = 0;  // % of the range's bars with a position open after their open
    // The per-bar returns' count and shape, for the deflated Sharpe ratio (DeflatedSharpe.h):
    // skewness = m3 / m2^1.5 and kurtosis = m4 / m2² (not excess: 3 for a normal law), with
    // the central moments m_k = mean((r - mean)^k); 0 where undefined (fewer than two returns,
    // no deviation).
    double returns = 0;
    double skewness = 0, kurtosis = 0;
};

struct TradingReport {
    size_t firstBar = 0, lastBar = 0;  // the evaluated range: the signals' first and last bar
    double point = 0;                  // the price of one point used
    std::string spreadFrom;            // "file" (the bars' column) or "given"
    double spreadPoints = 0;           // the given spread (trading.spreadPoints), points
    // Said with the figures (text, JSON, the window): the range's trades carry no spread
    // ("no trading costs: ..." when slippage and commission are 0 too).
    std::vector<std::string> warnings;
    // Bar steps per year over the range: (lastBar - firstBar) / its span in years of 365.25 days.
    double barsPerYear = 0;
    std::vector<Trade> trades;
    TradingEquity equity;
    TradingFigures strategy;
    TradingFigures buyAndHold;  // long from firstBar + 1's open to lastBar's close
    // Buy and hold's equity per bar of the range, points (the same bars as `equity`).
    std::vector<double> buyAndHoldPoints;
    // Random trades with the strategy's holding times: each figure the mean over the draws,
    // the profit factor of all draws' trades pooled (docs/trading.md).
    TradingFigures random;
    int randomDraws = 0;
    // Share of draws whose net points >= the strategy's (0..1); n/a without strategy trades.
    double randomNetAtOrAbove = 0;
    // The draws' equity, points: 5th and 95th percentile at up to kBandPoints bars of `equity`.
    EquityBand randomBand;
};

}  // namespace nnwb
