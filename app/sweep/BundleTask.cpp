#include "app/sweep/BundleTask.h"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/engine/RunOutcome.h"
#include "app/runs/RunStore.h"
#include "app/sweep/SweepBundle.h"
#include "app/trial/ChildSupervisor.h"
#include "app/trial/EpochReportJson.h"
#include "app/trial/TrialLines.h"
#include "model/AtomicFile.h"
#include "model/TrainCheckpoint.h"

namespace fs = std::filesystem;

namespace nnwb {

namespace {

volatile sig_atomic_t gTerm = 0;
void onTerm(int) {
    gTerm = 1;
}

const char* envOr(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// epochs.jsonl without the epochs from `first` on (a resumed attempt trains them again).
void keepEpochsBefore(const std::string& file, int first) {
    std::ifstream in(file);
    if (!in) return;
    std::string kept, line;
    while (std::getline(in, line)) {
        try {
            if (nlohmann::json::parse(line).value("epoch", 0) < first) kept += line + "\n";
        } catch (const std::exception&) {  // a torn last line of a killed attempt
        }
    }
    writeFileAtomic(file, kept);
}

// The epochs epochs.jsonl holds from 1 on without a gap.
int recordedEpochs(const std::string& file) {
    std::ifstream in(file);
    int n = 0;
    for (std::string line; std::getline(in, line);) {
        try {
            if (nlohmann::json::parse(line).value("epoch", 0) != n + 1) break;
        } catch (const std::exception&) {
            break;
        }
        ++n;
    }
    return n;
}

// A checkpoint past the epochs epochs.jsonl holds (a kill between an epoch's checkpoint and its
// line) is deleted: those epochs' figures are gone, so the trial trains again from epoch 1. An
// unreadable one is left to the trial, which says what is wrong with it.
void dropCheckpointAheadOfEpochs(const fs::path& out, int index, std::FILE* log) {
    const std::string checkpoint = (out / "checkpoint.safetensors").string();
    std::error_code ec;
    if (!fs::exists(checkpoint, ec)) return;
    int epoch = 0;
    try {
        epoch = checkpointEpoch(checkpoint);
    } catch (const CheckpointError&) {
        return;
    }
    const int recorded = recordedEpochs((out / "epochs.jsonl").string());
    if (epoch <= recorded) return;
    fs::remove(checkpoint, ec);
    if (log)
        std::fprintf(log,
                     "task %d: its checkpoint is of epoch %d but epochs.jsonl has %d epochs; "
                     "training again from epoch 1\n",
                     index, epoch, recorded);
}

}  // namespace

std::string taskDevice(const std::string& device, const char* gpuOrdinal, const char* cudaVisible) {
    if (device.rfind("opencl:", 0) != 0) return device;
    if (std::count(device.begin(), device.end(), ':') >= 2) return device;  // opencl:P:D
    std::string list = gpuOrdinal && *gpuOrdinal ? gpuOrdinal : (cudaVisible ? cudaVisible : "");
    std::string first = list.substr(0, list.find(','));
    if (first.empty() || first.find_first_not_of("0123456789") != std::string::npos) first = "0";
    return device + ":" + first;
}

namespace {

// result.json as a task starts: the bundle, trial, device and the Slurm job it runs in.
nlohmann::json taskResultHead(const Bundle& b, const BundleTrial& t, int index,
                              const std::string& device) {
    return {{"format", kBundleFormat},
            {"bundle", b.id},
            {"trial", t.id},
            {"index", index},
            {"device", device},
            {"startedAt", utcNowText()},
            {"slurm",
             {{"jobId", envOr("SLURM_JOB_ID")},
              {"arrayJobId", envOr("SLURM_ARRAY_JOB_ID")},
              {"arrayTaskId", envOr("SLURM_ARRAY_TASK_ID")},
              {"restartCount", envOr("SLURM_RESTART_COUNT")},
              {"gpus", envOr("GPU_DEVICE_ORDINAL")},
              {"node", envOr("SLURMD_NODENAME")}}}};
}

// Whether an earlier attempt of the task already paused at rung `untilEpoch`.
bool pausedAlready(const fs::path& out, const Bundle& b, const BundleTrial& t, int untilEpoch,
                   int index, std::FILE* log) {
    try {
        const auto old = nlohmann::json::parse(readFile((out / "result.json").string()));
        if (old.value("bundle", "") != b.id || old.value("trial", "") != t.id ||
            old.value("status", "") != "paused" || old.value("epochsDone", 0) < untilEpoch)
            return false;
        if (log)
            std::fprintf(log, "task %d (trial %s): paused after epoch %d already\n", index,
                         t.id.substr(0, 12).c_str(), old.value("epochsDone", 0));
        return true;
    } catch (const std::exception&) {  // none or unreadable: run it
        return false;
    }
}

// SIGTERM/SIGINT end the task at its next line (Slurm's cancel, preemption, time limit); the
// GPU-hiding variables are cleared (the task names its device by ordinal).
void takeSignalsAndDevices() {
    struct sigaction sa = {};
    sa.sa_handler = onTerm;
    ::sigaction(SIGTERM, &sa, nullptr);
    ::sigaction(SIGINT, &sa, nullptr);
    ::signal(SIGPIPE, SIG_IGN);
    ::unsetenv("CUDA_VISIBLE_DEVICES");
    ::unsetenv("GPU_DEVICE_ORDINAL");
    ::unsetenv("ROCR_VISIBLE_DEVICES");
}

// What the task's trial process printed, as result.json and epochs.jsonl keep it.
struct TaskLines {
    std::string epochsFile;
    int untilEpoch = 0;
    std::ofstream epochs;
    nlohmann::json started = nlohmann::json::object(), trading;
    trial::End end;
    std::string badLine;  // a line the protocol refuses (the trial is killed)
    std::optional<int> resumedFrom;
    int epochsDone = 0;
    bool paused = false;

