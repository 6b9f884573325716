// Optimizers that update a network's parameters on the device from their gradients: SGD with
// momentum and Adam with bias correction (decoupled weight decay). Settings are a plain struct,
// read from JSON through model/TrainingSettings.h. Used by the thread owning the backend.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/Network.h"
#include "model/Safetensors.h"

namespace nnwb {

struct OptimizerConfig {
    std::string type = "adam";  // "adam" or "sgd"
    double learningRate = 1e-3;
    double momentum = 0.9;                              // sgd
    double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // adam
    double weightDecay = 0.0;
};

class Optimizer {
public:
    Optimizer(Backend& backend, const OptimizerConfig& config, std::vector<NamedParam> params);
    // A population (docs/decisions/population.md): every model of `arena` (one config per
    // model, all of one type) in one launch per step with the per-model hyper table; model m
    // steps exactly as a single Optimizer with configs[m] steps its network. step()'s skip then
    // has one flag per model (a set flag masks the model out of the update).
    Optimizer(Backend& backend, std::vector<OptimizerConfig> configs, const ParamArena& arena);
    // One update of every parameter from its accumulated gradient; none once skip[0] >= 0
    // (the divergence flag of Backend::recordOutcomes), when skip is given.
    void step(BufRef skip = BufRef());
    long long steps() const { return t_; }
    // The rate of the next steps (a schedule changes it between epochs; the moments stay).
    void setLearningRate(double rate) { cfg_.learningRate = rate; }
    // A population's rate of model m (its schedule).
    void setLearningRateOf(int model, double rate) {
        models_.at(size_t(model)).learningRate = rate;
    }
    double learningRate() const { return cfg_.learningRate; }
    // Checkpoints (model/TrainCheckpoint.h): the moments (host copies, named PREFIX.I.m/v)
    // and the step count; loadState throws std::runtime_error on a missing or resized tensor.
    void saveState(TensorMap& out, const std::string& prefix);
    void loadState(const TensorMap& in, const std::string& prefix, long long steps);

private:
    Backend& be_;
    OptimizerConfig cfg_;
    // Parameters stored back to back (one ParamArena) form one run: one launch per step.
    struct Run {
        BufRef value, grad;
        size_t count = 0;
        Buffer m, v;
    };
    std::vector<NamedParam> params_;
    std::vector<Run> runs_;
    long long t_ = 0;
    std::vector<OptimizerConfig> models_;  // a population's settings, one per model
    Buffer hyper_;                         // their per-model table on the device
    void stepPopulation(BufRef skip);
};

}  // namespace nnwb
