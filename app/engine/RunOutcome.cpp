#include "app/engine/RunOutcome.h"

#include "app/runs/StoredRun.h"

namespace nnwb {

const char* storedRunStatus(const RunOutcome& o) {
    return o.end == RunEnd::Failed    ? runstatus::kFailed
           : o.end == RunEnd::Stopped ? runstatus::kStopped
           : o.stoppedEarly           ? runstatus::kStoppedEarly
                                      : runstatus::kCompleted;
}

const char* trialEndWord(const RunOutcome& o) {
    return o.end == RunEnd::Stopped && o.pruned ? "pruned" : storedRunStatus(o);
}

bool trialEndWordComplete(const std::string& word) {
    return word == runstatus::kCompleted || word == runstatus::kStoppedEarly;
}

const char* foldEndWord(RunEnd end) {
    return end == RunEnd::Failed    ? runstatus::kFailed
           : end == RunEnd::Stopped ? runstatus::kStopped
                                    : runstatus::kCompleted;
}

RunEnd runEndOfFoldWord(const std::string& word) {
    return word == runstatus::kCompleted ? RunEnd::Completed
           : word == runstatus::kFailed  ? RunEnd::Failed
                                         : RunEnd::Stopped;
}

const char* runEndText(const RunOutcome& o) {
    return o.end == RunEnd::Failed                ? "failed"
           : o.end == RunEnd::Stopped && o.pruned ? "pruned"
           : o.end == RunEnd::Stopped             ? "stopped"
           : o.stoppedEarly                       ? "stopped early"
                                                  : "completed";
}

TrialExit trialExitStatus(const std::vector<RunOutcome>& outcomes) {
    bool failed = false, stopped = false, pruned = false;
    for (const RunOutcome& o : outcomes) {
        failed = failed || o.end == RunEnd::Failed;
        stopped = stopped || (o.end == RunEnd::Stopped && !o.pruned);
        pruned = pruned || (o.end == RunEnd::Stopped && o.pruned);
    }
    return failed    ? kTrialFailed
           : stopped ? kTrialStopped
           : pruned  ? kTrialPruned
                     : kTrialCompleted;
}

}  // namespace nnwb
