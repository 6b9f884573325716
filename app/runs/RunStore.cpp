#include "app/runs/RunStore.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include "app/runs/HostClock.h"
#include "app/runs/PendingRun.h"
#include "app/runs/RunReturns.h"
#include "app/runs/RunsSchema.h"
#include "model/FigureText.h"

namespace fs = std::filesystem;

namespace nnwb {

namespace {

// A running run on another host whose heartbeat is older than this is taken for dead.
constexpr double kStaleHeartbeatSeconds = 15 * 60;

int busyTimeoutMs() {
    const char* v = std::getenv("NNWB_RUNS_BUSY_MS");
    if (v && *v) {
        const int ms = std::atoi(v);
        if (ms >= 0) return ms;
    }
    return 10000;
}

std::string utcText(double seconds) {
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// Field 22 of /proc/PID/stat (start time in clock ticks after boot), 0 when unknown: with the
// pid it names one process, even after the pid is reused.
int64_t processStart(int64_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return 0;
    const auto close = line.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(line.substr(close + 1));
    std::string field;
    for (int i = 3; i <= 22 && rest >> field; ++i)
        if (i == 22) return std::atoll(field.c_str());
    return 0;
}

bool processAlive(int64_t pid, int64_t start) {
    if (pid <= 0) return false;
    if (::kill(pid_t(pid), 0) != 0 && errno != EPERM) return false;
    const int64_t now = processStart(pid);
    return start == 0 || now == 0 || now == start;
}

void bindText(SQLite::Statement& q, const char* name, const std::string& s) {
    if (s.empty())
        q.bind(name);  // NULL
    else
        q.bind(name, s);
}

std::string text(SQLite::Statement& q, const char* name) {
    const SQLite::Column c = q.getColumn(name);
    return c.isNull() ? std::string() : c.getString();
}
int64_t integer(SQLite::Statement& q, const char* name) {
    const SQLite::Column c = q.getColumn(name);
    return c.isNull() ? 0 : c.getInt64();
}
std::optional<double> optReal(SQLite::Statement& q, const char* name) {
    const SQLite::Column c = q.getColumn(name);
    if (c.isNull()) return std::nullopt;
    return c.getDouble();
}

std::string confusionText(const EpochMetrics& m) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& row : m.confusion) j.push_back({row[0], row[1], row[2]});
    return j.dump();
}
void confusionFrom(const std::string& s, EpochMetrics& m) {
    if (s.empty()) return;
    const nlohmann::json j = nlohmann::json::parse(s, nullptr, false);
    if (!j.is_array() || j.size() != 3) return;
    for (size_t r = 0; r < 3; ++r)
        for (size_t c = 0; c < 3 && j[r].is_array() && j[r].size() == 3; ++c)
            m.confusion[r][c] = j[r][c].get<int64_t>();
}

// Accuracy counts from kMinSignalsForAccuracy validation signals on (model/FigureText.h); the
// signals shown with it are the best epoch's, else (none has enough) the most of any epoch.
#define NNWB_MIN_SIGNALS_SQL "20"
static_assert(kMinSignalsForAccuracy == 20, "NNWB_MIN_SIGNALS_SQL is kMinSignalsForAccuracy");
const char* kRunColumns =
    "r.id, r.name, r.tags, r.note, r.source, r.comparison, r.experiment_file, r.data_file, "
    "r.data_size, r.data_sha256, r.data_bars, r.data_first_bar, r.data_last_bar, "
    "r.data_description, r.device_id, r.device_name, r.seed, r.app_version, r.parameters, "
    "r.train_samples, r.validation_samples, r.epochs_planned, r.started_at, r.ended_at, "
    "r.status, r.error, r.host, r.pid, r.heartbeat_at, r.best_epoch, r.monitor, r.uuid, "
    "r.trading, r.ensemble_run, "
    "(SELECT COUNT(*) FROM runs m WHERE m.ensemble_run = r.id) AS ensemble_members, "
    "(SELECT COUNT(*) FROM epochs e WHERE e.run_id = r.id) AS epochs_done, "
    "(SELECT MIN(val_loss) FROM epochs e WHERE e.run_id = r.id) AS best_val_loss, "
    "(SELECT MAX(val_accuracy) FROM epochs e WHERE e.run_id = r.id AND e.task_metrics "
    "AND e.val_signals >= " NNWB_MIN_SIGNALS_SQL
    ") "
    "AS best_val_accuracy, "
    "(SELECT val_signals FROM epochs e WHERE e.run_id = r.id AND e.task_metrics "
    "AND e.val_signals IS NOT NULL ORDER BY e.val_signals >= " NNWB_MIN_SIGNALS_SQL
    " DESC, "
    "CASE WHEN e.val_signals >= " NNWB_MIN_SIGNALS_SQL
    " THEN e.val_accuracy "
    "ELSE e.val_signals END DESC LIMIT 1) AS best_val_accuracy_signals, "
    "(SELECT MIN(val_missed) FROM epochs e WHERE e.run_id = r.id AND e.task_metrics) "
    "AS best_val_missed";

StoredRun readRun(SQLite::Statement& q) {
    StoredRun r;
    r.id = integer(q, "id");
    r.name = text(q, "name");
    r.tags = text(q, "tags");
    r.note = text(q, "note");
    r.source = text(q, "source");
    r.comparison = text(q, "comparison");
    r.experimentFile = text(q, "experiment_file");
    r.dataFile = text(q, "data_file");
    r.dataSize = integer(q, "data_size");
    r.dataSha256 = text(q, "data_sha256");
    r.dataBars = integer(q, "data_bars");
    r.dataFirstBar = text(q, "data_first_bar");
    r.dataLastBar = text(q, "data_last_bar");
    r.dataDescription = text(q, "data_description");
    r.deviceId = text(q, "device_id");
    r.deviceName = text(q, "device_name");
    r.seed = uint64_t(integer(q, "seed"));
    r.appVersion = text(q, "app_version");
    r.parameters = integer(q, "parameters");
    r.trainSamples = integer(q, "train_samples");
    r.validationSamples = integer(q, "validation_samples");
    r.epochsPlanned = int(integer(q, "epochs_planned"));
    r.startedAt = text(q, "started_at");
    r.endedAt = text(q, "ended_at");
    r.status = text(q, "status");
    r.error = text(q, "error");
    r.host = text(q, "host");
    r.pid = integer(q, "pid");
    r.heartbeatAt = optReal(q, "heartbeat_at").value_or(0.0);
    if (!q.getColumn("best_epoch").isNull()) r.bestEpoch = int(integer(q, "best_epoch"));
    r.monitor = text(q, "monitor");
    r.uuid = text(q, "uuid");
    const std::string trading = text(q, "trading");
    if (!trading.empty()) {
        r.trading = nlohmann::json::parse(trading, nullptr, false);
        if (r.trading.is_discarded()) r.trading = nullptr;
    }
    if (!q.getColumn("ensemble_run").isNull()) r.ensembleRun = integer(q, "ensemble_run");
    r.ensembleMembers = int(integer(q, "ensemble_members"));
    r.epochsDone = int(integer(q, "epochs_done"));
    r.bestValLoss = optReal(q, "best_val_loss");
    r.bestValAccuracy = optReal(q, "best_val_accuracy");
    if (!q.getColumn("best_val_accuracy_signals").isNull())
        r.bestValAccuracySignals = size_t(integer(q, "best_val_accuracy_signals"));
    r.bestValMissed = optReal(q, "best_val_missed");
    return r;
}

void readMetrics(SQLite::Statement& q, const std::string& p, EpochMetrics& m) {
    m.samples = size_t(integer(q, (p + "_samples").c_str()));
    m.loss = optReal(q, (p + "_loss").c_str()).value_or(0.0);
    m.accuracyPct = optReal(q, (p + "_accuracy").c_str()).value_or(0.0);
    m.missedPct = optReal(q, (p + "_missed").c_str()).value_or(0.0);
    m.signalCount = size_t(integer(q, (p + "_signals").c_str()));
    m.patterns = size_t(integer(q, (p + "_patterns").c_str()));
    confusionFrom(text(q, (p + "_confusion").c_str()), m);
}

void bindMetrics(SQLite::Statement& q, const std::string& p, const EpochMetrics& m, bool have,
                 bool task) {
    auto name = [&](const char* s) { return ":" + p + "_" + s; };
    if (!have) {
        for (const char* s :
             {"samples", "loss", "accuracy", "missed", "signals", "patterns", "confusion"})
            q.bind(name(s));
        return;
    }
    q.bind(name("samples"), int64_t(m.samples));
    q.bind(name("loss"), m.loss);
    if (task) {
        q.bind(name("accuracy"), m.accuracyPct);
        q.bind(name("missed"), m.missedPct);
        q.bind(name("signals"), int64_t(m.signalCount));
        q.bind(name("patterns"), int64_t(m.patterns));
        q.bind(name("confusion"), confusionText(m));
    } else {
        for (const char* s : {"accuracy", "missed", "signals", "patterns", "confusion"})
            q.bind(name(s));
    }
}

}  // namespace

