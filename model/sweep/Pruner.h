// Early termination of a sweep's trials between epochs. After trial `number` reported its
// objective for `epoch` (in its intermediate values; lower is better), shouldPrune says whether
// it stops there. Decisions depend only on the history given (other trials' intermediate values
// and states), so a resumed sweep decides as the stored history says. One thread.
#pragma once

#include <memory>
#include <vector>

#include "model/sweep/Trial.h"

namespace nnwb::sweep {

class Pruner {
public:
    virtual ~Pruner() = default;
    // `history` holds every trial, the one asking included (by its number).
    virtual bool shouldPrune(const History& history, int number, int epoch) const = 0;
};

// Asynchronous successive halving (Li et al. 2018, "A system for massively parallel
// hyperparameter tuning"; the rule of Optuna's SuccessiveHalvingPruner): rungs at epochs
// minResource * eta^k below maxResource. At a rung a trial competes with the values at that
// epoch of every other trial that reached it; it continues only when it is among the best
// floor(n / eta) of those n values (its own included); while floor(n / eta) is 0, only when it
// is the best of them. Not a rung: never pruned.
struct AshaOptions {
    int minResource = 1;
    int eta = 3;
    int maxResource = 0;  // 0: no end (rungs go on)
};
std::unique_ptr<Pruner> makeAshaPruner(AshaOptions options);
// The rung epochs of those options up to `limit` epochs.
std::vector<int> ashaRungs(const AshaOptions& options, int limit);

// Optuna's MedianPruner: from epoch nWarmup + 1 on, with at least nStartup complete trials, a
// trial is pruned when its best value so far is worse than the median of the complete trials'
// values at the same epoch (among those that reported it; none: not pruned).
struct MedianOptions {
    int nStartup = 5;
    int nWarmup = 0;
};
std::unique_ptr<Pruner> makeMedianPruner(MedianOptions options);

}  // namespace nnwb::sweep
