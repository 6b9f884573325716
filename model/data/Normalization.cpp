#include "model/data/Normalization.h"

#include <cmath>

namespace nnwb {

ZScoreStats fitZScore(const FeatureMatrix& m, size_t first, size_t last) {
    return fitZScore(m, std::vector<BarRange>{{first, last}});
}

ZScoreStats fitZScore(const FeatureMatrix& m, const std::vector<BarRange>& rows) {
    const size_t nf = static_cast<size_t>(m.features);
    ZScoreStats s;
    s.mean.assign(nf, 0.0);
    s.stddev.assign(nf, 0.0);
    size_t count = 0;
    for (const BarRange& r : rows) {
        if (m.bars == 0 || r.empty() || r.last >= m.bars) return s;
        count += r.size();
    }
    if (count == 0) return s;
    const double n = static_cast<double>(count);
    for (const BarRange& r : rows)
        for (size_t i = r.first; i <= r.last; ++i)
            for (size_t k = 0; k < nf; ++k) s.mean[k] += m.row(i)[k];
    for (size_t k = 0; k < nf; ++k) s.mean[k] /= n;
    for (const BarRange& r : rows)
        for (size_t i = r.first; i <= r.last; ++i)
            for (size_t k = 0; k < nf; ++k) {
                const double d = m.row(i)[k] - s.mean[k];
                s.stddev[k] += d * d;
            }
    for (size_t k = 0; k < nf; ++k) s.stddev[k] = std::sqrt(s.stddev[k] / n);
    return s;
}

bool isConstantStat(const ZScoreStats& s, size_t k) {
    if (k >= s.mean.size() || k >= s.stddev.size()) return false;
    const double scale = std::fabs(s.mean[k]) > 1.0 ? std::fabs(s.mean[k]) : 1.0;
    return !(s.stddev[k] > 1e-12 * scale);
}

std::vector<double> zScoreScale(const ZScoreStats& s) {
    std::vector<double> inv(s.mean.size(), 0.0);
    for (size_t k = 0; k < inv.size(); ++k)
        inv[k] = isConstantStat(s, k) || k >= s.stddev.size() ? 0.0 : 1.0 / s.stddev[k];
    return inv;
}

void applyZScore(FeatureMatrix& m, const ZScoreStats& s) {
    const size_t nf = static_cast<size_t>(m.features);
    const std::vector<double> inv = zScoreScale(s);
    for (size_t i = 0; i < m.bars; ++i) {
        double* r = m.row(i);
        // A constant feature is 0 whatever its value (0 * inf would be NaN).
        for (size_t k = 0; k < nf; ++k) r[k] = inv[k] == 0.0 ? 0.0 : (r[k] - s.mean[k]) * inv[k];
    }
}

}  // namespace nnwb