std::string utcNowText() {
    return utcText(unixSeconds());
}

std::string runsHostName() {
    return thisHostName();
}
int64_t runsProcessStart(int64_t pid) {
    return processStart(pid);
}
bool runsProcessAlive(int64_t pid, int64_t start) {
    return processAlive(pid, start);
}

// One write's transaction: BEGIN IMMEDIATE ... COMMIT on its own; inside a Batch a savepoint,
// released into the batch's transaction, or rolled back alone when the write fails.
class RunStore::WriteTx {
public:
    explicit WriteTx(RunStore& s) : db_(*s.db_), nested_(s.batchOpen_) {
        db_.exec(nested_ ? "SAVEPOINT nnwb_write" : "BEGIN IMMEDIATE");
    }
    ~WriteTx() {
        if (done_) return;
        try {
            if (nested_) {
                db_.exec("ROLLBACK TO nnwb_write");
                db_.exec("RELEASE nnwb_write");
            } else {
                db_.exec("ROLLBACK");
            }
        } catch (const std::exception&) {  // nothing more to undo from here
        }
    }
    WriteTx(const WriteTx&) = delete;
    WriteTx& operator=(const WriteTx&) = delete;
    void commit() {
        db_.exec(nested_ ? "RELEASE nnwb_write" : "COMMIT");
        done_ = true;
    }

private:
    SQLite::Database& db_;
    bool nested_;
    bool done_ = false;
};

