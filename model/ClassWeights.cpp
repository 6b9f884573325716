#include "model/ClassWeights.h"

#include <cmath>
#include <stdexcept>

namespace nnwb {

double sampleWeight(const float* t, int outputs, const std::vector<double>& w) {
    double mass = 0.0, sum = 0.0;
    for (int c = 0; c < outputs; ++c) {
        if (t[c] <= 0.0f) continue;
        mass += t[c];
        sum += t[c] * w[size_t(c)];
    }
    return mass > 0.0 ? sum / mass : 1.0;
}

std::vector<double> classWeightsFor(const ClassWeightsConfig& cfg, const SampleSet& train) {
    const int outputs = train.outputs;
    if (cfg.mode == "given") {
        if (static_cast<int>(cfg.weights.size()) != outputs)
            throw std::invalid_argument(
                "training.classWeights.weights: " + std::to_string(cfg.weights.size()) +
                " weights for a model with " + std::to_string(outputs) + " outputs");
        return cfg.weights;
    }
    if (cfg.mode != "balanced") return {};
    std::vector<double> count(size_t(outputs), 0.0);
    double samples = 0.0;
    for (size_t s = 0; s < train.size(); ++s) {
        const float* t = train.target(s);
        double mass = 0.0;
        for (int c = 0; c < outputs; ++c) mass += t[c] > 0.0f ? t[c] : 0.0f;
        if (mass <= 0.0) continue;
        for (int c = 0; c < outputs; ++c)
            if (t[c] > 0.0f) count[size_t(c)] += t[c] / mass;
        samples += 1.0;
    }
    std::vector<double> w(size_t(outputs), 0.0);
    for (int c = 0; c < outputs; ++c)
        if (count[size_t(c)] > 0.0) w[size_t(c)] = samples / (outputs * count[size_t(c)]);
    return w;
}

}  // namespace nnwb
