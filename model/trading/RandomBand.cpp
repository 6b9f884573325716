#include "model/trading/RandomBand.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nnwb {

double percentileOf(std::vector<double> values, double p) {
    if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(values.begin(), values.end());
    const double pos = std::clamp(p, 0.0, 1.0) * double(values.size() - 1);
    const size_t below = size_t(std::floor(pos));
    const size_t above = std::min(values.size() - 1, below + 1);
    return values[below] + (pos - double(below)) * (values[above] - values[below]);
}

std::vector<size_t> bandIndices(size_t size, size_t points) {
    std::vector<size_t> at;
    if (size == 0) return at;
    if (size <= points || points < 2) {
        for (size_t i = 0; i < size; ++i) at.push_back(i);
        return at;
    }
    for (size_t k = 0; k < points; ++k)
        at.push_back(size_t(std::llround(double(k) * double(size - 1) / double(points - 1))));
    at.erase(std::unique(at.begin(), at.end()), at.end());
    return at;
}

BandCollector::BandCollector(size_t size, size_t points)
    : at_(bandIndices(size, points)), values_(at_.size()), size_(size) {}

void BandCollector::add(const std::vector<double>& equity) {
    if (equity.size() < size_) return;
    for (size_t k = 0; k < at_.size(); ++k) values_[k].push_back(equity[at_[k]]);
}

EquityBand BandCollector::band() const {
    EquityBand b;
    if (at_.empty() || values_[0].empty()) return b;
    b.at = at_;
    for (const std::vector<double>& v : values_) {
        b.low.push_back(percentileOf(v, 0.05));
        b.high.push_back(percentileOf(v, 0.95));
    }
    return b;
}

}  // namespace nnwb