RunStore::Batch::Batch(RunStore& store) : s_(store) {
    if (s_.batchOpen_) throw std::logic_error("RunStore::Batch: a batch is already open");
    try {
        guard_ = s_.writing();
        s_.db_->exec("BEGIN IMMEDIATE");
    } catch (const RunStoreError&) {
        throw;
    } catch (const std::exception& e) {
        s_.fail("cannot begin writing", e);
    }
    s_.batchOpen_ = open_ = true;
}

void RunStore::Batch::commit() {
    if (!open_) return;
    open_ = s_.batchOpen_ = false;
    try {
        s_.db_->exec("COMMIT");
    } catch (const std::exception& e) {
        try {
            s_.db_->exec("ROLLBACK");
        } catch (const std::exception&) {  // already rolled back by SQLite
        }
        guard_.release();
        s_.fail("cannot commit", e);
    }
    guard_.release();
}

RunStore::Batch::~Batch() {
    try {
        commit();  // after an exception: what the batch's writes stored before it
    } catch (const std::exception&) {  // reported by the write that failed, if any
    }
}

void RunStore::write(const std::string& what, const std::function<void(SQLite::Database&)>& f) {
    try {
        const RunsLock::Guard guard = writing();
        WriteTx tx(*this);
        f(*db_);
        tx.commit();
    } catch (const RunStoreError&) {
        throw;
    } catch (const std::exception& e) {
        fail(what, e);
    }
}

void RunStore::read(const std::string& what, const std::function<void(SQLite::Database&)>& f) {
    try {
        const RunsLock::Guard guard = reading();
        f(*db_);
    } catch (const RunStoreError&) {
        throw;
    } catch (const std::exception& e) {
        fail(what, e);
    }
}

RunStore::RunStore(const std::string& path, bool create) : path_(path) {
    if (path_.empty()) throw RunStoreError("runs database: no location (set NNWB_RUNS_DB or HOME)");
    try {
        const fs::path folder = fs::path(path_).parent_path();
        if (create && !folder.empty()) {
            std::error_code ec;
            fs::create_directories(folder, ec);
            if (ec)
                throw std::runtime_error("cannot create the folder " + folder.string() + ": " +
                                         ec.message());
        }
        if (!create && !fs::exists(path_)) throw std::runtime_error("no such file");
        lock_ = std::make_unique<RunsLock>(path_ + ".lock", busyTimeoutMs());
        const int flags = SQLite::OPEN_READWRITE | (create ? SQLite::OPEN_CREATE : 0);
        db_ = std::make_unique<SQLite::Database>(path_, flags, busyTimeoutMs());
        // Commits that changed rows (a batch of a round without writes changes none and
        // costs no sync: it is not counted).
        sqlite3_commit_hook(
            db_->getHandle(),
            [](void* self) {
                RunStore& s = *static_cast<RunStore*>(self);
                const int64_t changes = sqlite3_total_changes64(s.db_->getHandle());
                if (changes != s.changesAtCommit_) ++s.commits_;
                s.changesAtCommit_ = changes;
                return 0;  // go on with the commit
            },
            this);
        if (sqlite3_db_readonly(db_->getHandle(), "main") == 1)
            throw std::runtime_error("the file is read-only");
        // Everything that reads the file happens under the lock, the first read included.
        const RunsLock::Guard guard = writing();
        db_->exec("PRAGMA foreign_keys = ON");
        useRollbackJournal();
        if (runsSchemaVersion(*db_) != kRunsSchemaVersion) migrateRunsSchema(*db_);
        importPending();
        markInterrupted();
    } catch (const RunStoreError&) {
        db_.reset();
        throw;
    } catch (const std::exception& e) {
        db_.reset();
        fail("", e);
    }
}

void RunStore::useRollbackJournal() {
    std::string mode = db_->execAndGet("PRAGMA journal_mode").getString();
    if (mode != "delete") {
        // A store from an nnwb before issue 24 is in WAL mode: leaving it needs the only
        // connection to the file; ours are all shut out by the exclusive lock we hold.
        try {
            mode = db_->execAndGet("PRAGMA journal_mode = DELETE").getString();
        } catch (const SQLite::Exception& e) {
            if (e.getErrorCode() != SQLITE_BUSY && e.getErrorCode() != SQLITE_LOCKED) throw;
            throw std::runtime_error(
                "it is in WAL mode and another program (an older nnwb?) has it open, so it "
                "cannot be switched to a rollback journal now (" +
                std::string(e.what()) + ")");
        }
        if (mode != "delete")
            throw std::runtime_error("cannot switch to a rollback journal (journal mode stays " +
                                     mode + ")");
    }
    db_->exec("PRAGMA synchronous = FULL");  // rollback journal: durable across power loss too
}

RunsLock::Guard RunStore::writing() {
    return lock_->lock(RunsLock::Mode::Exclusive);
}

RunsLock::Guard RunStore::reading() {
    const bool outer = !lock_->held();
    RunsLock::Guard guard = lock_->lock(RunsLock::Mode::Shared);
    // With no writer of ours at work, a journal beside the file is a hot journal left by a
    // writer that died: the next read rolls it back, which is a write.
    if (outer && fs::exists(path_ + "-journal")) {
        guard.release();
        return lock_->lock(RunsLock::Mode::Exclusive);
    }
    return guard;
}

RunStore::~RunStore() {
    db_.reset();  // before the lock file is closed: nothing of SQLite's outlives our lock
}

