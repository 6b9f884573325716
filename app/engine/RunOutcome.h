// One vocabulary of how runs end (issue 42 §1): a run (RunEnd and its early stopping), a member
// of a population or a sweep trial (also pruned), a walk-forward fold; their stored words
// (runstatus::, app/runs/StoredRun.h), the trial protocol's end words, the exit statuses of
// `train --trial` and the texts shown to a user. Each mapping is written here once; the engine,
// the trial protocol, population training, walk-forward, parallel folds and the sweep side use
// it. Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "app/engine/RunTypes.h"

namespace nnwb {

// How one run ended, as far as its words go.
struct RunOutcome {
    RunEnd end = RunEnd::Completed;
    bool stoppedEarly = false;  // completed by its own early-stopping rule
    bool pruned = false;        // stopped by a sweep's pruner
};

// The stored status (runstatus::): completed, stopped_early, stopped (pruned too), failed.
const char* storedRunStatus(const RunOutcome& o);
// The trial protocol's end word: the stored status, or "pruned".
const char* trialEndWord(const RunOutcome& o);
// Whether a trial end word is a finished training (completed, stopped_early).
bool trialEndWordComplete(const std::string& word);
// A fold's word in walkforward's fold lines and JSON: completed, stopped, failed.
const char* foldEndWord(RunEnd end);
// foldEndWord's inverse (another word reads as stopped).
RunEnd runEndOfFoldWord(const std::string& word);
// As shown to a user: completed, stopped early, stopped, pruned, failed.
const char* runEndText(const RunOutcome& o);

// Exit statuses of `nnwb-cli train --trial` (docs/sweeps.md).
enum TrialExit {
    kTrialCompleted = 0,  // every epoch, or stopped early by early stopping
    kTrialFailed = 1,     // the run failed (non-finite loss, device failure)
    kTrialBadInput = 2,   // the experiment or flags are bad (nothing trained)
    kTrialPruned = 3,     // a "prune" line ended it
    kTrialStopped = 4     // a "stop" line or the end of stdin ended it
};
// The exit status of a trial process whose runs (one, or a packed population's members)
// ended so: failed when one failed, else stopped when one was stopped (not pruned), else
// pruned when one was, else completed.
TrialExit trialExitStatus(const std::vector<RunOutcome>& outcomes);

}  // namespace nnwb