    // One stdout line; after an epoch the answer to send (stop at a rung or on `term`).
    // Throws trial::LineError for a bad protocol line.
    std::optional<std::string> handle(const std::string& text, bool term) {
        const std::optional<trial::Line> l = trial::decodeLine(text);
        if (!l) return std::nullopt;  // stray text
        if (l->kind == trial::LineKind::Started) {
            started = l->started;
            const int first = started.value("firstEpoch", 1);
            keepEpochsBefore(epochsFile, first);
            resumedFrom = first - 1;
            epochsDone = first - 1;
            epochs.open(epochsFile, std::ios::app);
        } else if (l->kind == trial::LineKind::Epoch) {
            epochs << epochReportToJson(l->epoch, l->hasValidation).dump() << "\n" << std::flush;
            epochsDone = l->epoch.epoch;
            paused = untilEpoch > 0 && epochsDone >= untilEpoch;
            const bool stop = term || paused;
            return trial::encodeAnswers({{0, stop ? trial::Answer::Stop : trial::Answer::Continue}},
                                        true);
        } else if (l->kind == trial::LineKind::Result) {
            trading = l->trading;
        } else if (l->kind == trial::LineKind::End) {
            end = l->end;
        }
        return std::nullopt;
    }
};

// Runs the trial on one slot and reads its lines until it ends (killing it at SIGTERM or at a
// bad protocol line); its exit status. A process of its own, not a kept worker (Coordinator's
// "Kept workers"): an array task runs one trial, so there is no next trial to keep one for.
int superviseTask(const std::vector<std::string>& argv, const std::string& errFile,
                  TaskLines& lines) {
    ChildSupervisor children(1);
    const ChildSupervisor::Id child = children.start(0, argv, {}, errFile);
    bool term = false;
    int exit = -1;
    ChildSupervisor::Handlers h;
    h.line = [&](ChildSupervisor::Id, const std::string& l) {
        try {
            if (const auto answer = lines.handle(l, term)) children.send(child, *answer);
        } catch (const trial::LineError& e) {
            if (lines.badLine.empty()) lines.badLine = e.what();
            children.kill(child);
        }
    };
    h.exited = [&](ChildSupervisor::Id, size_t, int status) { exit = status; };
    while (children.running() > 0) {
        if (gTerm && !term) {
            term = true;  // the checkpoint of the last epoch is on disk: end now
            children.kill(child);
        }
        children.poll(200, h);
    }
    return exit;
}

}  // namespace

int runBundleTask(const std::string& dirIn, int index, const std::string& cli, std::FILE* log,
                  int untilEpoch) {
    const Bundle b = readBundle(dirIn);
    if (index < 0 || index >= int(b.trials.size()))
        throw BundleError(b.dir + "/bundle.json: no task " + std::to_string(index) + " (it has " +
                          std::to_string(b.trials.size()) + ")");
    const BundleTrial& t = b.trials[size_t(index)];
    const fs::path out = fs::path(b.dir) / "results" / std::to_string(index);
    fs::create_directories(out);
    const std::string device = taskDevice(b.resources.device, std::getenv("GPU_DEVICE_ORDINAL"),
                                          std::getenv("CUDA_VISIBLE_DEVICES"));
    nlohmann::json result = taskResultHead(b, t, index, device);
    auto finish = [&](const std::string& status, const std::string& error, int code) {
        result["status"] = status;
        if (!error.empty()) result["error"] = error;
        result["endedAt"] = utcNowText();
        writeFileAtomic((out / "result.json").string(), result.dump(2) + "\n");
        if (log)
            std::fprintf(log, "task %d (trial %s): %s%s%s\n", index, t.id.substr(0, 12).c_str(),
                         status.c_str(), error.empty() ? "" : ": ", error.c_str());
        return code;
    };
    if (untilEpoch > 0) {  // a rung: done already when an earlier attempt paused there
        if (pausedAlready(out, b, t, untilEpoch, index, log)) return 0;
        result["untilEpoch"] = untilEpoch;
    }
    const auto problems = bundleDataProblems(b);
    if (!problems.empty()) return finish("failed", problems.front(), 2);
    takeSignalsAndDevices();
    dropCheckpointAheadOfEpochs(out, index, log);
    const std::vector<std::string> argv = {cli,
                                           "train",
                                           "--experiment",
                                           (fs::path(b.dir) / t.experiment).string(),
                                           "--trial",
                                           "--device",
                                           device,
                                           "--checkpoint",
                                           (out / "checkpoint.safetensors").string(),
                                           b.data.empty() ? "--save-weights" : "--save-model",
                                           (out / "model.safetensors").string()};
    TaskLines lines;
    lines.epochsFile = (out / "epochs.jsonl").string();
    lines.untilEpoch = untilEpoch;
    const int exit = superviseTask(argv, (out / "trial.err").string(), lines);
    if (lines.resumedFrom) result["resumedFrom"] = *lines.resumedFrom;
    result["started"] = lines.started;
    result["epochsDone"] = lines.epochsDone;
    if (!lines.trading.is_null()) result["trading"] = lines.trading;
    if (lines.end.modelEpoch > 0) result["modelEpoch"] = lines.end.modelEpoch;
    const std::string endStatus = lines.badLine.empty() ? lines.end.status : "";
    if (gTerm)
        return finish("interrupted",
                      "ended by SIGTERM after epoch " + std::to_string(lines.epochsDone) +
                          " (cancelled, preempted or at its time limit); a requeue goes on "
                          "from its checkpoint",
                      143);
    if (trialEndWordComplete(endStatus)) {
        result["endStatus"] = endStatus;
        return finish("complete", "", 0);
    }
    if (endStatus == runstatus::kStopped && lines.paused) return finish("paused", "", 0);
    std::string error = lines.badLine.empty() ? lines.end.error : lines.badLine;
    if (error.empty())
        error = "the trial process ended without finishing (exit status " + std::to_string(exit) +
                "; see " + (out / "trial.err").string() + ")";
    return finish("failed", error, exit == 2 ? 2 : 1);
}

}  // namespace nnwb