void RunStore::fail(const std::string& what, const std::exception& e) const {
    std::string reason = e.what();
    if (const auto* se = dynamic_cast<const SQLite::Exception*>(&e)) {
        const int code = se->getErrorCode();
        if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
            reason = "the database is locked by another program (waited " +
                     std::to_string(busyTimeoutMs() / 1000.0).substr(0, 4) + " s)";
        else if (code == SQLITE_READONLY)
            reason = "the database is read-only (" + reason + ")";
        else if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
            reason = "the database is corrupt (" + reason + ")";
        else if (code == SQLITE_CANTOPEN)
            reason = "cannot open it (" + reason + ")";
    }
    throw RunStoreError("runs database " + path_ + ": " + (what.empty() ? "" : what + ": ") +
                        reason);
}

std::string RunStore::runFolder(int64_t id) const {
    return runFolderOf(path_, id);
}

std::string RunStore::runFolderOf(const std::string& dbPath, int64_t id) {
    const fs::path p(dbPath);
    const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    return (dir / (p.stem().string() + "-models") / std::to_string(id)).string();
}

std::string RunStore::relativeToDb(const std::string& absolute) const {
    const fs::path dir = fs::path(path_).parent_path();
    std::error_code ec;
    const fs::path rel = fs::relative(absolute, dir.empty() ? fs::path(".") : dir, ec);
    return ec || rel.empty() ? absolute : rel.string();
}

int64_t RunStore::insertRun(const StoredRun& r, const Also& also) {
    try {
        const RunsLock::Guard guard = writing();
        WriteTx tx(*this);
        const int64_t id =
            insertRow(r, thisHostName(), ::getpid(), processStart(::getpid()), runstatus::kRunning);
        if (also) also(*db_, id);
        tx.commit();
        return id;
    } catch (const std::exception& e) {
        fail("cannot add the run", e);
    }
}

int64_t RunStore::insertRow(const StoredRun& r, const std::string& host, int64_t pid,
                            int64_t pidStart, const std::string& status) {
    SQLite::Statement q(
        *db_,
        "INSERT INTO runs (name, tags, note, source, comparison, experiment, "
        "experiment_file, data_file, data_size, data_sha256, data_bars, data_first_bar, "
        "data_last_bar, data_description, device_id, device_name, seed, app_version, "
        "parameters, train_samples, validation_samples, epochs_planned, started_at, status, "
        "host, pid, pid_start, heartbeat_at, monitor, uuid) VALUES (:name, :tags, :note, :source, "
        ":comparison, :experiment, :experiment_file, :data_file, :data_size, :data_sha256, "
        ":data_bars, :data_first_bar, :data_last_bar, :data_description, :device_id, "
        ":device_name, :seed, :app_version, :parameters, :train_samples, "
        ":validation_samples, :epochs_planned, :started_at, :status, :host, :pid, "
        ":pid_start, :heartbeat_at, :monitor, :uuid)");
    q.bind(":name", r.name);
    q.bind(":tags", r.tags);
    q.bind(":note", r.note);
    q.bind(":source", r.source);
    bindText(q, ":comparison", r.comparison);
    q.bind(":experiment", r.experiment.dump());
    bindText(q, ":experiment_file", r.experimentFile);
    bindText(q, ":data_file", r.dataFile);
    q.bind(":data_size", r.dataSize);
    bindText(q, ":data_sha256", r.dataSha256);
    q.bind(":data_bars", r.dataBars);
    bindText(q, ":data_first_bar", r.dataFirstBar);
    bindText(q, ":data_last_bar", r.dataLastBar);
    bindText(q, ":data_description", r.dataDescription);
    q.bind(":device_id", r.deviceId);
    q.bind(":device_name", r.deviceName);
    q.bind(":seed", int64_t(r.seed));
    q.bind(":app_version", r.appVersion);
    q.bind(":parameters", r.parameters);
    q.bind(":train_samples", r.trainSamples);
    q.bind(":validation_samples", r.validationSamples);
    q.bind(":epochs_planned", r.epochsPlanned);
    q.bind(":started_at", r.startedAt.empty() ? utcNowText() : r.startedAt);
    q.bind(":status", status);
    q.bind(":host", host);
    q.bind(":pid", pid);
    q.bind(":pid_start", pidStart);
    q.bind(":heartbeat_at", unixSeconds());
    bindText(q, ":monitor", r.monitor);
    bindText(q, ":uuid", r.uuid);
    q.exec();
    return db_->getLastInsertRowid();
}

void RunStore::addEpoch(int64_t id, const StoredEpoch& e, std::optional<int> bestEpoch,
                        const Also& also) {
    try {
        const RunsLock::Guard guard = writing();
        WriteTx tx(*this);
        writeEpoch(id, e);
        SQLite::Statement u(*db_, "UPDATE runs SET heartbeat_at = ?, best_epoch = ? WHERE id = ?");
        u.bind(1, unixSeconds());
        if (bestEpoch)
            u.bind(2, *bestEpoch);
        else
            u.bind(2);
        u.bind(3, id);
        u.exec();
        if (also) also(*db_, id);
        tx.commit();
    } catch (const std::exception& ex) {
        fail("cannot add epoch " + std::to_string(e.report.epoch) + " of run " + std::to_string(id),
             ex);
    }
}

