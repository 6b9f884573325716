// The distribution of one figure over the paths of a combinatorial purged cross-validation
// (model/data/CpcvPlan.h): count, mean, sample standard deviation, minimum, lower quantile,
// median and maximum of the finite values (a path without trades has no Sharpe ratio: n/a,
// left out and counted). Quantiles interpolate linearly between order statistics (R's type 7).
// And the histogram the window and the report draw of them. Pure functions; any thread.
#pragma once

#include <cstddef>
#include <vector>

namespace nnwb {

struct PathDistribution {
    size_t count = 0;    // finite values
    size_t missing = 0;  // values that were n/a (NaN) or infinite
    double mean = 0, sd = 0, min = 0, q10 = 0, median = 0, max = 0;  // 0 when count is 0
};

// q in [0, 1] of the finite values of `v` (type 7); NaN when there are none.
double pathQuantile(std::vector<double> v, double q);

PathDistribution describePaths(const std::vector<double>& values);

// A histogram of the finite values: `bins` (at least 1) equal bins from the least to the
// greatest value (a value on an inner edge falls in the bin above it, the greatest in the last);
// all values equal to v: the bins span v ± 5 % of |v| (± 0.5 when v is 0). No counts without
// finite values.
struct PathHistogram {
    double from = 0, width = 0;  // bin i covers [from + i·width, from + (i+1)·width)
    std::vector<size_t> counts;
};
PathHistogram pathHistogram(const std::vector<double>& values, size_t bins);

}  // namespace nnwb
