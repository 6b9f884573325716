// `nnwb-cli train --trial`: the child side of a sweep trial (docs/sweeps.md, "Trial
// protocol"). The run goes on the run engine unrecorded (the sweep coordinator is the only
// writer of the run store); stdout carries one JSON object per line: "started" (what the run
// trains on), one "epoch" per completed epoch, "result" (the end-of-trial figures: trading,
// and a walk-forward's stitched out-of-sample figures), "end" (status, error). After each epoch
// but the last the child reads one line from stdin: "continue" goes on, "prune" ends the run as
// pruned, "stop" (or end of input: the coordinator is gone) as stopped. A walk-forward
// experiment prints "started" (of its first fold), one "fold" line per fold, "result" and
// "end", and reads nothing. A packed trial (several --experiment files) trains them as one
// population: every line carries "member" (the file's index), and after each epoch the child
// prints {"event":"answer",...} and reads one answer for every member still training.
// CLI thread only.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/engine/RunEngine.h"
#include "app/engine/RunOutcome.h"
#include "model/Experiment.h"
#include "model/TrainControl.h"

namespace nnwb::cli {

// Exit statuses of a trial: TrialExit (app/engine/RunOutcome.h).

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

// The events of a packed trial (a population of sweep trials, docs/sweeps.md "Packed
// trials"): a "started" and "epoch" line per member with "member": m; between epochs
// {"event":"answer","epoch":E,"members":[m,...]} (the members still training) and then one
// line read: a JSON object {"m":"continue"|"prune"|"stop",...} (a member not named goes on)
// or one word for all of them; the end of input stops them all. A pruned or stopped member is
// ended through RunEngine::stopMember (masked out of the updates); the others go on.
class PopulationTrialEvents : public RunEvents {
public:
    PopulationTrialEvents(TrainControl& control, bool hasValidation, std::FILE* in = stdin)
        : control_(control), hasValidation_(hasValidation), in_(in) {}
    void started(RunEngine& run) override;
    void epoch(const EpochReport& report) override;
    void betweenEpochs() override;
    void warning(const std::string& message) override;
    // Prints each member's "end" line (`modelEpochs[m]`: the epoch of its saved weights, 0:
    // none) and returns the exit status: 1 when a member failed, else 4 when one was stopped,
    // else 3 when one was pruned, else 0.
    int end(const RunEngine& run, const std::vector<int>& modelEpochs);

private:
    void answer(int member, const std::string& word);
    TrainControl& control_;
    bool hasValidation_;
    std::FILE* in_;
    RunEngine* run_ = nullptr;
    std::vector<char> pruned_;
};

// `train --trial` with several experiments (TrialPopulation.cpp): one population on the run
// engine, unrecorded; member m's kept weights go to saveModels[m] (a bundle) or saveWeights[m]
// when given. Returns the exit status; throws UsageError for bad input (members that cannot
// share a population, data, device).
int runTrialPopulation(const std::vector<Experiment>& members,
                       const std::vector<std::string>& saveModels,
                       const std::vector<std::string>& saveWeights);

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
