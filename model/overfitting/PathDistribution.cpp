#include "model/overfitting/PathDistribution.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nnwb {

namespace {

std::vector<double> finite(const std::vector<double>& v) {
    std::vector<double> out;
    for (double x : v)
        if (std::isfinite(x)) out.push_back(x);
    return out;
}

}  // namespace

double pathQuantile(std::vector<double> v, double q) {
    v = finite(v);
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const double h = (double(v.size()) - 1) * std::clamp(q, 0.0, 1.0);
    const size_t lo = size_t(std::floor(h));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - double(lo)) * (v[hi] - v[lo]);
}

PathDistribution describePaths(const std::vector<double>& values) {
    PathDistribution d;
    const std::vector<double> v = finite(values);
    d.count = v.size();
    d.missing = values.size() - v.size();
    if (v.empty()) return d;
    double sum = 0;
    for (double x : v) sum += x;
    d.mean = sum / double(v.size());
    double ss = 0;
    for (double x : v) ss += (x - d.mean) * (x - d.mean);
    d.sd = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0.0;
    d.min = *std::min_element(v.begin(), v.end());
    d.max = *std::max_element(v.begin(), v.end());
    d.q10 = pathQuantile(v, 0.1);
    d.median = pathQuantile(v, 0.5);
    return d;
}

PathHistogram pathHistogram(const std::vector<double>& values, size_t bins) {
    PathHistogram h;
    std::vector<double> v;
    for (double x : values)
        if (std::isfinite(x)) v.push_back(x);
    if (v.empty()) return h;
    bins = std::max<size_t>(bins, 1);
    double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
    if (!(hi > lo)) {
        const double half = lo != 0 ? 0.05 * std::fabs(lo) : 0.5;
        lo -= half;
        hi += half;
    }
    h.from = lo;
    h.width = (hi - lo) / double(bins);
    h.counts.assign(bins, 0);
    for (double x : v) {
        const double k = std::floor((x - lo) / h.width);
        h.counts[std::min(bins - 1, size_t(std::max(0.0, k)))] += 1;
    }
    return h;
}

}  // namespace nnwb
