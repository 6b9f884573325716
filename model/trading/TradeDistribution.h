// How a strategy's trades are spread (the Trading tab and the HTML report): the histogram of
// the trades' net returns, and the trades entered in each hour of the day and on each weekday
// (of the entry bar's open time, the file's clock) with their net. Pure functions; any thread.
#pragma once

#include <array>
#include <vector>

#include "model/trading/TradingReport.h"

namespace nnwb {

// Bin k counts the values in [first + k·width, first + (k+1)·width); the last bin also takes
// the largest value. 0 is always a bin edge (winners and losers never share a bin).
struct Histogram {
    double first = 0, width = 0;
    std::vector<double> count;
};

// About `bins` bins of equal width (max − min) / bins over the values, the first edge moved down
// to a whole multiple of the width (so 0 is an edge); one bin of width 1 when all values are
// equal; none without values.
Histogram histogramOf(const std::vector<double>& values, int bins);
// The trades' net % (TradingReport's netPct).
Histogram tradeReturnHistogram(const std::vector<Trade>& trades, int bins = 30);

struct EntryProfile {
    std::array<double, 24> countByHour{}, netByHour{};       // hour 0..23 of the entry bar
    std::array<double, 7> countByWeekday{}, netByWeekday{};  // Monday first
};

// The trades by their entry bar's open time (net: the trades' net points).
EntryProfile entryProfile(const std::vector<Trade>& trades);

}  // namespace nnwb
