#include "app/sweep/BundleImport.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <SQLiteCpp/SQLiteCpp.h>

#include "app/runs/PendingRun.h"
#include "app/runs/RunRecorder.h"
#include "app/runs/Sha256.h"
#include "app/sweep/SweepBundle.h"
#include "app/sweep/SweepHistory.h"
#include "app/sweep/SweepStore.h"
#include "app/sweep/TaskResultChecks.h"
#include "app/sweep/TrialRunRow.h"
#include "app/sweep/TrialTell.h"
#include "app/trial/EpochReportJson.h"
#include "model/AtomicFile.h"
#include "model/JsonRead.h"
#include "model/Monitor.h"

namespace fs = std::filesystem;

namespace nnwb {

namespace {

using sweep::TrialState;

// One task's result, read and checked.
struct TaskResult {
    PendingRun run;
    TrialRow row;
};

// failed < pruned < complete; a trial still between the rungs of a bundle run in generations
// (running) is below them all: any result that ends it replaces it.
int stateRank(TrialState s) {
    return s == TrialState::Complete ? 2
           : s == TrialState::Pruned ? 1
           : s == TrialState::Failed ? 0
                                     : -1;
}

// epochs.jsonl into the run's epochs and the trial's objective per epoch (none when the file
// is absent); returns the last epoch and the sum of the epochs' samples per second.
std::pair<EpochReport, double> readEpochs(const std::string& epochsFile, int maxEpochs,
                                          const sweep::SweepSpec& spec, bool hasValidation,
                                          int64_t parameters, TaskResult& out) {
    PendingRun& p = out.run;
    TrialRow& row = out.row;
    const std::string epochsText =
        resultEntryExists(epochsFile) ? readResultFile(epochsFile, kMaxEpochsFileBytes) : "";
    std::istringstream in(epochsText);
    std::string line;
    int lineNo = 0;
    EpochReport last;
    double spsSum = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        const std::string where = epochsFile + ":" + std::to_string(lineNo);
        EpochReport rep;
        try {
            rep = epochReportFromJson(parseJson(line, ""));
        } catch (const std::exception& e) {
            throw std::runtime_error(where + ": not an epoch object: " + e.what());
        }
        checkEpochReport(rep, last.epoch, maxEpochs, where);
        p.epochs.push_back(StoredEpoch{rep, rep.learningRate});
        if (!spec.objective.atEnd()) {
            const auto v = spec.objective.value(rep, hasValidation, parameters);
            if (v && std::isfinite(*v)) row.epochs[rep.epoch] = *v;
        }
        row.epochsDone = rep.epoch;
        spsSum += rep.samplesPerSecond;
        last = rep;
    }
    return {last, spsSum};
}

// results/I/model.safetensors, checked against the trial, as the run's model when result.json
// `file` names the epoch it is of (modelEpoch; 0: none kept).
void addKeptModel(const std::string& file, const nlohmann::json& r, const Experiment& experiment,
                  bool priceFile, int bestEpoch, PendingRun& p) {
    const int epochsDone = p.epochs.empty() ? 0 : p.epochs.back().report.epoch;
    const std::string epochsFile = (fs::path(file).parent_path() / "epochs.jsonl").string();
    const fs::path model = fs::path(file).parent_path() / "model.safetensors";
    const nlohmann::json modelEpochJson = r.value("modelEpoch", nlohmann::json(0));
    if (!modelEpochJson.is_number_integer() || modelEpochJson.get<int64_t>() < 0 ||
        modelEpochJson.get<int64_t>() > epochsDone)
        throw std::runtime_error(file + ": modelEpoch " + jsonExcerpt(modelEpochJson) +
                                 " is not one of the " + std::to_string(epochsDone) +
                                 " epochs in " + epochsFile);
    const int modelEpoch = modelEpochJson.get<int>();
    if (modelEpoch > 0 && resultEntryExists(model.string())) {
        checkTrialModel(model.string(), experiment, priceFile);
        StoredBundle sb;
        sb.kind = modelEpoch == bestEpoch ? "best" : "last";
        sb.path = model.string();
        sb.sha256 = sha256File(sb.path, &sb.size);
        sb.epoch = modelEpoch;
        p.bundles.push_back(sb);
    }
}

// The trial run's data provenance as a recorded run's (recordedRunRow() of
// app/runs/RunRecorder.h): the bundle's data file here with the SHA-256 and size the import
// checked, the bars and monitor of the task's "started" line (result.json
// started.provenance, app/cli/TrialProtocol.cpp). A SHA-256 or size there other than the
// bundle file's (the task trained on other data) or a value of the wrong kind is refused.
void storeProvenance(const Bundle& b, const nlohmann::json& started, const std::string& file,
                     StoredRun& run) {
    const nlohmann::json p = started.value("provenance", nlohmann::json::object());
    auto where = [&](const char* key) { return file + ": started.provenance." + key + " "; };
    if (!p.is_object())
        throw std::runtime_error(file + ": started.provenance " + jsonExcerpt(p) +
                                 " is not an object");
    auto text = [&](const char* key) -> std::string {
        if (!p.contains(key)) return {};
        if (!p[key].is_string() || p[key].get_ref<const std::string&>().size() > 64)
            throw std::runtime_error(where(key) + jsonExcerpt(p[key]) +
                                     " is not a text of at most 64 characters");
        return p[key].get<std::string>();
    };
    auto count = [&](const char* key) -> int64_t {
        if (!p.contains(key)) return 0;
        if (!p[key].is_number_integer() || p[key].get<int64_t>() < 0)
            throw std::runtime_error(where(key) + jsonExcerpt(p[key]) +
                                     " is not a whole number >= 0");
        return p[key].get<int64_t>();
    };
    const std::string sha = text("dataSha256"), monitor = text("monitor");
    const int64_t size = count("dataSize");
    run.dataBars = count("dataBars");
    run.dataFirstBar = text("dataFirstBar");
    run.dataLastBar = text("dataLastBar");
    if (!monitor.empty()) {
        try {
            monitorFromName(monitor);
        } catch (const std::invalid_argument& e) {
            throw std::runtime_error(where("monitor") + e.what());
        }
        run.monitor = monitor;
    }
    const fs::path dataFile = fs::path(run.dataFile).lexically_normal();
    for (const BundleDataFile& f : b.data) {
        if (run.dataFile.empty() || (fs::path(b.dir) / f.file).lexically_normal() != dataFile)
            continue;
        if (!sha.empty() && sha != f.sha256)
            throw std::runtime_error(where("dataSha256") + sha +
                                     " is not the SHA-256 of the "
                                     "bundle's " +
                                     f.file + " (" + f.sha256 +
                                     "): the task trained on other data");
        if (p.contains("dataSize") && uint64_t(size) != f.size)
            throw std::runtime_error(where("dataSize") + std::to_string(size) +
                                     " is not the size of the bundle's " + f.file + " (" +
                                     std::to_string(f.size) + " bytes)");
        run.dataSha256 = f.sha256;
        run.dataSize = int64_t(f.size);
    }
}

// The trial of task `t` as result.json `r` says where and when it ran (its state comes later).
TrialRow taskTrialRow(const BundleTrial& t, const nlohmann::json& r, const std::string& file) {
    TrialRow row;
    row.number = t.index;
    row.config = t.config;
    row.replicate = t.replicate;
    row.params = t.params;
    const nlohmann::json slurm = r.value("slurm", nlohmann::json::object());
    row.attempts = 1 + restartCountOf(slurm, file);
    row.slot = r.value("device", "") +
               (slurm.value("node", "").empty() ? "" : " on " + slurm.value("node", std::string()));
    row.startedAt = r.value("startedAt", "");
    row.endedAt = r.value("endedAt", "");
    return row;
}

// How a task's attempt ended, from result.json's `status` (complete, paused at a rung, failed,
// interrupted) and `endStatus`; an endStatus of a complete task other than completed or
// stopped_early is refused.
AttemptEnd attemptEndOf(const nlohmann::json& r, const std::string& status,
                        const std::string& file) {
    AttemptEnd a;
    a.ended = true;
    a.status = status == "complete" ? r.value("endStatus", std::string(runstatus::kCompleted))
               : status == "paused" ? std::string(runstatus::kStopped)
                                    : std::string(runstatus::kFailed);
    if (status == "complete" && !trialEndWordComplete(a.status))
        throw std::runtime_error(file + ": endStatus '" + a.status + "' is not " +
                                 runstatus::kCompleted + " or " + runstatus::kStoppedEarly);
    if (a.status == runstatus::kFailed) a.error = r.value("error", status);
    a.pausedAtRung = status == "paused";
    return a;
}

// Reads results/I of trial `t`; throws std::runtime_error("FILE: reason").
TaskResult readTask(const Bundle& b, const BundleTrial& t, const sweep::SweepSpec& spec,
                    const std::string& file) {
    nlohmann::json r;
    try {
        r = parseJson(readResultFile(file, kMaxResultJsonBytes), file);
    } catch (const JsonReadError& e) {
        throw std::runtime_error(std::string(e.what()) + " (a truncated or partial copy?)");
    }
    if (!r.is_object()) throw std::runtime_error(file + ": not a JSON object");
    if (r.value("bundle", "") != b.id)
        throw std::runtime_error(file + ": a result of another sweep (bundle '" +
                                 r.value("bundle", "") + "'; this bundle is " + b.id + ")");
    if (r.value("trial", "") != t.id)
        throw std::runtime_error(file + ": trial id " + r.value("trial", "") + " is not task " +
                                 std::to_string(t.index) + "'s (" + t.id + ")");
    const std::string status = r.value("status", "");
    if (status != "complete" && status != "failed" && status != "interrupted" && status != "paused")
        throw std::runtime_error(file + ": status '" + status +
                                 "' is not complete, paused, failed or interrupted");
    const std::string experimentFile = (fs::path(b.dir) / t.experiment).string();
    Experiment experiment;
    try {
        experiment = Experiment::load(experimentFile);
    } catch (const std::exception& e) {
        throw std::runtime_error(experimentFile + ": " + e.what());
    }
    TaskResult out;
    TrialRow& row = out.row;
    row = taskTrialRow(t, r, file);
    const nlohmann::json slurm = r.value("slurm", nlohmann::json::object());
    const nlohmann::json started = r.value("started", nlohmann::json::object());
    const bool hasValidation = started.value("validationSamples", int64_t(0)) > 0;
    const int64_t parameters = started.value("parameters", int64_t(0));
    // The epochs.
    PendingRun& p = out.run;
    const std::string epochsFile = (fs::path(file).parent_path() / "epochs.jsonl").string();
    const auto [last, spsSum] =
        readEpochs(epochsFile, experiment.training.epochs, spec, hasValidation, parameters, out);
    const nlohmann::json trading = r.value("trading", nlohmann::json());
    // How it ended, decided as the coordinator decides it for a trial it ran.
    AttemptEnd a = attemptEndOf(r, status, file);
    a.result = {{"trading", trading}};
    a.last = last;
    a.epochs = int(p.epochs.size());
    a.spsSum = spsSum;
    a.hasValidation = hasValidation;
    a.parameters = parameters;
    if (t.prunedAt > 0) a.prunedAt = t.prunedAt;
    const TrialOutcome told = tellTrial(spec, row, a);
    row.state = told.end.state;
    row.value = told.end.value;
    row.secondValue = told.end.second;
    row.prunedAt = told.end.prunedAt;
    row.error = told.end.error;
    // The run, as the coordinator records a trial's.
    TrialRunNames names;
    names.name = b.name + " trial " + std::to_string(t.index);
    names.tags = "sweep,slurm";
    names.note =
        "sweep bundle " + b.id + " task " + std::to_string(t.index) + ": " + t.params.dump();
    names.uuid = t.id;
    StoredRun& run = p.run;
    run = trialRunRow(experiment, experimentFile, started, names);
    storeProvenance(b, started, file, run);  // checked against the bundle's data
    if (run.deviceId.empty()) run.deviceId = r.value("device", "");
    run.seed = t.seed;
    run.startedAt = row.startedAt;
    run.host = slurm.value("node", "");
    run.status = told.runStatus;
    run.error = row.error;
    if (last.bestEpoch > 0) run.bestEpoch = last.bestEpoch;
    if (trading.is_object()) run.trading = trading;
    p.ended = true;
    p.endedAt = row.endedAt;
    addKeptModel(file, r, experiment, !b.data.empty(), last.bestEpoch, p);
    return out;
}

int64_t insertSweep(SQLite::Database& db, const Bundle& b, bool done) {
    SQLite::Statement q(db,
                        "INSERT INTO sweeps (name, spec, spec_file, status, created_at, host) "
                        "VALUES (?, ?, ?, ?, ?, ?)");
    q.bind(1, b.name);
    q.bind(2, b.spec.dump());
    q.bind(3, (fs::path(b.dir) / "spec.json").string());
    q.bind(4, done ? sweepstatus::kCompleted : sweepstatus::kStopped);
    q.bind(5, b.created);
    q.bind(6, "slurm bundle " + b.id);
    q.exec();
    const int64_t id = db.getLastInsertRowid();
    for (const BundleTrial& t : b.trials) {
        TrialRow row;
        row.number = t.index;
        row.config = t.config;
        row.replicate = t.replicate;
        row.params = t.params;
        insertQueuedTrial(db, id, row);
    }
    return id;
}

void bindOptional(SQLite::Statement& q, int i, const std::optional<double>& v) {
    if (v)
        q.bind(i, *v);
    else
        q.bind(i);
}

void writeTrial(SQLite::Database& db, int64_t sweepId, const TrialRow& t, int64_t runId) {
    // The objective per epoch, then the trial (the import's rule decided it may change).
    SQLite::Statement d(db, "DELETE FROM trial_epochs WHERE sweep_id = ? AND number = ?");
    d.bind(1, sweepId);
    d.bind(2, t.number);
    d.exec();
    for (const auto& [epoch, value] : t.epochs)
        writeTrialEpoch(db, sweepId, t.number, epoch, value);
    SQLite::Statement u(db,
                        "UPDATE trials SET state = ?, run_id = ?, attempts = ?, slot = ?, value = "
                        "?, second_value = ?, epochs_done = ?, pruned_at = ?, error = ?, "
                        "started_at = ?, ended_at = ? WHERE sweep_id = ? AND number = ?");
    u.bind(1, sweep::trialStateName(t.state));
    u.bind(2, runId);
    u.bind(3, t.attempts);
    u.bind(4, t.slot);
    bindOptional(u, 5, t.value);
    bindOptional(u, 6, t.secondValue);
    u.bind(7, t.epochsDone);
    if (t.prunedAt)
        u.bind(8, *t.prunedAt);
    else
        u.bind(8);
    if (t.error.empty())
        u.bind(9);
    else
        u.bind(9, t.error);
    u.bind(10, t.startedAt);
    u.bind(11, t.endedAt);
    u.bind(12, sweepId);
    u.bind(13, t.number);
    u.exec();
    SQLite::Statement c(db, "UPDATE runs SET comparison = ? WHERE id = ?");
    c.bind(1, "sweep-" + std::to_string(sweepId));
    c.bind(2, runId);
    c.exec();
}

// The trials of a bundle run in generations that its stored sweep does not have yet (the
// generations after the one that created it), as queued.
void addMissingTrials(SQLite::Database& db, int64_t sweepId, const Bundle& b) {
    for (const BundleTrial& t : b.trials) {
        SQLite::Statement q(db, "SELECT COUNT(*) FROM trials WHERE sweep_id = ? AND number = ?");
        q.bind(1, sweepId);
        q.bind(2, t.index);
        q.executeStep();
        if (q.getColumn(0).getInt() > 0) continue;
        TrialRow row;
        row.number = t.index;
        row.config = t.config;
        row.replicate = t.replicate;
        row.params = t.params;
        insertQueuedTrial(db, sweepId, row);
    }
}

}  // namespace

