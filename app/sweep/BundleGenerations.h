// The coordinator of a sweep run on a Slurm cluster in generations, without any server
// (docs/slurm.md "Adaptive search in generations"): it asks the spec's sampler for K
// configurations with the history of the trials already imported into the local store (so TPE
// learns across generations), adds them to the bundle, submits their array, waits (polling
// squeue --json), imports the results and repeats until the spec's runCap is spent. With the
// asha pruner each generation is successive halving in rungs: its trials train to the first
// rung's epochs, the best 1/eta go on from their checkpoints to the next rung's, the others are
// recorded as pruned. Every step (generation, rung, tasks, job id, imported) is kept in the
// bundle's jobs.json, so a coordinator run again after Ctrl-C or kill goes on where it was:
// imported steps are not run again, a submitted array still queued is waited for, not
// submitted twice. The CLI's main thread (it owns the RunStore).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "app/runs/RunStore.h"
#include "app/sweep/SweepBundle.h"

namespace nnwb {

struct GenerationOptions {
    int perGeneration = 0;    // K: configurations asked per generation (>= 1)
    double pollSeconds = 10;  // how often squeue is asked while an array runs
};

// Runs the search of the bundle in `dir`: made from `spec` when `dir` is new or empty, else the
// bundle there goes on (it must be a bundle run in generations of the same spec and K).
// Progress lines go to `out`. Returns the stored sweep's id. Throws BundleError for bad input
// (another spec in `dir`, the median pruner, refused data), std::runtime_error when sbatch,
// squeue or the store fail (running it again goes on).
int64_t runGenerations(RunStore& store, const sweep::SweepSpec& spec, const std::string& dir,
                       const BundleResources& resources, const GenerationOptions& options,
                       std::FILE* out);

}  // namespace nnwb
