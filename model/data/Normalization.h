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
// x = (x - mean) / stddev for every row (a constant feature, stddev 0 or below 1e-12 of its
// scale, becomes x - mean, i.e. 0 on the fitted range).
void applyZScore(FeatureMatrix& m, const ZScoreStats& s);

}  // namespace nnwb
