// Runs training epochs of a Network on a DataSplit: shuffled mini-batches (seeded), loss,
// optimizer step, per-epoch task metrics on both parts, progress callbacks, pause/stop between
// batches and divergence detection. A training step has no host round trip: the epoch's
// samples go to the device in large chunks, and per-sample outcomes and the divergence flag
// stay there until the epoch ends (or a progress report reads the flag).
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
    double samplesPerSecond = 0.0;
    double etaSeconds = 0.0;  // rest of this epoch
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
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    // One epoch of training then evaluation of both parts. Returns false in `completed` when
    // stopped by control (then the report covers the batches done).
    EpochReport runEpoch(TrainControl* control = nullptr,
                         const std::function<void(const ProgressReport&)>& progress = {},
                         bool* completed = nullptr);
    // Forward-only pass over a sample set of any size (the validation part, a walk-forward
    // fold's test window): loss and task metrics (updating `running` if given); with
    // `outputs`, also what the metrics saw per sample (one device read at the end).
    EpochMetrics evaluate(const SampleSet& set, RunningAverages* running = nullptr,
                          std::vector<float>* outputs = nullptr);
    // Whether runEpoch's reports carry the validation pass's outputs (off by default).
    void setKeepValidationOutputs(bool on) { keepValidationOutputs_ = on; }
    int epochsDone() const { return epoch_; }
    // Checkpoints (model/TrainCheckpoint.h): everything beyond the weights that the next epoch
    // depends on — epochs done, the optimizer's moments and steps (tensors opt.*), the
    // schedule, the running averages, the dropout step. loadState throws std::runtime_error
    // when the state does not fit this trainer.
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
    // Uploads samples order[first .. first+count) (or first.. when order is empty) to the
    // staging buffers, from their start.
    void stage(const SampleSet& set, const std::vector<size_t>& order, size_t first, size_t count);
    // Reads the outcome log of `samples` samples into `acc`; throws TrainingError when the
    // divergence flag says a batch had a non-finite loss.
    void collect(MetricsAccumulator& acc, size_t samples, int epoch,
                 const std::vector<size_t>& order);
    float readFlag();
    Backend& be_;
    Network& net_;
    TrainingConfig cfg_;
    const DataSplit& data_;
    std::unique_ptr<Loss> loss_;
    std::unique_ptr<Optimizer> opt_;
    LrSchedule schedule_;
    Monitor monitor_;
    size_t chunk_ = 0;  // samples per staging upload (a multiple of the batch size)
    Buffer x_, t_;      // staging: chunk_ samples of inputs and targets
    Buffer log_;        // outcome log: (loss, code) per sample of the largest part
    Buffer flag_;       // first diverging batch index, or -1
    Buffer codes_;      // the outcome codes' encoding (MetricsAccumulator::codeWeights)
    Buffer outputs_;    // evaluate's per-sample outputs, allocated on first use
    bool keepValidationOutputs_ = false;
    std::vector<float> hostX_, hostT_, hostLog_;
    std::vector<double> classWeights_;  // per class; empty: no class weights
    Buffer w_;                          // staging: per-sample loss weights (with classWeights_)
    std::vector<float> hostW_;
    Buffer gradNorms_;  // the gradient norm of each batch of an epoch, read when it ends
    std::vector<float> hostNorms_;
    RunningAverages runTrain_, runVal_;
    int epoch_ = 0;
};

}  // namespace nnwb
