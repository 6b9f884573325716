// Z-score normalization of a feature matrix with statistics (mean, population standard
// deviation) fitted on a chosen range of bars — the training part only, so that nothing of
// the validation part leaks into the inputs. Pure functions / value types; any thread.
#pragma once

#include <cstddef>
#include <vector>

#include "model/data/Features.h"

namespace nnwb {

struct ZScoreStats {
    std::vector<double> mean, stddev;  // one per feature; stddev 0 for a constant feature
};

// Statistics over bars [first, last] (inclusive) of `m`.
ZScoreStats fitZScore(const FeatureMatrix& m, size_t first, size_t last);
// The factor applyZScore multiplies x - mean by, per feature: 1 / stddev, or 1 for a constant
// feature (stddev 0 or below 1e-12 of its scale).
std::vector<double> zScoreScale(const ZScoreStats& s);
// x = (x - mean) * zScoreScale for every row (a constant feature becomes x - mean, i.e. 0 on
// the fitted range).
void applyZScore(FeatureMatrix& m, const ZScoreStats& s);

}  // namespace nnwb
