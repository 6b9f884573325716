// A walk-forward validation from the command line (app/engine/WalkForward.h): the one code path
// of `nnwb-cli walkforward` and of `nnwb-cli train` on an experiment whose validation.mode is
// walkforward. Prints each fold as it starts and ends, then the fold table and the stitched
// out-of-sample figures (or, with json, one JSON record per fold and the stitched summary);
// writes the fold table as CSV when asked. CLI thread; Qt-free.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/engine/WalkForward.h"
#include "app/runs/RunRecorder.h"
#include "model/Experiment.h"

namespace nnwb::cli {

struct WalkForwardOptions {
    std::string command = "walkforward";  // for warnings ("nnwb-cli train: warning: ...")
    std::string experimentFile;
    bool json = false;
    std::string csv;  // the fold table as CSV; "" for none
    // The folds as parallel processes on these slots (ParallelFolds.h); "" runs them in turn.
    std::string slots;
    RecordingOptions record;
    // --population N --vary ... --ensemble: every fold trains an ensemble of N members
    // (EnsembleWalkForward.h); 0 for one model per fold.
    int population = 0;
    std::vector<std::string> vary;
    bool ensemble = false;
};

// Returns 0; throws UsageError for bad input (data, plan, model, device) and
// std::runtime_error("fold k/N: ...") when a fold's run fails.
int runWalkForward(const Experiment& experiment, const WalkForwardOptions& options);

// The same for a cpcv plan (validation.scheme cpcv): the splits, then the paths' table and the
// distribution of their figures (or JSON: one record per split, one per path, then
// {"cpcv": ...}). runWalkForward calls it for such a plan (CpcvRun.cpp).
int runCpcvWalkForward(const Experiment& experiment, WalkForward& wf,
                       const WalkForwardOptions& options);

// `train --trial` on a cpcv plan (CpcvRunTrial.cpp): the splits in turn with `events`, then one
// "result" line of the paths' figures (app/engine/CpcvTrialResult.h); `end` prints the trial's
// end line. Returns the exit status; throws UsageError for bad input.
int runTrialCpcv(const Experiment& experiment, WalkForward& wf, WalkForwardEvents& events,
                 const std::function<void(RunEnd, const std::string&)>& end);

}  // namespace nnwb::cli
