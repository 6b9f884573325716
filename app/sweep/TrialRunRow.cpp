#include "app/sweep/TrialRunRow.h"

#include <filesystem>

#include "app/runs/RunRecorder.h"

namespace fs = std::filesystem;

namespace nnwb {

namespace {

// The data's provenance and the monitor of the "started" line: the bars, their times and the
// monitor; the SHA-256 and size only when the line's data file is `run.dataFile` (a bundle
// import's run names the bundle's copy here, whose hash the import checks itself).
void copyProvenance(const nlohmann::json& started, StoredRun& run) {
    const nlohmann::json p = started.value("provenance", nlohmann::json::object());
    if (!p.is_object()) return;
    auto text = [&](const char* key, std::string& out) {
        if (p.contains(key) && p[key].is_string() && !p[key].get<std::string>().empty())
            out = p[key].get<std::string>();
    };
    auto number = [&](const char* key, int64_t& out) {
        if (p.contains(key) && p[key].is_number_integer()) out = p[key].get<int64_t>();
    };
    text("dataFirstBar", run.dataFirstBar);
    text("dataLastBar", run.dataLastBar);
    text("monitor", run.monitor);
    number("dataBars", run.dataBars);
    std::string file;
    text("dataFile", file);
    if (!file.empty() && !run.dataFile.empty() &&
        fs::path(file).lexically_normal() == fs::path(run.dataFile).lexically_normal()) {
        text("dataSha256", run.dataSha256);
        number("dataSize", run.dataSize);
    }
}

}  // namespace

StoredRun trialRunRow(const Experiment& experiment, const std::string& experimentFile,
                      const nlohmann::json& started, const TrialRunNames& names) {
    StoredRun run;
    run.uuid = names.uuid.empty() ? newRunUuid() : names.uuid;
    run.name = names.name;
    run.tags = names.tags;
    run.comparison = names.comparison;
    run.note = names.note;
    run.source = "sweep";
    run.experiment = experiment.toJson();
    run.experimentFile = experimentFile;
    run.dataFile = experiment.dataWithAbsoluteFile().value("file", "");
    copyProvenance(started, run);
    run.dataDescription = started.value("data", "");
    run.deviceId = started.value("deviceId", "");
    run.deviceName = started.value("deviceName", "");
    run.seed = started.value("seed", experiment.training.seed);
    run.appVersion = nnwbVersion();
    run.parameters = started.value("parameters", int64_t(0));
    run.trainSamples = started.value("trainSamples", int64_t(0));
    run.validationSamples = started.value("validationSamples", int64_t(0));
    run.epochsPlanned = started.value("epochs", experiment.training.epochs);
    return run;
}

}  // namespace nnwb