void RunStore::writeEpoch(int64_t id, const StoredEpoch& e) {
    SQLite::Statement q(
        *db_,
        "INSERT OR REPLACE INTO epochs (run_id, epoch, seconds, samples_per_second, "
        "task_metrics, learning_rate, train_samples, train_loss, train_accuracy, "
        "train_missed, train_signals, train_patterns, train_confusion, val_samples, "
        "val_loss, val_accuracy, val_missed, val_signals, val_patterns, val_confusion) "
        "VALUES (:run, :epoch, :seconds, :sps, :task, :lr, :train_samples, :train_loss, "
        ":train_accuracy, :train_missed, :train_signals, :train_patterns, :train_confusion, "
        ":val_samples, :val_loss, :val_accuracy, :val_missed, :val_signals, :val_patterns, "
        ":val_confusion)");
    const EpochReport& r = e.report;
    q.bind(":run", id);
    q.bind(":epoch", r.epoch);
    q.bind(":seconds", r.seconds);
    q.bind(":sps", r.samplesPerSecond);
    q.bind(":task", r.taskMetrics ? 1 : 0);
    if (e.learningRate)
        q.bind(":lr", *e.learningRate);
    else
        q.bind(":lr");
    bindMetrics(q, "train", r.train, true, r.taskMetrics);
    bindMetrics(q, "val", r.validation, r.validation.samples > 0, r.taskMetrics);
    q.exec();
}

void RunStore::heartbeat(int64_t id) {
    try {
        const RunsLock::Guard guard = writing();
        SQLite::Statement u(*db_, "UPDATE runs SET heartbeat_at = ? WHERE id = ?");
        u.bind(1, unixSeconds());
        u.bind(2, id);
        u.exec();
    } catch (const std::exception& e) {
        fail("cannot renew the heartbeat of run " + std::to_string(id), e);
    }
}

void RunStore::finishRun(int64_t id, const std::string& status, const std::string& error,
                         std::optional<int> bestEpoch, const Also& also) {
    try {
        const RunsLock::Guard guard = writing();
        WriteTx tx(*this);
        SQLite::Statement u(*db_,
                            "UPDATE runs SET status = ?, error = ?, ended_at = ?, "
                            "heartbeat_at = ?, best_epoch = COALESCE(?, best_epoch) WHERE id = ?");
        u.bind(1, status);
        if (error.empty())
            u.bind(2);
        else
            u.bind(2, error);
        u.bind(3, utcNowText());
        u.bind(4, unixSeconds());
        if (bestEpoch)
            u.bind(5, *bestEpoch);
        else
            u.bind(5);
        u.bind(6, id);
        u.exec();
        if (also) also(*db_, id);
        tx.commit();
    } catch (const std::exception& e) {
        fail("cannot end run " + std::to_string(id), e);
    }
}

void RunStore::setTrading(int64_t id, const nlohmann::json& tradingIn) {
    try {
        // The per-bar returns go to their own table (RunReturns.h), the figures to the row.
        nlohmann::json trading = tradingIn;
        const std::optional<ReturnSeries> returns = takeReturnSeries(trading);
        const RunsLock::Guard guard = writing();
        WriteTx tx(*this);
        SQLite::Statement u(*db_, "UPDATE runs SET trading = ? WHERE id = ?");
        if (trading.is_null())
            u.bind(1);
        else
            u.bind(1, trading.dump());
        u.bind(2, id);
        u.exec();
        if (returns) writeReturnSeries(*db_, id, *returns);
        tx.commit();
    } catch (const std::exception& e) {
        fail("cannot store the trading figures of run " + std::to_string(id), e);
    }
}

void RunStore::setBundle(int64_t id, const StoredBundle& b) {
    try {
        const RunsLock::Guard guard = writing();
        writeBundle(id, b);
    } catch (const std::exception& e) {
        fail("cannot record the " + b.kind + " model of run " + std::to_string(id), e);
    }
}

void RunStore::writeBundle(int64_t id, const StoredBundle& b) {
    SQLite::Statement q(*db_,
                        "INSERT OR REPLACE INTO bundles (run_id, kind, path, sha256, size, "
                        "epoch) VALUES (?, ?, ?, ?, ?, ?)");
    q.bind(1, id);
    q.bind(2, b.kind);
    q.bind(3, relativeToDb(b.path));
    q.bind(4, b.sha256);
    q.bind(5, int64_t(b.size));
    q.bind(6, b.epoch);
    q.exec();
}

std::vector<StoredRun> RunStore::list() {
    std::vector<StoredRun> out;
    try {
        const RunsLock::Guard guard = reading();
        SQLite::Statement q(*db_,
                            std::string("SELECT ") + kRunColumns +
                                " FROM runs r WHERE r.ensemble_run IS NULL ORDER BY r.id DESC");
        while (q.executeStep()) out.push_back(readRun(q));
    } catch (const std::exception& e) {
        fail("cannot list the runs", e);
    }
    return out;
}

std::vector<StoredRun> RunStore::members(int64_t ensemble) {
    std::vector<int64_t> ids;
    try {
        const RunsLock::Guard guard = reading();
        SQLite::Statement q(*db_, "SELECT id FROM runs WHERE ensemble_run = ? ORDER BY id");
        q.bind(1, ensemble);
        while (q.executeStep()) ids.push_back(q.getColumn(0).getInt64());
    } catch (const std::exception& e) {
        fail("cannot read the members of run " + std::to_string(ensemble), e);
    }
    std::vector<StoredRun> out;
    for (int64_t id : ids)
        if (std::optional<StoredRun> r = get(id)) out.push_back(std::move(*r));
    return out;
}