namespace {
// The sweep that holds any trial of bundle `b` (0: none yet).
int64_t sweepOfTrials(SQLite::Database& db, const Bundle& b) {
    for (const BundleTrial& t : b.trials) {
        SQLite::Statement q(db,
                            "SELECT t.sweep_id FROM runs r JOIN trials t ON t.run_id = r.id "
                            "WHERE r.uuid = ?");
        q.bind(1, t.id);
        if (q.executeStep()) return q.getColumn(0).getInt64();
    }
    return 0;
}
// The import's rule: result `r` replaces its stored trial only when it got further (failed <
// pruned < complete, then more epochs); a new trial always comes in. Deletes the stored run's
// epochs when it does (the better attempt's replace them); `sweepId`: the stored trial's sweep.
bool gotFurther(SQLite::Database& db, const TaskResult& r, int64_t& sweepId) {
    SQLite::Statement q(db,
                        "SELECT t.sweep_id, t.state, t.epochs_done, r.id FROM runs r JOIN "
                        "trials t ON t.run_id = r.id WHERE r.uuid = ?");
    q.bind(1, r.run.run.uuid);
    if (!q.executeStep()) return true;
    sweepId = q.getColumn(0).getInt64();
    const int oldRank = stateRank(
        sweep::trialStateFromName(q.getColumn(1).getString()).value_or(TrialState::Failed));
    const int newRank = stateRank(r.row.state);
    const bool better =
        newRank > oldRank || (newRank == oldRank && r.row.epochsDone > q.getColumn(2).getInt());
    if (better) {
        SQLite::Statement d(db, "DELETE FROM epochs WHERE run_id = ?");
        d.bind(1, q.getColumn(3).getInt64());
        d.exec();
    }
    return better;
}

// The results of bundle `b` that read and check whole; those waiting or refused counted in
// `report`.
std::vector<TaskResult> readResults(const Bundle& b, const sweep::SweepSpec& spec,
                                    BundleImportReport& report) {
    std::vector<TaskResult> results;
    for (const BundleTrial& t : b.trials) {
        const std::string folder = (fs::path(b.dir) / "results" / std::to_string(t.index)).string();
        const std::string file = (fs::path(folder) / "result.json").string();
        if (!resultEntryExists(folder) || (!fs::is_symlink(folder) && !resultEntryExists(file))) {
            ++report.waiting;
            continue;
        }
        try {
            checkResultFolder(folder);  // never a link out of the bundle
            results.push_back(readTask(b, t, spec, file));
        } catch (const nlohmann::json::exception& e) {  // a value of the wrong type
            report.refused.push_back(file + ": " + jsonErrorText(e));
        } catch (const std::exception& e) {
            report.refused.push_back(e.what());
        }
    }
    return results;
}

}  // namespace

