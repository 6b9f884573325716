// `nnwb-cli train --trial`: the child side of a sweep trial (docs/sweeps.md, "Trial
// protocol"; the lines' codec is app/trial/TrialLines.h). The run goes on the run engine
// unrecorded (the sweep coordinator is the only writer of the run store); stdout carries
// "started", one "epoch" per completed epoch, "result" (the end-of-trial figures) and "end";
// after each epoch but the last the child reads its answer (continue, prune, stop; the end of
// input stops). A walk-forward experiment prints "started", one "fold" line per fold, "result"
// and "end", and reads nothing. A packed trial (several --experiment files) trains them as one
// population: every line carries "member". CLI thread only.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/engine/RunEngine.h"
#include "app/engine/RunOutcome.h"
#include "app/trial/TrialEmitter.h"
#include "model/Experiment.h"
#include "model/TrainControl.h"

namespace nnwb::cli {

// Exit statuses of a trial: TrialExit (app/engine/RunOutcome.h).

// The events of a sweep trial on the run engine: a trial alone is a population of one. Its
// lines go through the protocol's one emitter (app/trial/TrialEmitter.h): a "started" and an
// "epoch" line per member (with "member" when packed), after each epoch but the last one
// answer line read for the members still training (a packed trial prints the "answer" line
// first). A pruned or stopped member of a population is ended through RunEngine::stopMember
// (masked out of the updates, the others go on); a trial alone through its TrainControl. The
// end of input stops them all.
class TrialEvents : public RunEvents {
public:
    // `packed`: a population of several trials (TrialPopulation.cpp).
    TrialEvents(TrainControl& control, bool hasValidation, bool packed = false,
                std::FILE* in = stdin, std::FILE* out = stdout)
        : control_(control), hasValidation_(hasValidation), emitter_(packed, out, in) {}
    void started(RunEngine& run) override;
    void epoch(const EpochReport& report) override;
    void betweenEpochs() override;
    void warning(const std::string& message) override;
    // Prints each member's "end" line (`modelEpochs[m]`: the epoch of its saved weights, 0:
    // none) and returns the exit status: 1 when a member failed, else 4 when one was stopped,
    // else 3 when one was pruned, else 0.
    int end(const std::vector<RunResult>& results, const std::vector<int>& modelEpochs);
    int end(const RunEngine& run, const std::vector<int>& modelEpochs);
    // A trial alone: `modelEpoch` the epoch of the weights saved with --save-model /
    // --save-weights (0: none saved).
    int end(const RunResult& result, int modelEpoch = 0) {
        return end(std::vector<RunResult>{result}, std::vector<int>{modelEpoch});
    }
    // Prints member `member`'s "result" line: its trading figures (printTrialResult's form).
    void result(const nlohmann::json& trading, int member);

private:
    TrainControl& control_;
    bool hasValidation_;
    trial::TrialEmitter emitter_;
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

// Tests of kept workers (TrialWorker.h): this process kills itself (SIGKILL) right after the
// next epoch line it prints, as a crash mid-trial would end it.
void dieAfterNextEpochLine();

// Prints {"event":"end","status":"failed","error":...} for a run that never started.
void printTrialBadInput(const std::string& error);

// The "started" line's object for `run` (without "event").
nlohmann::json trialStartedJson(RunEngine& run);

// Prints {"event":"result","trading":T[,"outOfSample":O]} of a trial alone: T the trading
// figures of the traded part (app/engine/RunTrading.h's form; null when there is nothing to
// trade, {"error": ...} when the evaluation failed), O a walk-forward's stitched figures (as
// the epochs' figures: samples, loss, accuracy, missed, signals, patterns, confusion).
void printTrialResult(const nlohmann::json& trading,
                      const std::optional<EpochMetrics>& outOfSample = std::nullopt);

// `train --trial` on a walk-forward experiment (TrialWalkForward.cpp): every fold in order on
// the run engine, unrecorded, then the stitched series traded; returns the exit status. Throws
// UsageError for bad input (data, fold plan, model, device).
int runTrialWalkForward(const Experiment& experiment);

}  // namespace nnwb::cli
