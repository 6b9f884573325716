#include "ui/CandleLevels.h"

#include <algorithm>

namespace nnwb {

void CandleLevels::build(const BarSeries& bars) {
    levels_.clear();
    const size_t n = bars.size();
    if (n == 0) return;
    CandleLevel base;
    base.span = 1;
    base.key.resize(n);
    for (size_t i = 0; i < n; ++i) base.key[i] = static_cast<double>(i);
    base.open = bars.open;
    base.high = bars.high;
    base.low = bars.low;
    base.close = bars.close;
    levels_.push_back(std::move(base));
    while (levels_.back().size() > 64) {
        const CandleLevel& prev = levels_.back();
        CandleLevel next;
        next.span = prev.span * 2;
        const size_t m = (prev.size() + 1) / 2;
        next.key.reserve(m);
        for (size_t j = 0; j < m; ++j) {
            const size_t a = 2 * j, b = std::min(a + 1, prev.size() - 1);
            const size_t firstBar = a * prev.span;
            const size_t lastBar = std::min(n - 1, firstBar + next.span - 1);
            next.key.push_back(0.5 * static_cast<double>(firstBar + lastBar));
            next.open.push_back(prev.open[a]);
            next.high.push_back(std::max(prev.high[a], prev.high[b]));
            next.low.push_back(std::min(prev.low[a], prev.low[b]));
            next.close.push_back(prev.close[b]);
        }
        levels_.push_back(std::move(next));
    }
}

size_t CandleLevels::levelFor(double visibleBars, double maxCandles) const {
    for (size_t i = 0; i < levels_.size(); ++i)
        if (visibleBars / static_cast<double>(levels_[i].span) <= maxCandles) return i;
    return levels_.empty() ? 0 : levels_.size() - 1;
}

bool CandleLevels::valueRange(size_t i, double from, double to, double& lo, double& hi) const {
    if (i >= levels_.size()) return false;
    const CandleLevel& l = levels_[i];
    const auto a = std::lower_bound(l.key.begin(), l.key.end(), from - 0.5 * l.span);
    const auto b = std::upper_bound(l.key.begin(), l.key.end(), to + 0.5 * l.span);
    if (a >= b) return false;
    const size_t s = static_cast<size_t>(a - l.key.begin()),
                 e = static_cast<size_t>(b - l.key.begin());
    lo = *std::min_element(l.low.begin() + static_cast<long>(s),
                           l.low.begin() + static_cast<long>(e));
    hi = *std::max_element(l.high.begin() + static_cast<long>(s),
                           l.high.begin() + static_cast<long>(e));
    return true;
}

}  // namespace nnwb
