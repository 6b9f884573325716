// Successive halving in synchronous rungs, for a sweep run in generations on a cluster
// (docs/slurm.md "Generations"): a generation's trials train to the first rung's epochs, the
// best 1/eta of them by the objective at that epoch go on (resumed from their checkpoints) to
// the next rung's, and so on up to the trials' full epochs; the rest are pruned. The rungs are
// the ASHA pruner's (Pruner.h ashaRungs). Pure functions; any thread.
#pragma once

#include <optional>
#include <vector>

#include "model/sweep/Pruner.h"

namespace nnwb::sweep {

// The epoch budgets of a generation's arrays: ASHA's rungs below the trials' `epochs`, then
// `epochs` itself (the last array completes its trials). Without ASHA (`asha` null): {epochs}.
std::vector<int> halvingStages(const AshaOptions* asha, int epochs);

// One trial at the end of a rung's array.
struct RungEntry {
    int task = 0;                 // the trial's task index
    std::optional<double> value;  // the objective at the rung's epoch, lower is better; none:
                                  // it did not reach the rung (failed, cancelled, no value)
    bool finished = false;        // it has nothing left to train (early stopping ended it)
};

// The trials that go on to the next rung: of the n entries that reached the rung (a value, not
// finished), the best max(1, floor(n / eta)) by value, ties by task index; in task order. None
// when no entry reached it.
std::vector<int> promoteFromRung(const std::vector<RungEntry>& entries, int eta);

}  // namespace nnwb::sweep
