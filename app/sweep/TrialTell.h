// The one place that decides how an attempt of a sweep trial ends (issue 42 §3; Optuna's
// _tell_with_warning): from what the attempt left (its end line, or a bundle task's
// result.json), its epochs and result, the spec, whether the pruner, `sweep stop` or a bundle's
// rung ended it and whether another attempt is allowed, to the trial's state, value, second
// objective and error and its run's status. The coordinator, the bundle import and the bundle
// task use it. Pure functions; any thread.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/engine/RunOutcome.h"
#include "app/sweep/SweepStore.h"
#include "model/Trainer.h"
#include "model/sweep/SweepSpec.h"

namespace nnwb {

// What an attempt of a trial left.
struct AttemptEnd {
    bool ended = false;     // its end line came (a bundle: its result.json says how it ended)
    std::string status;     // the end line's word (trialEndWord's)
    std::string error;      // the end line's error
    std::string failure;    // the coordinator ended it itself (a bad line, no objective)
    std::string died;       // no end line: what is known (exit status, its error file)
    nlohmann::json result;  // the end-of-trial figures {"trading": ...}; null: none
    // Its epochs: the last report, how many, their samples per second summed.
    EpochReport last;
    int epochs = 0;
    double spsSum = 0.0;
    bool hasValidation = false;
    int64_t parameters = 0;
    std::optional<int> prunedAt;  // the epoch after which the pruner ended it
    bool stopRequested = false;   // `sweep stop` asked: a stopped attempt goes back to the queue
    bool pausedAtRung = false;    // a bundle generation's rung ended it (pruned when prunedAt)
    bool mayRetry = false;        // another attempt is allowed when it died without an end
};

struct TrialOutcome {
    TrialEnd end;           // the trial's (SweepStore::endTrial)
    std::string runStatus;  // its run's (runstatus words)
};

// How the attempt ends; `trial` gives its objective per epoch and epochs done.
TrialOutcome tellTrial(const sweep::SweepSpec& spec, const TrialRow& trial, const AttemptEnd& a);

}  // namespace nnwb