void RunStore::setEnsembleMembers(int64_t ensemble, const std::vector<int64_t>& members) {
    try {
        const RunsLock::Guard guard = writing();
        WriteTx tx(*this);
        SQLite::Statement u(*db_, "UPDATE runs SET ensemble_run = ? WHERE id = ?");
        for (int64_t m : members) {
            u.bind(1, ensemble);
            u.bind(2, m);
            u.exec();
            u.reset();
        }
        tx.commit();
    } catch (const std::exception& e) {
        fail("cannot link the members of run " + std::to_string(ensemble), e);
    }
}

std::optional<StoredRun> RunStore::get(int64_t id) {
    try {
        const RunsLock::Guard guard = reading();
        SQLite::Statement q(*db_, std::string("SELECT ") + kRunColumns +
                                      ", r.experiment FROM runs r WHERE r.id = ?");
        q.bind(1, id);
        if (!q.executeStep()) return std::nullopt;
        StoredRun r = readRun(q);
        r.experiment = nlohmann::json::parse(text(q, "experiment"), nullptr, false);
        if (r.experiment.is_discarded()) r.experiment = nlohmann::json::object();

        SQLite::Statement e(*db_, "SELECT * FROM epochs WHERE run_id = ? ORDER BY epoch");
        e.bind(1, id);
        while (e.executeStep()) {
            StoredEpoch se;
            se.report.epoch = int(integer(e, "epoch"));
            se.report.seconds = optReal(e, "seconds").value_or(0.0);
            se.report.samplesPerSecond = optReal(e, "samples_per_second").value_or(0.0);
            se.report.taskMetrics = integer(e, "task_metrics") != 0;
            se.learningRate = optReal(e, "learning_rate");
            // The report as the run reported it: its rate and best epoch (chart markers)
            se.report.learningRate = se.learningRate.value_or(0.0);
            se.report.bestEpoch = r.bestEpoch.value_or(0);
            se.report.isBest = r.bestEpoch && *r.bestEpoch == se.report.epoch;
            readMetrics(e, "train", se.report.train);
            readMetrics(e, "val", se.report.validation);
            r.epochs.push_back(std::move(se));
        }
        const fs::path dir = fs::path(path_).parent_path();
        SQLite::Statement b(*db_, "SELECT * FROM bundles WHERE run_id = ? ORDER BY kind");
        b.bind(1, id);
        while (b.executeStep()) {
            StoredBundle sb;
            sb.kind = text(b, "kind");
            const fs::path p = text(b, "path");
            sb.path = p.is_absolute() || dir.empty() ? p.string() : (dir / p).string();
            sb.sha256 = text(b, "sha256");
            sb.size = uint64_t(integer(b, "size"));
            sb.epoch = int(integer(b, "epoch"));
            r.bundles.push_back(std::move(sb));
        }
        return r;
    } catch (const std::exception& e) {
        fail("cannot read run " + std::to_string(id), e);
    }
}

std::optional<int64_t> RunStore::lastRunOfExperiment(const std::string& experimentFile) {
    try {
        const RunsLock::Guard guard = reading();
        SQLite::Statement q(*db_,
                            "SELECT id FROM runs WHERE experiment_file = ? AND EXISTS (SELECT 1 "
                            "FROM epochs e WHERE e.run_id = runs.id) ORDER BY id DESC LIMIT 1");
        q.bind(1, experimentFile);
        if (!q.executeStep()) return std::nullopt;
        return q.getColumn(0).getInt64();
    } catch (const std::exception& e) {
        fail("cannot look up the runs of " + experimentFile, e);
    }
}

bool RunStore::setMeta(int64_t id, const std::string& name, const std::string& tags,
                       const std::string& note) {
    try {
        const RunsLock::Guard guard = writing();
        SQLite::Statement u(*db_, "UPDATE runs SET name = ?, tags = ?, note = ? WHERE id = ?");
        u.bind(1, name);
        u.bind(2, tags);
        u.bind(3, note);
        u.bind(4, id);
        return u.exec() > 0;
    } catch (const std::exception& e) {
        fail("cannot edit run " + std::to_string(id), e);
    }
}

bool RunStore::remove(int64_t id) {
    int changed = 0;
    std::vector<int64_t> members;
    try {
        const RunsLock::Guard guard = writing();
        WriteTx tx(*this);
        // The run of a sweep trial its coordinator is still recording (the coordinator owns it
        // and would fail on its next epoch): refused, saying how to end it.
        SQLite::Statement t(*db_,
                            "SELECT t.sweep_id, t.number FROM trials t JOIN runs r ON r.id = "
                            "t.run_id WHERE t.run_id = ? AND t.state = 'running' AND r.status = "
                            "'running'");
        t.bind(1, id);
        if (t.executeStep())
            throw RunInUseError(
                "run " + std::to_string(id) + " is trial " +
                std::to_string(t.getColumn(1).getInt()) + " of sweep " +
                std::to_string(t.getColumn(0).getInt64()) +
                ", which is still running; remove it after the trial ends (nnwb-cli "
                "sweep stop " +
                std::to_string(t.getColumn(0).getInt64()) + " ends it)");
        t.reset();
        SQLite::Statement m(*db_, "SELECT id FROM runs WHERE ensemble_run = ?");
        m.bind(1, id);
        while (m.executeStep()) members.push_back(m.getColumn(0).getInt64());
        m.reset();
        // An ensemble's member runs go with it; epochs, bundles cascade.
        SQLite::Statement d(*db_, "DELETE FROM runs WHERE id = ? OR ensemble_run = ?");
        d.bind(1, id);
        d.bind(2, id);
        changed = d.exec();
        tx.commit();
    } catch (const RunInUseError&) {
        throw;
    } catch (const std::exception& e) {
        fail("cannot delete run " + std::to_string(id), e);
    }
    std::error_code ec;
    for (int64_t m : members) fs::remove_all(runFolder(m), ec);
    fs::remove_all(runFolder(id), ec);
    if (ec)
        throw RunStoreError("runs database " + path_ + ": run " + std::to_string(id) +
                            " was deleted but its folder " + runFolder(id) +
                            " could not be removed: " + ec.message());
    return changed > 0;
}

