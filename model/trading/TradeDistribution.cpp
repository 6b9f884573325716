#include "model/trading/TradeDistribution.h"

#include <algorithm>
#include <cmath>

#include "model/data/DateTime.h"

namespace nnwb {

Histogram histogramOf(const std::vector<double>& values, int bins) {
    Histogram h;
    if (values.empty() || bins < 1) return h;
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    if (*hi == *lo) {
        h.first = std::floor(*lo);
        h.width = 1;
        h.count = {double(values.size())};
        return h;
    }
    h.width = (*hi - *lo) / bins;
    h.first = h.width * std::floor(*lo / h.width);
    const size_t n = std::max<size_t>(1, size_t(std::ceil((*hi - h.first) / h.width)));
    h.count.assign(n, 0);
    for (double v : values) {
        const double k = std::floor((v - h.first) / h.width);
        h.count[std::min(n - 1, size_t(std::max(0.0, k)))] += 1;
    }
    return h;
}

Histogram tradeReturnHistogram(const std::vector<Trade>& trades, int bins) {
    std::vector<double> v;
    v.reserve(trades.size());
    for (const Trade& t : trades) v.push_back(t.netPct);
    return histogramOf(v, bins);
}

EntryProfile entryProfile(const std::vector<Trade>& trades) {
    EntryProfile p;
    for (const Trade& t : trades) {
        const CalendarTime c = toCalendar(t.entryTime);
        const size_t day = size_t((c.dayOfWeek + 6) % 7);  // Sunday 0 -> 6, Monday 1 -> 0
        p.countByHour[size_t(c.hour)] += 1;
        p.netByHour[size_t(c.hour)] += t.net;
        p.countByWeekday[day] += 1;
        p.netByWeekday[day] += t.net;
    }
    return p;
}

}  // namespace nnwb
