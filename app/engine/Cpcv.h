// Combinatorial purged cross-validation on the one run engine (validation scheme cpcv,
// model/data/CpcvPlan.h): every split trains and tests through WalkForward::runFold (a fold per
// split, recorded as "<name> fold k/N"), in turn here or as parallel processes
// (app/cli/ParallelFolds.h); then each path is stitched from its groups' test predictions into
// one out-of-sample SignalSeries over every sample of the file, with the task figures over it.
// Qt-free; the thread that trains.
#pragma once

#include <string>
#include <vector>

#include "app/engine/WalkForward.h"

namespace nnwb {

struct CpcvPath {
    size_t index = 0;            // 0-based; the user sees index + 1
    std::vector<size_t> splits;  // per group, the split its predictions come from (0-based)
    SignalSeries outOfSample;    // every sample of the file, in bar order
    EpochMetrics metrics;        // loss (sample-weighted over the groups), accuracy, missed
};

struct CpcvResult {
    RunEnd end = RunEnd::Completed;  // Failed or Stopped: at the first split that was
    std::string error;               // "fold k/N: ..." when failed
    std::vector<FoldRecord> splits;  // the splits that ran, in order
    std::vector<CpcvPath> paths;     // empty unless every split completed
};

// Every split of `wf` (whose plan must be cpcv) in turn; stops at the first that does not
// complete. Throws what WalkForward::runFold throws.
std::vector<FoldOutcome> runCpcvSplits(WalkForward& wf, const RecordingOptions& recording,
                                       WalkForwardEvents& events, TrainControl* control = nullptr);

// The splits' outcomes (in split order) stitched into the plan's paths.
CpcvResult stitchCpcv(const CpcvPlan& plan, const std::vector<FoldOutcome>& outcomes);

}  // namespace nnwb
