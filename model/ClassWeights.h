// Class weights for the training loss: none, balanced from the training part's class counts
// (w_c = N / (C * n_c), as scikit-learn's "balanced"), or given per output. A sample's weight
// is the mean weight of the classes its target sets (an outside bar sets buy and sell); it
// scales that sample's loss gradient. Settings are training.classWeights. Pure functions;
// used by the thread that builds the Trainer.
#pragma once

#include <string>
#include <vector>

#include "model/SampleSet.h"

namespace nnwb {

struct ClassWeightsConfig {
    std::string mode = "none";    // none | balanced | given
    std::vector<double> weights;  // given: one per output
};

// The weight of each class for this training part; empty for "none". Throws
// std::invalid_argument when given weights do not match the number of outputs.
std::vector<double> classWeightsFor(const ClassWeightsConfig& config, const SampleSet& train);
// The weight of one sample from its target row (1 when the row sets no class).
double sampleWeight(const float* target, int outputs, const std::vector<double>& weights);

}  // namespace nnwb
