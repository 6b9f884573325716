#include "app/cli/ParallelFolds.h"

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/compare/EpochReportJson.h"
#include "app/engine/RunOutcome.h"
#include "app/sweep/Slots.h"
#include "app/sweep/TrialProcess.h"
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

std::string parallelSelfPath() {
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("cannot find nnwb-cli itself (/proc/self/exe)");
    return p.string();
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

struct RunningFold {
    size_t k = 0;
    const Slot* slot = nullptr;
    std::unique_ptr<TrialProcess> proc;
    std::string outFile, errFile;
};

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
    const std::string cli = parallelSelfPath();
    const size_t n = wf.plan().folds.size();
    std::vector<FoldOutcome> outcomes(n);
    std::deque<size_t> queue;
    for (size_t k = 0; k < n; ++k) queue.push_back(k);
    std::vector<RunningFold> running;
    std::vector<bool> busy(slots.size(), false);
    std::string failure;
    while (!queue.empty() || !running.empty()) {
        for (size_t s = 0; s < slots.size() && !queue.empty() && failure.empty(); ++s) {
            if (busy[s]) continue;
            RunningFold f;
            f.k = queue.front();
            queue.pop_front();
            f.slot = &slots[s];
            const std::string tag = "fold-" + std::to_string(f.k + 1);
            f.outFile = (folder / (tag + ".json")).string();
            f.errFile = (folder / (tag + ".err")).string();
            std::vector<std::string> argv = {cli,           "walkforward", "--experiment",
                                             expFile,       "--fold",      std::to_string(f.k + 1),
                                             "--fold-out",  f.outFile,     "--device",
                                             f.slot->device};
            for (const std::string& a : recordingArgs(recording)) argv.push_back(a);
            outcomes[f.k].record = wf.plannedRecord(f.k, recording.name);
            events.foldStarted(outcomes[f.k].record);
            f.proc = std::make_unique<TrialProcess>(argv, f.slot->cpus, f.errFile);
            busy[s] = true;
            running.push_back(std::move(f));
        }
        for (size_t i = 0; i < running.size();) {
            RunningFold& f = running[i];
            std::vector<std::string> ignored;
            f.proc->readLines(ignored);  // the child prints nothing; keep its pipe drained
            const std::optional<int> status = f.proc->exited();
            if (!status) {
                ++i;
                continue;
            }
            try {
                std::ifstream in(f.outFile);
                readFoldOutcome(nlohmann::json::parse(in), outcomes[f.k]);
            } catch (const std::exception& e) {
                std::ifstream err(f.errFile);
                std::string why, line;
                while (std::getline(err, line)) why += (why.empty() ? "" : " ") + line;
                if (failure.empty())
                    failure = "fold " + std::to_string(f.k + 1) + "/" + std::to_string(n) +
                              ": its process gave no outcome (exit status " +
                              std::to_string(*status) + ")" + (why.empty() ? "" : ": " + why);
            }
            if (failure.empty()) events.foldEnded(outcomes[f.k].record);
            busy[size_t(f.slot - slots.data())] = false;
            running.erase(running.begin() + long(i));
        }
        if (!failure.empty() && running.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::error_code ec;
    if (failure.empty()) fs::remove_all(folder, ec);
    if (!failure.empty()) throw UsageError(failure);
    return outcomes;
}

}  // namespace nnwb::cli