BundleImportReport importBundle(RunStore& store, const std::string& dir) {
    const Bundle b = readBundle(dir);
    BundleImportReport report;
    sweep::SweepSpec spec;
    try {
        spec = sweep::SweepSpec::fromJson(b.spec, (fs::path(b.dir) / "spec.json").string(), b.dir);
    } catch (const std::exception& e) {
        throw BundleError(e.what());
    }
    const auto dataProblems = bundleDataProblems(b);
    if (!dataProblems.empty()) {  // every trial trained on that data: none is imported
        report.refused = dataProblems;
        return report;
    }
    const std::vector<TaskResult> results = readResults(b, spec, report);
    if (results.empty()) return report;
    std::vector<PendingRun> runs;
    for (const TaskResult& r : results) runs.push_back(r.run);
    int64_t sweepId = 0;
    int imported = 0, unchanged = 0;
    bool created = false;
    auto choose = [&](SQLite::Database& db) {
        std::vector<bool> chosen;
        imported = unchanged = 0;
        sweepId = 0;
        for (const TaskResult& r : results) {
            const bool better = gotFurther(db, r, sweepId);
            chosen.push_back(better);
            (better ? imported : unchanged) += 1;
        }
        // A bundle some of whose trials are stored under another run (none of these): look
        // the sweep up by any trial id of the bundle.
        if (sweepId == 0) sweepId = sweepOfTrials(db, b);
        return chosen;
    };
    auto also = [&](SQLite::Database& db, const std::vector<int64_t>& ids) {
        created = sweepId == 0;
        if (created)
            sweepId = insertSweep(db, b, false);
        else
            addMissingTrials(db, sweepId, b);
        for (size_t i = 0; i < results.size(); ++i) {
            if (ids[i] == 0) continue;
            writeTrial(db, sweepId, results[i].row, ids[i]);
            if (const char* stall = std::getenv("NNWB_TEST_IMPORT_STALL_S"))
                ::sleep(unsigned(std::atoi(stall)));  // a test kills it here
        }
        if (std::count_if(ids.begin(), ids.end(), [](int64_t id) { return id != 0; }) == 0)
            return;  // nothing new: the sweep's row stays as it is too
        SQLite::Statement q(db,
                            "SELECT COUNT(*) FROM trials WHERE sweep_id = ? AND state IN "
                            "('queued', 'running')");
        q.bind(1, sweepId);
        q.executeStep();
        SQLite::Statement u(db, "UPDATE sweeps SET status = ?, ended_at = ? WHERE id = ?");
        const bool done = q.getColumn(0).getInt() == 0;
        u.bind(1, done ? sweepstatus::kCompleted : sweepstatus::kStopped);
        u.bind(2, utcNowText());
        u.bind(3, sweepId);
        u.exec();
    };
    store.importRuns(runs, choose, also);
    report.sweepId = sweepId;
    report.created = created;
    report.imported = imported;
    report.unchanged = unchanged;
    return report;
}

int64_t bundleSweepId(RunStore& store, const std::string& dir) {
    const Bundle b = readBundle(dir);
    int64_t id = 0;
    store.read("cannot look up the sweep of bundle " + b.id,
               [&](SQLite::Database& db) { id = sweepOfTrials(db, b); });
    return id;
}

}  // namespace nnwb
