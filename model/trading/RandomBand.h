// The random baseline's band (docs/trading.md, "Baselines"): the 5th and 95th percentiles of the
// random draws' equity curves (points) at up to kBandPoints evenly spaced bars of the evaluated
// range, collected from the very draws whose means the baseline reports (TradingEvaluation.cpp
// feeds each draw's equity to a BandCollector), so the band agrees with the figures. Memory:
// draws × points doubles. One collector per thread; the functions are pure.
#pragma once

#include <cstddef>
#include <vector>

namespace nnwb {

inline constexpr size_t kBandPoints = 200;

struct EquityBand {
    std::vector<size_t> at;         // indices into the equity series (ascending)
    std::vector<double> low, high;  // 5th and 95th percentile at each, points
};

// The p-quantile (0..1) of `values`: the order statistics interpolated linearly at position
// p·(n − 1) of the sorted values (NumPy's default); NaN without values.
double percentileOf(std::vector<double> values, double p);
// `points` indices into a series of `size` values: all of them when size <= points, else the
// first, the last and evenly spaced (rounded) between.
std::vector<size_t> bandIndices(size_t size, size_t points = kBandPoints);

class BandCollector {
public:
    // Equity series of `size` values each, sampled at bandIndices(size, points).
    explicit BandCollector(size_t size, size_t points = kBandPoints);
    // One draw's equity (`size` values; a shorter one is ignored).
    void add(const std::vector<double>& equity);
    // The percentiles over the draws added (empty without draws).
    EquityBand band() const;

private:
    std::vector<size_t> at_;
    std::vector<std::vector<double>> values_;  // per sampled index, one value per draw
    size_t size_ = 0;
};

}  // namespace nnwb
