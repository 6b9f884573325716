#include "app/cli/TrialWorker.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>

#include <CLI/CLI.hpp>

#include "app/cli/Commands.h"
#include "app/cli/TrialProtocol.h"
#include "app/runs/FileHashCache.h"
#include "app/runs/Sha256.h"
#include "app/trial/TrialEmitter.h"
#include "app/trial/TrialLines.h"
#include "app/trial/TrialStartupClock.h"
#include "compute/BackendRegistry.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/data/FileStamp.h"

namespace nnwb::cli {

namespace {

// The worker's one data set and one backend (a slot has one device and, in a sweep, one data
// file): kept from trial to trial while the next one's key is the same.
struct Kept {
    bool active = false;  // in `sweep worker` (else nothing is kept)
    std::string dataKey, backendKey;
    std::shared_ptr<const ExperimentData> data;
    std::shared_ptr<Backend> backend;
    FileHashCache hashes;  // the data file's SHA-256 for the trials' provenance
};

Kept& kept() {
    static Kept k;
    return k;
}

// The data section, its folder and its price file's stamp (model/data/FileStamp.h: device,
// inode, size, modification and status-change times): what loadExperimentData reads (a file
// changed between trials is loaded again). `read`: the stamp taken before the load (none
// without a price file), whose ReadStamp::keeps rule says whether the loaded data may be kept.
std::string dataKeyOf(const Experiment& e, std::optional<ReadStamp>& read, std::string& file) {
    const nlohmann::json d = e.dataWithAbsoluteFile();
    std::string key = d.dump() + "|" + e.baseDir;
    read.reset();
    file.clear();
    if (d.contains("file") && d["file"].is_string()) {
        file = d["file"].get<std::string>();
        read = stampForRead(file);
        if (read->stamp) key += "|" + read->stamp->text();
    }
    return key;
}

int dieInTrial() {
    const char* v = std::getenv("NNWB_TEST_WORKER_DIE_IN_TRIAL");
    return v ? std::atoi(v) : 0;
}

// NNWB_TEST_WORKER_HOLD_BEFORE_READY=N:FILE (tests): the N-th trial's "ready" waits until FILE
// exists, so a test can act (`sweep stop`) while the coordinator still sees that trial running.
struct Hold {
    int trial = 0;  // 0: none
    std::string file;
};

Hold holdBeforeReady() {
    const char* v = std::getenv("NNWB_TEST_WORKER_HOLD_BEFORE_READY");
    const std::string s = v ? v : "";
    const size_t colon = s.find(':');
    if (colon == std::string::npos) return {};
    return {std::atoi(s.substr(0, colon).c_str()), s.substr(colon + 1)};
}

void waitForFile(const std::string& file) {
    struct stat st {};
    while (::stat(file.c_str(), &st) != 0) ::usleep(2000);
}

void printReady(int status) {
    trial::Line l;
    l.kind = trial::LineKind::Ready;
    l.readyStatus = status;
    trial::TrialEmitter(false).write(l);
}

}  // namespace

std::shared_ptr<const ExperimentData> keptData(const Experiment& e) {
    Kept& k = kept();
    if (!k.active) return nullptr;
    const trial::TrialStartupClock::Scope timed(trial::StartupPhase::Data);
    std::optional<ReadStamp> read;
    std::string file;
    const std::string key = dataKeyOf(e, read, file);
    if (k.data && k.dataKey == key) return k.data;
    k.data.reset();  // the old one freed before the new one loads
    k.dataKey.clear();
    auto data = std::make_shared<const ExperimentData>(loadExperimentData(e));
    // Not kept: data that failed (the run fails saying why), or a file changed just before or
    // during the load (the one rule of FileStamp.h, as the parsed price files' cache keeps).
    if (!data->ok || (read && !read->keeps(fileStamp(file)))) return data;
    k.dataKey = key;
    k.data = data;
    return data;
}

std::shared_ptr<Backend> keptBackend(const Experiment& e) {
    Kept& k = kept();
    if (!k.active) return nullptr;
    const trial::TrialStartupClock::Scope timed(trial::StartupPhase::Backend);
    // The precision is part of the key: a backend set to `high` stays so (TrainingSession).
    const std::string key = e.training.device + "|" + e.training.matmulPrecision;
    if (k.backend && k.backendKey == key) return k.backend;
    k.backend.reset();
    k.backend = std::shared_ptr<Backend>(createBackend(e.training.device));
    k.backendKey = key;
    return k.backend;
}

std::string keptFileSha256(const std::string& path, uint64_t* size) {
    Kept& k = kept();
    const trial::TrialStartupClock::Scope timed(trial::StartupPhase::Hash);
    bool hashed = true;
    const std::string sha =
        k.active ? k.hashes.sha256(path, size, &hashed) : sha256File(path, size);
    trial::TrialStartupClock::process().setDataHashed(hashed);
    return sha;
}

int runTrainArguments(const std::vector<std::string>& argv) {
    // The command line as nnwb-cli's main() parses it (main.cpp), with only `train` declared.
    CLI::App root("a kept worker's trial", "nnwb-cli");
    root.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    root.require_subcommand(1);
    Runners runners;
    addTrainCommand(root, runners);
    std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 takes them so
    try {
        root.parse(reversed);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "nnwb-cli train: %s\n", e.what());
        printTrialBadInput(std::string("nnwb-cli train: ") + e.what());
        return 2;
    }
    const CLI::App* train = root.get_subcommands().front();
    try {
        return runners.at(train)();
    } catch (const UsageError& e) {  // its end line is printed (runTrial)
        std::fprintf(stderr, "nnwb-cli train: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nnwb-cli train: %s\n", e.what());
        return 1;
    }
}

int runTrialWorker() {
    kept().active = true;
    const int dieIn = dieInTrial();
    const Hold hold = holdBeforeReady();
    int served = 0, status = 0;
    std::string text;
    while (trial::readLine(stdin, text)) {
        std::optional<trial::Line> line;
        try {
            line = trial::decodeLine(text);
        } catch (const trial::LineError& e) {
            std::fprintf(stderr, "nnwb-cli sweep worker: %s\n", e.what());
        }
        // Anything but a trial line while idle (a late answer) asks nothing: the next line.
        if (!line || line->kind != trial::LineKind::Trial) continue;
        trial::TrialStartupClock::process().begin();  // its "started" line says how long
        if (++served == dieIn) dieAfterNextEpochLine();
        status = runTrainArguments(line->argv);
        if (status == 1) break;  // a failure: the slot's next trial in a fresh process
        if (served == hold.trial) waitForFile(hold.file);
        printReady(status);
    }
    // The device objects go before the process's static objects (the OpenCL runtime's).
    kept() = Kept();
    return status == 1 ? 1 : 0;
}

}  // namespace nnwb::cli