int RunStore::markInterrupted() {
    struct Candidate {
        int64_t id;
        double heartbeat;
        std::string why;
    };
    std::vector<Candidate> dead;
    try {
        const std::string me = thisHostName();
        const double now = unixSeconds();
        {  // read, then write: a shared lock is never turned into an exclusive one
            const RunsLock::Guard readGuard = reading();
            SQLite::Statement q(*db_,
                                "SELECT id, host, pid, pid_start, heartbeat_at FROM runs WHERE "
                                "status = 'running'");
            while (q.executeStep()) {
                const int64_t id = integer(q, "id"), pid = integer(q, "pid");
                const std::string host = text(q, "host");
                const double beat = optReal(q, "heartbeat_at").value_or(0.0);
                if (host == me) {
                    if (!processAlive(pid, integer(q, "pid_start")))
                        dead.push_back({id, beat,
                                        "the process (pid " + std::to_string(pid) +
                                            ") ended without finishing the run; last heartbeat " +
                                            utcText(beat)});
                } else if (now - beat > kStaleHeartbeatSeconds) {
                    dead.push_back({id, beat,
                                    "no heartbeat from " + host + " (pid " + std::to_string(pid) +
                                        ") since " + utcText(beat)});
                }
            }
        }
        if (dead.empty()) return 0;
        const RunsLock::Guard guard = writing();
        WriteTx tx(*this);
        for (const Candidate& c : dead) {
            SQLite::Statement u(*db_,
                                "UPDATE runs SET status = 'interrupted', error = ?, ended_at = ? "
                                "WHERE id = ? AND status = 'running'");
            u.bind(1, c.why);
            u.bind(2, utcText(c.heartbeat));
            u.bind(3, c.id);
            u.exec();
        }
        tx.commit();
    } catch (const std::exception& e) {
        fail("cannot check the running runs", e);
    }
    return int(dead.size());
}

namespace {
// A side file taken for import: locked (its writer has closed it) until it is deleted.
struct TakenFile {
    std::string path;
    int fd = -1;
    PendingRun run;
    bool complete = true;
    TakenFile() = default;
    TakenFile(TakenFile&& o) noexcept
        : path(std::move(o.path)), fd(o.fd), run(std::move(o.run)), complete(o.complete) {
        o.fd = -1;
    }
    TakenFile(const TakenFile&) = delete;
    ~TakenFile() {
        if (fd >= 0) ::close(fd);
    }
};

std::string readFd(int fd) {
    std::string text;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(std::strerror(errno));
        if (n == 0) return text;
        text.append(buf, size_t(n));
    }
}
}  // namespace

int RunStore::importPending() {
    const fs::path folder = pendingRunsFolder(path_);
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return 0;
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        if (entry.path().extension() == ".jsonl") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    std::vector<TakenFile> taken;
    for (const std::string& file : files) {
        TakenFile t;
        t.path = file;
        t.fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
        if (t.fd < 0) continue;
        if (::flock(t.fd, LOCK_EX | LOCK_NB) != 0) continue;  // its run is still going
        if (!fs::exists(file)) continue;  // imported by another process meanwhile
        std::string problem;
        try {
            std::optional<PendingRun> run = readPendingRun(readFd(t.fd), file, problem);
            if (!run) {
                problems_.push_back(problem + " (left as it is)");
                continue;
            }
            t.run = std::move(*run);
        } catch (const std::exception& e) {
            problems_.push_back("cannot read " + file + ": " + e.what());
            continue;
        }
        taken.push_back(std::move(t));
    }
    if (taken.empty()) return 0;
    try {
        const RunsLock::Guard guard = writing();
        removeOrphanFolders();  // left by an import killed inside its transaction
        try {
            WriteTx tx(*this);
            for (TakenFile& t : taken) t.complete = importRun(t.run, t.path);
            tx.commit();
        } catch (...) {
            removeOrphanFolders();  // what this import copied before it rolled back
            throw;
        }
    } catch (const std::exception& e) {
        fail("cannot add the runs kept in " + folder.string(), e);
    }
    // Only now that the import is committed: a crash before this imports them again, onto the
    // same runs (matched by uuid), which changes nothing.
    for (TakenFile& t : taken) {
        if (!t.complete) continue;  // a model file could not be copied: kept, tried again
        fs::remove_all(folder / fs::path(t.path).stem(), ec);
        ::unlink(t.path.c_str());
    }
    return int(taken.size());
}

