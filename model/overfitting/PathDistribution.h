// The distribution of one figure over the paths of a combinatorial purged cross-validation
// (model/data/CpcvPlan.h): count, mean, sample standard deviation, minimum, lower quantile,
// median and maximum of the finite values (a path without trades has no Sharpe ratio: n/a,
// left out and counted). Quantiles interpolate linearly between order statistics (R's type 7).
// Pure functions; any thread.
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

}  // namespace nnwb
