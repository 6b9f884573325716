// The bar-by-bar market of the trading evaluation (docs/trading.md): fills at the open with
// spread and slippage, ATR stops and takes inside bars, the close at the range's end, the
// per-bar equity. What trades is decided by a callback at each bar's close, so the strategy,
// the buy-and-hold and the random baseline share one set of fill rules. Pure functions; any
// thread (one call per thread).
//
// The rules, exactly (an Expert Advisor that trades them mirrors this; bid prices are the
// bars', spread[i] is bar i's spread in points, sp = slippage, P = point):
//  - Prices in points: a price x is x / P; a value within 1e-6 of a whole number is that whole
//    number (prices on the point grid are whole points). Fills, levels, gross and net are
//    computed in points (the fill prices reported are points x P), so a trade whose prices
//    and costs are whole points nets whole points, and a breakeven trade exactly 0.
//  - The spread at bar i's OPEN is spread[i - 1] (MT5's <SPREAD> of a bar is recorded over
//    the bar, known at its close); inside bar i and at its close it is spread[i].
//  - At bar i's open (i > first), in this order:
//    1. the open position's stop or take when the open reaches it (long: bid open <= stop or
//       >= take; short: ask open = open + spread[i-1] >= stop or <= take; the stop first):
//       it closes at that open (reason "stop"/"take");
//    2. the order decided at bar i - 1's close: `close` (reason "opposite") or the time
//       limit (entry bar + holdBars == i, reason "time") closes it at the open;
//    3. when flat, the order's `enter` enters at the open: a long (dir +1) buys at the ask
//       open + spread[i-1] + sp, a short (dir -1) sells at the bid open - sp; in points,
//       stop = entry - dir * stopAtr * ATR[i-1] / P and take = entry + dir * takeAtr *
//       ATR[i-1] / P (none where the multiple is 0 or ATR[i-1] is NaN).
//    A position closed at an open was held i - entry bar bars (that bar not counted).
//  - Inside bar i, for the position open after the open (also one entered at it): a long's
//    levels against the bid, a short's against the ask (bar price + spread[i]); the open
//    already through a level (only possible for one just entered; the ask at the open is
//    open + spread[i-1]): out at the open; else the low (high for a short) reaching the stop:
//    out at the stop; else the high (low) reaching the take: out at the take. Held
//    i - entry bar + 1 bars.
//  - At bar `last`'s close an open position closes (reason "end"): a long at the bid close, a
//    short at the ask close + spread[last]. Every exit fill has the slippage against it.
//  - Equity at each close: realized net + the open position as if closed at that close.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "model/data/BarSeries.h"
#include "model/trading/TradingReport.h"

namespace nnwb {

// The costs and levels every fill uses; vectors hold one value per bar of the BarSeries.
struct TradeMarket {
    double point = 0;
    double slippage = 0;              // points per fill
    double commission = 0;            // points per round trip
    std::vector<double> spread;       // points per bar
    std::vector<double> atr;          // price units per bar, NaN before the ATR has a value
    double stopAtr = 0, takeAtr = 0;  // 0: none
};

// Decided at bar t's close for bar t + 1's open: `close` the open position; `enter` (+1 long,
// -1 short) when flat after the exits, holding at most `holdBars` bars (0: no time limit).
struct TradeOrder {
    bool close = false;
    int enter = 0;
    size_t holdBars = 0;
};

struct SimulatedTrades {
    std::vector<Trade> trades;
    TradingEquity equity;
};

// `price` / `point` in points, a whole number where it is within 1e-6 of one (a price on the
// point grid).
double pricePoints(double price, double point);

// Runs bars [first, last] (last < bars.size()) under the rules above, with the order of bar t
// from `decide(t, position)` (position +1, -1 or 0 after bar t), called at each close before
// `last`.
SimulatedTrades simulateTrades(const BarSeries& bars, const TradeMarket& market, size_t first,
                               size_t last,
                               const std::function<TradeOrder(size_t t, int position)>& decide);

}  // namespace nnwb
