#include "app/cli/ParallelFolds.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/engine/RunOutcome.h"
#include "app/sweep/Slots.h"
#include "app/trial/ChildSupervisor.h"
#include "app/trial/EpochReportJson.h"
#include "model/AtomicFile.h"

namespace nnwb::cli {

namespace {

namespace fs = std::filesystem;

nlohmann::json foldOutcomeJson(const FoldOutcome& o) {
    const FoldRecord& r = o.record;
    nlohmann::json groups = nlohmann::json::array();  // cpcv: each test group's figures
    for (const EpochMetrics& m : o.groupTest) groups.push_back(metricsToJson(m, true));
    return {{"fold", r.index + 1},
            {"groupTest", groups},
            {"end", foldEndWord(r.end)},
            {"error", r.error},
            {"epochs", r.epochs},
            {"bestEpoch", r.bestEpoch},
            {"stoppedEarly", r.stoppedEarly},
            {"runId", r.runId},
            {"train", metricsToJson(r.train, true)},
            {"validation", metricsToJson(r.validation, true)},
            {"test", metricsToJson(r.test, true)},
            {"outputs", o.outputs},
            {"targets", o.targets},
            {"testFirstBar", o.testFirstBar}};
}

// Fills `o` (its planned record already there) from foldOutcomeJson's form.
void readFoldOutcome(const nlohmann::json& j, FoldOutcome& o) {
    FoldRecord& r = o.record;
    const std::string end = j.at("end").get<std::string>();
    r.end = runEndOfFoldWord(end);
    r.error = j.at("error").get<std::string>();
    r.epochs = j.at("epochs").get<int>();
    r.bestEpoch = j.at("bestEpoch").get<int>();
    r.stoppedEarly = j.at("stoppedEarly").get<bool>();
    r.runId = j.at("runId").get<int64_t>();
    r.train = metricsFromJson(j.at("train"), "train");
    r.validation = metricsFromJson(j.at("validation"), "validation");
    r.test = metricsFromJson(j.at("test"), "test");
    o.outputs = j.at("outputs").get<std::vector<float>>();
    o.targets = j.at("targets").get<std::vector<float>>();
    o.testFirstBar = j.at("testFirstBar").get<size_t>();
    o.groupTest.clear();
    for (const nlohmann::json& g : j.at("groupTest"))
        o.groupTest.push_back(metricsFromJson(g, "groupTest"));
}

// The child's flags for the parent's recording options.
std::vector<std::string> recordingArgs(const RecordingOptions& r) {
    std::vector<std::string> a;
    if (!r.enabled) a.push_back("--no-record");
    if (!r.dbPath.empty()) a.insert(a.end(), {"--runs-db", r.dbPath});
    if (!r.name.empty()) a.insert(a.end(), {"--name", r.name});
    if (!r.tags.empty()) a.insert(a.end(), {"--tags", r.tags});
    if (!r.note.empty()) a.insert(a.end(), {"--note", r.note});
    return a;
}

struct QuietFoldEvents : WalkForwardEvents {
    void warning(const std::string& m) override {
        std::fprintf(stderr, "nnwb-cli walkforward: warning: %s\n", m.c_str());
    }
};

// The fold outcome child `k` wrote to `outFile`; throws naming the fold and its stderr file.
void readFoldFile(size_t k, size_t n, int status, const std::string& outFile,
                  const std::string& errFile, FoldOutcome& o) {
    try {
        std::ifstream in(outFile);
        readFoldOutcome(nlohmann::json::parse(in), o);
    } catch (const std::exception&) {
        std::ifstream err(errFile);
        std::string why, line;
        while (std::getline(err, line)) why += (why.empty() ? "" : " ") + line;
        throw UsageError("fold " + std::to_string(k + 1) + "/" + std::to_string(n) +
                         ": its process gave no outcome (exit status " + std::to_string(status) +
                         ")" + (why.empty() ? "" : ": " + why));
    }
}

}  // namespace

int runFoldToFile(WalkForward& wf, size_t k, const RecordingOptions& recording,
                  const std::string& outFile) {
    QuietFoldEvents events;
    const FoldOutcome o = wf.runFold(k, recording, events);
    writeFileAtomic(outFile, foldOutcomeJson(o).dump());
    return o.record.end == RunEnd::Completed ? 0 : 1;
}

WalkForwardResult runFoldsInParallel(WalkForward& wf, const std::string& slotText,
                                     const RecordingOptions& recording, WalkForwardEvents& events) {
    return WalkForward::stitch(runFoldOutcomesInParallel(wf, slotText, recording, events));
}

std::vector<FoldOutcome> runFoldOutcomesInParallel(WalkForward& wf, const std::string& slotText,
                                                   const RecordingOptions& recording,
                                                   WalkForwardEvents& events) {
    std::vector<Slot> slots;
    try {
        slots = parseSlots(slotText, usableCpus());
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--slots: ") + e.what());
    }
    // The effective experiment (flags applied, the price file absolute) for the children.
    const fs::path folder =
        fs::temp_directory_path() / ("nnwb-folds-" + std::to_string(::getpid()));
    fs::create_directories(folder);
    const Experiment& exp = wf.experiment();
    nlohmann::json ej = exp.toJson();
    ej["data"] = exp.dataWithAbsoluteFile();
    const std::string expFile = (folder / "experiment.json").string();
    writeFileAtomic(expFile, ej.dump(2));
    const std::string cli = thisExecutable();
    const size_t n = wf.plan().folds.size();
    std::vector<FoldOutcome> outcomes(n);
    size_t nextFold = 0;
    std::map<ChildSupervisor::Id, size_t> foldOf;
    auto file = [&](size_t k, const char* ext) {
        return (folder / ("fold-" + std::to_string(k + 1) + ext)).string();
    };
    ChildSupervisor children(slots.size());
    std::string failure;
    ChildSupervisor::Handlers h;
    h.line = [](ChildSupervisor::Id, const std::string&) {};  // the child prints nothing
    h.exited = [&](ChildSupervisor::Id id, size_t, int status) {
        const size_t k = foldOf.at(id);
        try {
            readFoldFile(k, n, status, file(k, ".json"), file(k, ".err"), outcomes[k]);
            if (failure.empty()) events.foldEnded(outcomes[k].record);
        } catch (const UsageError& e) {
            if (failure.empty()) failure = e.what();
        }
    };
    h.next = [&](size_t s) {  // the next fold on a free slot, none after a failure
        if (nextFold >= n || !failure.empty()) return false;
        const size_t k = nextFold++;
        std::vector<std::string> argv = {
            cli,        "walkforward",         "--experiment", expFile,
            "--fold",   std::to_string(k + 1), "--fold-out",   file(k, ".json"),
            "--device", slots[s].device};
        for (const std::string& a : recordingArgs(recording)) argv.push_back(a);
        outcomes[k].record = wf.plannedRecord(k, recording.name);
        events.foldStarted(outcomes[k].record);
        foldOf[children.start(s, argv, slots[s].cpus, file(k, ".err"))] = k;
        return true;
    };
    children.fill(h);
    while (children.running() > 0) children.poll(200, h);
    std::error_code ec;
    if (failure.empty()) fs::remove_all(folder, ec);
    if (!failure.empty()) throw UsageError(failure);
    return outcomes;
}

}  // namespace nnwb::cli
