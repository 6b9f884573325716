// `nnwb-cli sweep import BUNDLE` and the Sweeps tab's Import Bundle (docs/slurm.md): brings a
// sweep bundle's task results into the run store. The bundle's format and data fingerprints
// are checked; every task's results/I/result.json and epochs.jsonl are read and checked (a
// truncated file, a result of another sweep or trial is refused with the file and reason, the
// rest imported); then every finished trial is written in one transaction, keyed by its trial
// id (the run's uuid), so importing again, a requeued task or a partial copy never duplicates
// or downgrades a trial: a trial is replaced only by a result that got further (failed <
// pruned < complete, then more epochs). An import killed half-way leaves the store as it was.
// Use on the thread that owns the RunStore.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/runs/RunStore.h"

namespace nnwb {

struct BundleImportReport {
    int64_t sweepId = 0;               // 0: nothing imported and no sweep for the bundle yet
    bool created = false;              // this import created the sweep
    int imported = 0;                  // trials written (new or improved)
    int unchanged = 0;                 // results the store already has (or better)
    int waiting = 0;                   // tasks without a result yet
    std::vector<std::string> refused;  // "FILE: reason" each
};

// Throws BundleError for a bundle that cannot be read at all; RunStoreError when the store
// cannot be written (then nothing was). Test hook: with $NNWB_TEST_IMPORT_STALL_S set, the
// import sleeps that long inside its transaction (a test kills it there).
BundleImportReport importBundle(RunStore& store, const std::string& dir);

}  // namespace nnwb
