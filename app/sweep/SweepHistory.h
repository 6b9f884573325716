// The stored trials of a sweep as the search primitives see them (model/sweep/Trial.h):
// per trial for the pruner, per configuration for the sampler (seed replicates of one
// configuration merged: complete with the mean value once all are complete, pruned if one was,
// running while one is queued or running, failed when all failed). Values oriented lower is
// better. Pure functions; any thread.
#pragma once

#include <vector>

#include "app/sweep/SweepStore.h"
#include "model/sweep/SweepSpec.h"

namespace nnwb {

sweep::History trialHistory(const std::vector<TrialRow>& rows, const sweep::SweepSpec& spec);
sweep::History configHistory(const std::vector<TrialRow>& rows, const sweep::SweepSpec& spec);

// A trial's final objective as reported: the best (by the goal) over its epochs.
std::optional<double> bestOfEpochs(const TrialRow& t, const sweep::Objective& o);
// A complete trial's value for the sampler: bestOfEpochs, or for an end-of-trial objective
// (trading.*, oos.*) the value stored from its result line.
std::optional<double> trialObjective(const TrialRow& t, const sweep::Objective& o);

}  // namespace nnwb
