// Checks of feature values that would otherwise pass silently: features that are constant on
// a file or a training part (tick volume 0 on every bar of a forex export: no information), and
// inputs far outside the training range when a model is applied to other bars (another
// instrument, another price scale). Pure functions / value types; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/data/BarSeries.h"
#include "model/data/Features.h"
#include "model/data/Normalization.h"

namespace nnwb {

struct ConstantFeature {
    Feature feature = Feature::TickVolume;
    double value = 0.0;  // the one value it takes
};

// The columns of `m` (features of `spec`, in its order) whose finite values over rows
// [first, last] are all the same (at least two of them; rows with NaN are skipped).
std::vector<ConstantFeature> constantFeatures(const FeatureMatrix& m, const FeatureSpec& spec,
                                              size_t first, size_t last);
// Every feature kind (all switched on, with the periods and definitions of `periods`) that is
// constant over the whole of `bars`: what a file's load reports, whatever an experiment uses.
std::vector<ConstantFeature> constantFeaturesOfFile(const BarSeries& bars,
                                                    const FeatureSpec& periods);
// "FILE: feature tickVolume is 0 on every bar: it carries no information ..." ; `used` says
// whether the experiment at hand switches it on.
std::string constantFeatureWarning(const std::string& fileName, const ConstantFeature& c,
                                   bool used);
// "FILE: feature K is V on every bar of the training part (the other parts have other
// values) ...": a feature constant where the statistics are fitted but not on the whole file.
std::string constantTrainingFeatureWarning(const std::string& fileName, const ConstantFeature& c);
// `spec` with the features of `constant` switched off (at least one feature stays on).
FeatureSpec withoutConstantFeatures(FeatureSpec spec, const std::vector<ConstantFeature>& constant);

// Inputs of a feature that lie far outside what the model saw in training.
struct OutOfRangeFeature {
    std::string feature;
    size_t rows = 0;          // rows checked
    size_t outside = 0;       // rows with |z| > kOutOfRangeZ (or, for a feature constant in
                              // training, rows whose value differs from that constant)
    double share = 0.0;       // outside / rows
    double worstZ = 0.0;      // largest |z| (0 for a feature constant in training)
    double worstValue = 0.0;  // its raw value
    bool constantInTraining = false;
    double trainingMean = 0.0;
};
constexpr double kOutOfRangeZ = 10.0;      // |z| beyond this is "far outside"
constexpr double kOutOfRangeShare = 0.01;  // reported when more than this share of rows is

// The features of the raw (not normalized) matrix `m` whose rows [first, last] lie outside the
// training statistics `s` on more than kOutOfRangeShare of the rows, in feature order.
std::vector<OutOfRangeFeature> outOfRangeFeatures(const FeatureMatrix& m, const ZScoreStats& s,
                                                  size_t first, size_t last);
// One sentence naming the feature, the share and the worst z (or the training constant).
std::string outOfRangeText(const OutOfRangeFeature& f);

}  // namespace nnwb
