// `nnwb-cli train --trial`: the child side of a sweep trial (docs/sweeps.md, "Trial
// protocol"). The run goes on the run engine unrecorded (the sweep coordinator is the only
// writer of the run store); stdout carries one JSON object per line: "started" (what the run
// trains on), one "epoch" per completed epoch, "result" (the end-of-trial figures: trading,
// and a walk-forward's stitched out-of-sample figures), "end" (status, error). After each epoch
// but the last the child reads one line from stdin: "continue" goes on, "prune" ends the run as
// pruned, "stop" (or end of input: the coordinator is gone) as stopped. A walk-forward
// experiment prints "started" (of its first fold), one "fold" line per fold, "result" and
// "end", and reads nothing. CLI thread only.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "app/engine/RunEngine.h"
#include "model/Experiment.h"
#include "model/TrainControl.h"

namespace nnwb::cli {

// Exit statuses of a trial.
enum TrialExit {
    kTrialCompleted = 0,  // every epoch, or stopped early by early stopping
    kTrialFailed = 1,     // the run failed (non-finite loss, device failure)
    kTrialBadInput = 2,   // the experiment or flags are bad (nothing trained)
    kTrialPruned = 3,     // a "prune" line ended it
    kTrialStopped = 4     // a "stop" line or the end of stdin ended it
};

class TrialEvents : public RunEvents {
public:
    TrialEvents(TrainControl& control, bool hasValidation, std::FILE* in = stdin)
        : control_(control), hasValidation_(hasValidation), in_(in) {}
    void started(RunEngine& run) override;
    void epoch(const EpochReport& report) override;
    void betweenEpochs() override;
    void warning(const std::string& message) override;
    // Prints the "end" line and returns the exit status for how the run ended. `modelEpoch`:
    // the epoch of the weights saved with --save-model / --save-weights (0: none saved).
    int end(const RunResult& result, int modelEpoch = 0);

private:
    TrainControl& control_;
    bool hasValidation_;
    std::FILE* in_;
    bool pruned_ = false, stopped_ = false;
};

// Prints {"event":"end","status":"failed","error":...} for a run that never started.
void printTrialBadInput(const std::string& error);

// The "started" line's object for `run` (without "event").
nlohmann::json trialStartedJson(RunEngine& run);

// Prints {"event":"result","trading":T[,"outOfSample":O]}: T the trading figures of the traded
// part (app/engine/RunTrading.h's form; null when there is nothing to trade, {"error": ...}
// when the evaluation failed), O a walk-forward's stitched figures {samples, loss, accuracyPct,
// missedPct, signals, patterns} (null: not a walk-forward).
void printTrialResult(const nlohmann::json& trading, const nlohmann::json& outOfSample = nullptr);

// `train --trial` on a walk-forward experiment (TrialWalkForward.cpp): every fold in order on
// the run engine, unrecorded, then the stitched series traded; returns the exit status. Throws
// UsageError for bad input (data, fold plan, model, device).
int runTrialWalkForward(const Experiment& experiment);

}  // namespace nnwb::cli
