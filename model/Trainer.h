// Runs training epochs of a Network on a DataSplit: shuffled mini-batches (seeded), loss,
// optimizer step, per-epoch task metrics on both parts, progress callbacks, pause/stop between
// batches and divergence detection. A training step has no host round trip: the epoch's
// samples go to the device in large chunks, and per-sample outcomes and the divergence flag
// stay there until the epoch ends (or a progress report reads the flag). A population
// (docs/decisions/population.md): P models of one network trained in lock-step, each with its
// own seed (weights, sample order, dropout), optimizer, schedule and class weights.
// Lives on the thread that owns the backend (the worker).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/Experiment.h"
#include "model/Loss.h"
#include "model/LrSchedule.h"
#include "model/Metrics.h"
#include "model/Network.h"
#include "model/Optimizer.h"
#include "model/SampleSet.h"
#include "model/TrainControl.h"

namespace nnwb {

struct EpochReport {
    int epoch = 0;  // 1-based
    int model = 0;  // a population's model the report is of (0 for a single run)
    // A population's model whose loss became non-finite in this epoch: why (it trains no more;
    // the other models go on). A single run throws TrainingError instead.
    std::string error;
    EpochMetrics train, validation;
    bool taskMetrics = false;  // accuracy/missed/confusion are meaningful (3 outputs)
    double seconds = 0.0;
    double samplesPerSecond = 0.0;
    double learningRate = 0.0;  // the rate this epoch trained with (after the schedule)
    // Global L2 norm of the parameter gradients before clipping, over the epoch's batches.
    double gradNormMax = 0.0, gradNormMean = 0.0;
    // Filled by EpochKeeper: the best epoch so far (0: none), whether this one is it, and
    // whether the run stops early after it.
    int bestEpoch = 0;
    bool isBest = false;
    bool stoppedEarly = false;
    // With Trainer::setKeepValidationOutputs: what the validation pass gave for each
    // validation sample in order (outputs per sample; softmax probabilities for
    // cross-entropy), shared read-only.
    std::shared_ptr<const std::vector<float>> validationOutputs;
};

struct ProgressReport {
    int epoch = 0;
    size_t done = 0, total = 0;  // training samples of this epoch
    // This epoch's rate so far; in its first report (at once, after the chunk's staging and one
    // step: "82 samples/s" where the epoch ran 300,000) the last completed epoch's, or 0 (not
    // known yet) in a run's first epoch.
    double samplesPerSecond = 0.0;
    double etaSeconds = 0.0;  // rest of this epoch (0 while the rate is not known)
};

// A run that cannot go on (non-finite loss, device failure); the message names where.
class TrainingError : public std::runtime_error {
public:
    explicit TrainingError(const std::string& what) : std::runtime_error(what) {}
};

class Trainer {
public:
    // The network must not be built yet: the trainer builds it for the batch size.
    Trainer(Backend& backend, Network& net, const TrainingConfig& cfg, const DataSplit& data);
    // A population of configs.size() models: `net` gets setPopulation(P) here. The configs
    // may differ only where populationRefusal (model/PopulationCheck.h) allows.
    Trainer(Backend& backend, Network& net, std::vector<TrainingConfig> configs,
            const DataSplit& data);
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    // One epoch of training then evaluation of both parts. Returns false in `completed` when
    // stopped by control (then the report covers the batches done).
    EpochReport runEpoch(TrainControl* control = nullptr,
                         const std::function<void(const ProgressReport&)>& progress = {},
                         bool* completed = nullptr);
    // The same epoch for every model of a population (one report per model, in order; those
    // of stopped models are computed but mean nothing).
    std::vector<EpochReport> runEpochAll(
        TrainControl* control = nullptr,
        const std::function<void(const ProgressReport&)>& progress = {}, bool* completed = nullptr);
    int models() const { return static_cast<int>(cfgs_.size()); }
    // Masks model `model` out of every later update (early stopping, divergence): its weights
    // stay as they are; its rows are still computed.
    void stopModel(int model);
    bool modelStopped(int model) const { return stopped_.at(size_t(model)) != 0; }
    // Forward-only pass over a sample set of any size (the validation part, a walk-forward
    // fold's test window): loss and task metrics (updating `running` if given); with
    // `outputs`, also what the metrics saw per sample (one device read at the end). Of model
    // 0 for a population; evaluateAll gives every model's (`running`: one per model; outputs
    // model-major: model m's set.size() x outputs values at m x set.size() x outputs).
    EpochMetrics evaluate(const SampleSet& set, RunningAverages* running = nullptr,
                          std::vector<float>* outputs = nullptr);
    std::vector<EpochMetrics> evaluateAll(const SampleSet& set, RunningAverages* running = nullptr,
                                          std::vector<float>* outputs = nullptr);
    // Whether runEpoch's reports carry the validation pass's outputs (off by default).
    void setKeepValidationOutputs(bool on) { keepValidationOutputs_ = on; }
    int epochsDone() const { return epoch_; }
    // Checkpoints (model/TrainCheckpoint.h): everything beyond the weights that the next epoch
    // depends on — epochs done, the optimizer's moments and steps (tensors opt.*), the
    // schedule, the running averages, the dropout step. loadState throws std::runtime_error
    // when the state does not fit this trainer. Not for a population (std::runtime_error).
    nlohmann::json saveState(TensorMap& tensors);
    void loadState(const nlohmann::json& state, const TensorMap& tensors);
    // The metric the schedule (and the run's EpochKeeper) watches, after fallbacks.
    Monitor monitor() const { return monitor_; }
    Network& network() { return net_; }
    // Score matrices of validation sample `index` (runs a forward pass of that one sample);
    // with `outputs`, also what the task metrics see for it (outputs, or probabilities).
    std::vector<AttentionScores> validationScores(size_t index,
                                                  std::vector<float>* outputs = nullptr);

private:
    // Uploads samples order_m[first .. first+count) of every model m (first.. for all when
    // orders is empty) to the staging buffers, from their start: per batch of the chunk, the
    // models' rows model-major (P = 1: the samples in order).
    void stage(const SampleSet& set, const std::vector<std::vector<size_t>>& orders, size_t first,
               size_t count);
    // Reads the outcome log of `samples` samples of each model into acc[m]; a single run
    // throws TrainingError when its divergence flag says a batch had a non-finite loss, a
    // population's diverged model gets reps[m].error and is stopped.
    void collect(std::vector<MetricsAccumulator>& acc, size_t samples, int epoch,
                 const std::vector<std::vector<size_t>>& orders, std::vector<EpochReport>& reps);
    // Model m's outcome-log pairs of `samples` samples, in sample order.
    const float* modelLog(int m, size_t samples);
    float readFlag();
    void resetFlags();
    // This epoch's sample order of every model.
    std::vector<std::vector<size_t>> epochOrders() const;
    // Fills the reports from the epoch's figures; a completed epoch also counts, evaluates the
    // validation part and steps the schedules.
    void finishReports(std::vector<EpochReport>& reps, std::vector<MetricsAccumulator>& acc,
                       size_t done, double seconds, bool completed);
    size_t perModelBatch() const { return static_cast<size_t>(cfg_.batchSize); }
    Backend& be_;
    Network& net_;
    std::vector<TrainingConfig> cfgs_;  // one per model
    TrainingConfig cfg_;                // model 0's: what the models share
    int P_ = 1;
    const DataSplit& data_;
    std::unique_ptr<Loss> loss_;
    std::unique_ptr<Optimizer> opt_;
    std::vector<LrSchedule> schedules_;
    Monitor monitor_;
    std::vector<char> stopped_;  // per model: masked out of the updates
    size_t chunk_ = 0;           // samples per staging upload (a multiple of the batch size)
    Buffer x_, t_;               // staging: chunk_ samples of inputs and targets
    Buffer log_;                 // outcome log: (loss, code) per sample of the largest part
    Buffer flag_;                // per model: first diverging batch index, or -1
    Buffer codes_;               // the outcome codes' encoding (MetricsAccumulator::codeWeights)
    Buffer outputs_;             // evaluate's per-sample outputs, allocated on first use
    bool keepValidationOutputs_ = false;
    std::vector<float> hostX_, hostT_, hostLog_, modelLog_;
    std::vector<std::vector<double>> classWeights_;  // per model, per class; empty: none
    bool anyClassWeights_ = false;
    Buffer w_;  // staging: per-sample loss weights (with classWeights_)
    std::vector<float> hostW_;
    Buffer gradNorms_;  // per batch of an epoch, per model: the gradient norm, read at the end
    std::vector<float> hostNorms_;
    std::vector<RunningAverages> runTrain_, runVal_;  // per model
    int epoch_ = 0;
    // The last completed epoch's samples/s (0 before one): the rate an epoch's first progress
    // report gives, which comes at once, before its staging and first step can be timed.
    double lastRate_ = 0.0;
};

}  // namespace nnwb
