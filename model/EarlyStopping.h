// Best-epoch tracking and early stopping on the monitored metric (model/Monitor.h): an epoch is
// an improvement when it beats the best so far by more than minDelta; the run stops early after
// `patience` epochs without one. Settings are the experiment's training.earlyStopping section.
// Value types; used by the thread that drives the epochs.
#pragma once

#include "model/Monitor.h"

namespace nnwb {

struct EarlyStoppingConfig {
    bool enabled = true;
    int patience = 5;       // epochs without an improvement before the run stops
    double minDelta = 0.0;  // an improvement must beat the best by more than this
};

class BestEpochTracker {
public:
    explicit BestEpochTracker(Monitor monitor = Monitor::ValidationLoss, double minDelta = 0.0)
        : monitor_(monitor), minDelta_(minDelta) {}
    // Records the value of `epoch` (1-based, in order). True when it is the new best: the first
    // finite value, then any that beats the best by more than minDelta. NaN never improves.
    bool update(int epoch, double value);
    Monitor monitor() const { return monitor_; }
    bool hasBest() const { return bestEpoch_ > 0; }
    int bestEpoch() const { return bestEpoch_; }  // 0 before the first finite value
    double bestValue() const { return best_; }
    int epochsSinceBest() const { return lastEpoch_ - bestEpoch_; }
    // Early stopping's test: `patience` epochs have gone by without an improvement.
    bool patienceRunOut(int patience) const { return hasBest() && epochsSinceBest() >= patience; }
    int lastEpoch() const { return lastEpoch_; }
    // Puts back a state read from a checkpoint (model/TrainCheckpoint.h).
    void restore(double best, int bestEpoch, int lastEpoch) {
        best_ = best;
        bestEpoch_ = bestEpoch;
        lastEpoch_ = lastEpoch;
    }

private:
    Monitor monitor_;
    double minDelta_;
    double best_ = 0.0;
    int bestEpoch_ = 0, lastEpoch_ = 0;
};

}  // namespace nnwb