void RunStore::importRuns(std::vector<PendingRun>& runs, const ImportChoice& choose,
                          const ImportAlso& also) {
    try {
        const RunsLock::Guard guard = writing();
        removeOrphanFolders();  // left by an import killed inside its transaction
        try {
            WriteTx tx(*this);
            const std::vector<bool> chosen = choose(*db_);
            std::vector<int64_t> ids(runs.size(), 0);
            const size_t problemsBefore = problems_.size();
            for (size_t i = 0; i < runs.size(); ++i) {
                if (i >= chosen.size() || !chosen[i]) continue;
                if (!importRun(runs[i], runs[i].run.experimentFile, &ids[i]))
                    throw std::runtime_error(problems_.back());
            }
            problems_.resize(problemsBefore);
            also(*db_, ids);
            tx.commit();
        } catch (...) {
            removeOrphanFolders();  // what this import copied before it rolled back
            throw;
        }
    } catch (const std::exception& e) {
        fail("cannot import the runs", e);
    }
}

void RunStore::removeOrphanFolders() {
    try {
        const fs::path dir = fs::path(runFolder(0)).parent_path();
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) return;
        SQLite::Statement q(*db_, "SELECT 1 FROM runs WHERE id = ?");
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (name.empty() || name.size() > 18 ||
                name.find_first_not_of("0123456789") != std::string::npos)
                continue;  // not a run's folder
            q.bind(1, static_cast<int64_t>(std::stoll(name)));
            const bool hasRun = q.executeStep();
            q.reset();
            std::error_code removeEc;
            if (!hasRun) fs::remove_all(it->path(), removeEc);
        }
    } catch (const std::exception&) {  // best effort: the next import tries again
    }
}

bool RunStore::importRun(PendingRun& p, const std::string& file, int64_t* idOut) {
    bool complete = true;
    int64_t id = 0;
    if (!p.run.uuid.empty()) {
        SQLite::Statement q(*db_, "SELECT id FROM runs WHERE uuid = ?");
        q.bind(1, p.run.uuid);
        if (q.executeStep()) id = q.getColumn(0).getInt64();
    }
    if (id == 0) id = insertRow(p.run, p.run.host, p.run.pid, 0, runstatus::kRunning);
    if (idOut) *idOut = id;
    for (const StoredEpoch& e : p.epochs) writeEpoch(id, e);
    const fs::path folder = runFolder(id);
    for (StoredBundle b : p.bundles) {
        const fs::path target = folder / (b.kind + ".safetensors");
        if (fs::path(b.path).lexically_normal() != target.lexically_normal()) {
            // Written beside the side file (the store had no id for the run): copied in now;
            // the original goes once the import is committed. Already copied by an import that
            // committed and crashed before it deleted the original: the copy is used.
            std::error_code ec;
            const bool copied = !fs::exists(b.path, ec) && fs::exists(target, ec) &&
                                fs::file_size(target, ec) == b.size;
            if (!copied) {
                fs::create_directories(folder, ec);
                if (!ec) fs::copy_file(b.path, target, fs::copy_options::overwrite_existing, ec);
            }
            if (ec) {
                problems_.push_back(file + ": cannot copy the " + b.kind + " model " + b.path +
                                    " to " + target.string() + ": " + ec.message() +
                                    " (the file is kept to be imported again)");
                complete = false;
                continue;
            }
            b.path = target.string();
        }
        writeBundle(id, b);
    }
    SQLite::Statement u(*db_,
                        "UPDATE runs SET status = ?, error = ?, ended_at = ?, "
                        "best_epoch = COALESCE(?, best_epoch), trading = COALESCE(?, trading) "
                        "WHERE id = ?");
    if (p.ended) {
        u.bind(1, p.run.status);
        if (p.run.error.empty())
            u.bind(2);
        else
            u.bind(2, p.run.error);
    } else {
        u.bind(1, runstatus::kInterrupted);
        u.bind(2, "the process (pid " + std::to_string(p.run.pid) + " on " + p.run.host +
                      ") ended without finishing the run; its epochs were kept in " + file);
    }
    u.bind(3, p.endedAt.empty() ? utcNowText() : p.endedAt);
    if (p.run.bestEpoch)
        u.bind(4, *p.run.bestEpoch);
    else
        u.bind(4);
    const std::optional<ReturnSeries> returns = takeReturnSeries(p.run.trading);
    if (p.run.trading.is_null())
        u.bind(5);
    else
        u.bind(5, p.run.trading.dump());
    u.bind(6, id);
    u.exec();
    if (returns) writeReturnSeries(*db_, id, *returns);
    return complete;
}

std::string RunStore::integrityCheck() {
    try {
        const RunsLock::Guard guard = reading();
        SQLite::Statement q(*db_, "PRAGMA integrity_check");
        std::string out;
        while (q.executeStep()) out += (out.empty() ? "" : "\n") + q.getColumn(0).getString();
        return out;
    } catch (const std::exception& e) {
        fail("integrity check", e);
    }
}

std::string runStatusLabel(const std::string& status) {
    return status == runstatus::kStoppedEarly ? "stopped early" : status;
}

std::string bestValAccuracyCell(const StoredRun& run) {
    if (!run.bestValAccuracySignals) return "–";
    // Without an accuracy the count is below the minimum: accuracyCell says "n/a (N)".
    return accuracyCell(run.bestValAccuracy.value_or(0.0), *run.bestValAccuracySignals);
}

}  // namespace nnwb
