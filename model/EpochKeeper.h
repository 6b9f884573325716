// What a run keeps when an epoch completes: the host copy of its weights (the last good ones,
// checked for NaN/Inf), the best epoch's copy on the monitored metric (the run's result when
// training.keepBest is on), and the early-stopping decision. Used by every epoch loop (CLI,
// training worker, comparison runs) on the thread that owns the network's backend; the copies
// it holds are plain host data.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/EarlyStopping.h"
#include "model/Experiment.h"
#include "model/Network.h"
#include "model/Trainer.h"
#include "model/WeightsSnapshot.h"

namespace nnwb {

class EpochKeeper {
public:
    // `monitor`: the metric after fallbacks (Trainer::monitor()); `model`: which model of a
    // population it keeps (0 for a single network).
    EpochKeeper(const TrainingConfig& config, Monitor monitor, int model = 0);
    EpochKeeper() : EpochKeeper(TrainingConfig(), Monitor::ValidationLoss) {}

    // After a completed epoch: copies the weights to the host (throws TrainingError naming the
    // first non-finite value; the previous copies stay), updates the best epoch and fills
    // report.bestEpoch, isBest and stoppedEarly. Returns true when the run stops early here.
    bool afterEpoch(Network& net, EpochReport& report);

    // Training goes on after `epochsDone` epochs (continue): early stopping counts its
    // patience from here, the best epoch so far stays the one to beat.
    void resume(int epochsDone) { patienceFrom_ = epochsDone; }
    // Weights loaded from a file (a run's stored model) become the result, as if `epoch` had
    // just completed: bundles, ONNX export and saved weights then take them. Throws
    // TrainingError when a value is not finite.
    void adopt(Network& net, int epoch);

    const WeightsSnapshot& lastGood() const { return lastGood_; }
    const WeightsSnapshot& best() const { return best_; }
    // The run's result: the best epoch's weights with keepBest, else the last good ones.
    const WeightsSnapshot& result() const;
    bool keepBest() const { return cfg_.keepBest; }
    Monitor monitor() const { return tracker_.monitor(); }
    int bestEpoch() const { return tracker_.bestEpoch(); }
    double bestValue() const { return tracker_.bestValue(); }
    int stoppedEarlyAt() const { return stoppedAt_; }  // 0: did not stop early
    int model() const { return model_; }
    // "stopped early at epoch 11, best epoch 6 (validation loss 0.142301)" or
    // "best epoch 6 of 20 (validation loss 0.142301)"; empty before an epoch completed.
    std::string summary() const;
    // Checkpoints (model/TrainCheckpoint.h): the tracker, early-stopping counters and the
    // best and last good copies (tensors named best.* and last.*).
    nlohmann::json saveState(TensorMap& tensors) const;
    // Throws std::runtime_error when the state is incomplete.
    void loadState(const nlohmann::json& state, const TensorMap& tensors);

private:
    TrainingConfig cfg_;
    BestEpochTracker tracker_;
    WeightsSnapshot lastGood_, best_;
    int lastEpoch_ = 0, stoppedAt_ = 0, patienceFrom_ = 0;
    int model_ = 0;
};

}  // namespace nnwb
