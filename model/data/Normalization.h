// Z-score normalization of a feature matrix with statistics (mean, population standard
// deviation) fitted on a chosen range of bars — the training part only, so that nothing of
// the validation part leaks into the inputs. Pure functions / value types; any thread.
#pragma once

#include <cstddef>
#include <vector>

#include "model/data/BarRange.h"
#include "model/data/Features.h"

namespace nnwb {

struct ZScoreStats {
    std::vector<double> mean, stddev;  // one per feature; stddev 0 for a constant feature
};

// Statistics over bars [first, last] (inclusive) of `m`.
ZScoreStats fitZScore(const FeatureMatrix& m, size_t first, size_t last);
// Statistics over the bars of `rows` (disjoint ranges) of `m`.
ZScoreStats fitZScore(const FeatureMatrix& m, const std::vector<BarRange>& rows);
// True when feature k was constant on the fitted range (stddev 0, or below 1e-12 of its
// scale max(|mean|, 1)): it carries no information.
bool isConstantStat(const ZScoreStats& s, size_t k);
// The factor applyZScore multiplies x - mean by, per feature: 1 / stddev, or 0 for a constant
// feature. A constant feature therefore enters the model as 0 on every bar, on the training
// file and on any other (a file whose volume is not 0 changes nothing); predict, the ONNX graph
// (its normalize/scale initializer holds these factors) and the bundle's docs agree on this.
std::vector<double> zScoreScale(const ZScoreStats& s);
// x = (x - mean) * zScoreScale for every row (a constant feature becomes 0).
void applyZScore(FeatureMatrix& m, const ZScoreStats& s);

}  // namespace nnwb
