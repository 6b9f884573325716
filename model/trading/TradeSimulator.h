// The bar-by-bar market of the trading evaluation (docs/trading.md): fills at the open with
// spread and slippage, ATR stops and takes inside bars, the close at the range's end, the
// per-bar equity. What trades is decided by a callback at each bar's close, so the strategy,
// the buy-and-hold and the random baseline share one set of fill rules. Pure functions; any
// thread (one call per thread).
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

// Runs bars [first, last] (last < bars.size()): at each bar's open the previous close's order
// (exits first: the order's close, reason "opposite", or the time limit, "time"; then the
// entry when flat), inside the bar the stop and take, at its close the equity and the next
// order from `decide(t, position)` (position +1, -1 or 0 after bar t). An open position closes
// at bar `last`'s close (reason "end"). Stop and take levels come from the ATR of the signal
// bar (none while it is NaN).
SimulatedTrades simulateTrades(const BarSeries& bars, const TradeMarket& market, size_t first,
                               size_t last,
                               const std::function<TradeOrder(size_t t, int position)>& decide);

}  // namespace nnwb
