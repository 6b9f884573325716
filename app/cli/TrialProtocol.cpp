#include "app/cli/TrialProtocol.h"

#include <nlohmann/json.hpp>

#include "app/compare/EpochReportJson.h"
#include "app/runs/RunRecorder.h"
#include "app/runs/StoredRun.h"
#include "compute/Backend.h"
#include "model/Monitor.h"

namespace nnwb::cli {

namespace {
void printLine(const nlohmann::json& j) {
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}
}  // namespace

nlohmann::json trialStartedJson(RunEngine& run) {
    const DeviceInfo info = run.session().backend().info();
    const ExperimentData& data = run.data();
    // The data's provenance as RunRecorder stores a run's, for the coordinator's trial run.
    nlohmann::json provenance = nlohmann::json::object();
    try {
        const StoredRun row = recordedRunRow(RecordingOptions::none(), run.experiment(), data, info,
                                             run.network().parameterCount(), run.epochsWanted(),
                                             monitorName(run.keeper().monitor()));
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
    return {{"provenance", provenance},
            {"parameters", run.network().parameterCount()},
            {"trainSamples", data.split.train.size()},
            {"validationSamples", data.split.validation.size()},
            {"deviceId", info.id},
            {"deviceName", info.id == "cpu" ? std::string("CPU (native)") : info.name},
            {"data", data.description},
            {"epochs", run.epochsWanted()},
            {"firstEpoch", run.firstEpoch()},
            {"seed", run.experiment().training.seed}};
}

void TrialEvents::started(RunEngine& run) {
    nlohmann::json j = {{"event", "started"}};
    j.update(trialStartedJson(run));
    printLine(j);
}

void printTrialResult(const nlohmann::json& trading, const nlohmann::json& outOfSample) {
    nlohmann::json j = {{"event", "result"}, {"trading", trading}};
    if (!outOfSample.is_null()) j["outOfSample"] = outOfSample;
    printLine(j);
}

void TrialEvents::epoch(const EpochReport& report) {
    nlohmann::json j = epochReportToJson(report, hasValidation_);
    j["event"] = "epoch";
    printLine(j);
}

void TrialEvents::betweenEpochs() {
    char line[64];
    std::string cmd;
    if (std::fgets(line, sizeof line, in_)) cmd = line;
    while (!cmd.empty() && (cmd.back() == '\n' || cmd.back() == '\r' || cmd.back() == ' '))
        cmd.pop_back();
    if (cmd == "continue") return;
    if (cmd == "prune")
        pruned_ = true;
    else
        stopped_ = true;  // "stop", the end of input, or anything else
    control_.requestStop();
}

void TrialEvents::warning(const std::string& message) {
    std::fprintf(stderr, "nnwb-cli train: warning: %s\n", message.c_str());
}

int TrialEvents::end(const RunResult& r, int modelEpoch) {
    const RunOutcome outcome{r.end, r.stoppedEarly, pruned_};
    nlohmann::json j = {{"event", "end"}, {"status", trialEndWord(outcome)}};
    if (r.end == RunEnd::Failed) j["error"] = r.error;
    if (modelEpoch > 0) j["modelEpoch"] = modelEpoch;
    printLine(j);
    return trialExitStatus({outcome});
}

void printTrialBadInput(const std::string& error) {
    printLine({{"event", "end"}, {"status", runstatus::kFailed}, {"error", error}});
}

}  // namespace nnwb::cli
