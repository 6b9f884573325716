#include "app/cli/TrialProtocol.h"

#include <signal.h>

#include <nlohmann/json.hpp>

#include "app/cli/TrialWorker.h"
#include "app/runs/RunRecorder.h"
#include "app/runs/StoredRun.h"
#include "app/trial/TrialStartupClock.h"
#include "compute/Backend.h"
#include "model/Monitor.h"

namespace nnwb::cli {

namespace {
bool dieAfterEpochLine = false;
}  // namespace

void dieAfterNextEpochLine() {
    dieAfterEpochLine = true;
}

nlohmann::json trialStartedJson(RunEngine& run) {
    trial::TrialStartupClock& clock = trial::TrialStartupClock::process();
    clock.startedNow();
    const DeviceInfo info = run.session().backend().info();
    const ExperimentData& data = run.data();
    // The data's provenance as RunRecorder stores a run's, for the coordinator's trial run.
    nlohmann::json provenance = nlohmann::json::object();
    try {
        // The price file's hash: a kept worker's cache (TrialWorker.h) times it.
        const StoredRun row = recordedRunRow(RecordingOptions::none(), run.experiment(), data, info,
                                             run.network().parameterCount(), run.epochsWanted(),
                                             monitorName(run.keeper().monitor()), keptFileSha256);
        provenance = {{"dataFile", row.dataFile},
                      {"dataSha256", row.dataSha256},
                      {"dataSize", row.dataSize},
                      {"dataBars", row.dataBars},
                      {"dataFirstBar", row.dataFirstBar},
                      {"dataLastBar", row.dataLastBar},
                      {"monitor", row.monitor}};
    } catch (const std::exception&) {
        // the data file cannot be read again: the trial's run is stored without its provenance
    }
    nlohmann::json j = {{"provenance", provenance},
                        {"parameters", run.network().parameterCount()},
                        {"trainSamples", data.split.train.size()},
                        {"validationSamples", data.split.validation.size()},
                        {"deviceId", info.id},
                        {"deviceName", info.id == "cpu" ? std::string("CPU (native)") : info.name},
                        {"data", data.description},
                        {"epochs", run.epochsWanted()},
                        {"firstEpoch", run.firstEpoch()},
                        {"seed", run.experiment().training.seed}};
    // In a kept worker, how its start-up went (TrialStartupClock.h); the first started line.
    if (nlohmann::json startup = clock.finish(); !startup.is_null()) j["startup"] = startup;
    return j;
}

void TrialEvents::started(RunEngine& run) {
    run_ = &run;
    pruned_.assign(size_t(run.models()), 0);
    trial::Line l;
    l.kind = trial::LineKind::Started;
    l.started = trialStartedJson(run);
    for (int m = 0; m < run.models(); ++m) {
        l.started["seed"] = run.experimentOf(m).training.seed;
        emitter_.write(l, m);
    }
}

void TrialEvents::epoch(const EpochReport& report) {
    trial::Line l;
    l.kind = trial::LineKind::Epoch;
    l.epoch = report;
    l.hasValidation = hasValidation_;
    emitter_.write(l, report.model);
    if (dieAfterEpochLine) ::raise(SIGKILL);
}

void TrialEvents::betweenEpochs() {
    std::vector<int> open;
    for (int m = 0; m < run_->models(); ++m)
        if (run_->memberOpen(m)) open.push_back(m);
    const auto answers = emitter_.ask(run_->trainer().epochsDone(), open);
    if (!answers) {  // the coordinator is gone: every member stops
        control_.requestStop();
        return;
    }
    for (size_t i = 0; i < open.size(); ++i) {
        const trial::Answer a = (*answers)[i];
        if (a == trial::Answer::Continue) continue;
        if (a == trial::Answer::Prune) pruned_[size_t(open[i])] = 1;
        if (run_->models() == 1)
            control_.requestStop();  // a trial alone ends as its own run stopped
        else
            run_->stopMember(open[i]);
    }
}

void TrialEvents::warning(const std::string& message) {
    std::fprintf(stderr, "nnwb-cli train: warning: %s\n", message.c_str());
}

void TrialEvents::result(const nlohmann::json& trading, int member) {
    trial::Line l;
    l.kind = trial::LineKind::Result;
    l.trading = trading;
    emitter_.write(l, member);
}

int TrialEvents::end(const std::vector<RunResult>& results, const std::vector<int>& modelEpochs) {
    // A stop of the whole run (the end of input) may end the members before started() when
    // nothing trained: nothing pruned then.
    std::vector<RunOutcome> outcomes;
    for (size_t m = 0; m < results.size(); ++m) {
        const RunResult& r = results[m];
        outcomes.push_back({r.end, r.stoppedEarly, m < pruned_.size() && pruned_[m]});
        trial::Line l;
        l.kind = trial::LineKind::End;
        l.end.status = trialEndWord(outcomes.back());
        if (r.end == RunEnd::Failed) l.end.error = r.error;
        l.end.modelEpoch = m < modelEpochs.size() ? modelEpochs[m] : 0;
        emitter_.write(l, int(m));
    }
    return trialExitStatus(outcomes);
}

int TrialEvents::end(const RunEngine& run, const std::vector<int>& modelEpochs) {
    std::vector<RunResult> results;
    for (int m = 0; m < run.models(); ++m) results.push_back(run.resultOf(m));
    return end(results, modelEpochs);
}

void printTrialResult(const nlohmann::json& trading, const std::optional<EpochMetrics>& oos) {
    trial::Line l;
    l.kind = trial::LineKind::Result;
    l.trading = trading;
    l.outOfSample = oos;
    trial::TrialEmitter(false).write(l);
}

void printTrialBadInput(const std::string& error) {
    trial::Line l;
    l.kind = trial::LineKind::End;
    l.end.status = runstatus::kFailed;
    l.end.error = error;
    trial::TrialEmitter(false).write(l);
}

}  // namespace nnwb::cli
