#include "app/sweep/SweepStore.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>

#include <SQLiteCpp/SQLiteCpp.h>

#include "app/runs/HostClock.h"

namespace nnwb {

namespace {

// A coordinator on another host is gone when its heartbeat (every 5 s) is this old: RunStore's
// rule for runs.
constexpr double kStaleHeartbeatSeconds = 15 * 60;

std::string text(SQLite::Statement& q, const char* name) {
    const SQLite::Column c = q.getColumn(name);
    return c.isNull() ? std::string() : c.getString();
}
std::optional<double> optReal(SQLite::Statement& q, const char* name) {
    const SQLite::Column c = q.getColumn(name);
    if (c.isNull()) return std::nullopt;
    return c.getDouble();
}
int64_t integer(SQLite::Statement& q, const char* name) {
    const SQLite::Column c = q.getColumn(name);
    return c.isNull() ? 0 : c.getInt64();
}

void bindOpt(SQLite::Statement& q, int i, std::optional<double> v) {
    if (v)
        q.bind(i, *v);
    else
        q.bind(i);
}

SweepRow sweepFrom(SQLite::Statement& q) {
    SweepRow s;
    s.id = integer(q, "id");
    s.name = text(q, "name");
    s.status = text(q, "status");
    s.createdAt = text(q, "created_at");
    s.endedAt = text(q, "ended_at");
    s.specFile = text(q, "spec_file");
    s.host = text(q, "host");
    s.pid = integer(q, "pid");
    s.pidStart = integer(q, "pid_start");
    s.heartbeatAt = optReal(q, "heartbeat_at").value_or(0.0);
    s.spec = nlohmann::json::parse(text(q, "spec"));
    // A running or stopping sweep whose coordinator is gone: on this host its process ended,
    // on another its heartbeat (every 5 s) is older than RunStore's 15 minutes for runs.
    if (s.status == sweepstatus::kRunning || s.status == sweepstatus::kStopping) {
        const bool gone = s.host == runsHostName()
                              ? !runsProcessAlive(s.pid, s.pidStart)
                              : unixSeconds() - s.heartbeatAt > kStaleHeartbeatSeconds;
        if (gone) s.status = sweepstatus::kInterrupted;
    }
    return s;
}

}  // namespace

int64_t SweepStore::create(const std::string& name, const nlohmann::json& spec,
                           const std::string& specFile) {
    int64_t id = 0;
    store_.write("cannot add the sweep", [&](SQLite::Database& db) {
        SQLite::Statement q(
            db,
            "INSERT INTO sweeps (name, spec, spec_file, status, created_at, host, "
            "pid, pid_start, heartbeat_at) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?)");
        q.bind(1, name);
        q.bind(2, spec.dump());
        if (specFile.empty())
            q.bind(3);
        else
            q.bind(3, specFile);
        q.bind(4, utcNowText());
        q.bind(5, runsHostName());
        q.bind(6, int64_t(::getpid()));
        q.bind(7, runsProcessStart(::getpid()));
        q.bind(8, unixSeconds());
        q.exec();
        id = db.getLastInsertRowid();
    });
    return id;
}

std::string SweepStore::claim(int64_t id) {
    std::string had;
    store_.write("cannot resume sweep " + std::to_string(id), [&](SQLite::Database& db) {
        SQLite::Statement q(db, "SELECT * FROM sweeps WHERE id = ?");
        q.bind(1, id);
        if (!q.executeStep()) throw std::runtime_error("no sweep " + std::to_string(id));
        const SweepRow s = sweepFrom(q);
        q.reset();
        had = s.status;
        if (s.status == sweepstatus::kCompleted)
            throw std::runtime_error("sweep " + std::to_string(id) + " is completed");
        // sweepFrom() read a sweep whose coordinator is gone as interrupted: a running or
        // stopping one still has a live coordinator (its process on this host, its heartbeat
        // elsewhere), whatever host name the claimer has.
        const bool mine = s.host == runsHostName() && s.pid == ::getpid();
        if ((s.status == sweepstatus::kRunning || s.status == sweepstatus::kStopping) && !mine)
            throw std::runtime_error(
                "sweep " + std::to_string(id) + " is still run by pid " + std::to_string(s.pid) +
                " on " + s.host + " (heartbeat " +
                std::to_string(std::max(0, int(unixSeconds() - s.heartbeatAt))) +
                " s ago; a coordinator on another host is taken over when its heartbeat is " +
                "15 minutes old)");
        SQLite::Statement u(db,
                            "UPDATE sweeps SET status = 'running', ended_at = NULL, host = ?, "
                            "pid = ?, pid_start = ?, heartbeat_at = ? WHERE id = ?");
        u.bind(1, runsHostName());
        u.bind(2, int64_t(::getpid()));
        u.bind(3, runsProcessStart(::getpid()));
        u.bind(4, unixSeconds());
        u.bind(5, id);
        u.exec();
    });
    // Ends the transaction before the runtime_error escapes as RunStoreError? write() turns
    // other exceptions into RunStoreError; callers show its message.
    return had;
}

void SweepStore::setStatus(int64_t id, const std::string& status) {
    store_.write("cannot update sweep " + std::to_string(id), [&](SQLite::Database& db) {
        const bool ended = status != sweepstatus::kRunning && status != sweepstatus::kStopping;
        SQLite::Statement u(db, "UPDATE sweeps SET status = ?, ended_at = ? WHERE id = ?");
        u.bind(1, status);
        if (ended)
            u.bind(2, utcNowText());
        else
            u.bind(2);
        u.bind(3, id);
        u.exec();
    });
}

std::string SweepStore::requestStop(int64_t id) {
    std::string found;
    store_.write("cannot stop sweep " + std::to_string(id), [&](SQLite::Database& db) {
        SQLite::Statement q(db, "SELECT status FROM sweeps WHERE id = ?");
        q.bind(1, id);
        if (!q.executeStep()) return;
        found = q.getColumn(0).getString();
        q.reset();
        if (found != sweepstatus::kRunning) return;
        SQLite::Statement u(db, "UPDATE sweeps SET status = 'stopping' WHERE id = ?");
        u.bind(1, id);
        u.exec();
    });
    return found;
}

bool SweepStore::heartbeat(int64_t id) {
    int changed = 0;
    store_.write("cannot update sweep " + std::to_string(id), [&](SQLite::Database& db) {
        SQLite::Statement u(db,
                            "UPDATE sweeps SET heartbeat_at = ? WHERE id = ? AND host = ? AND "
                            "pid = ? AND pid_start = ?");
        u.bind(1, unixSeconds());
        u.bind(2, id);
        u.bind(3, runsHostName());
        u.bind(4, int64_t(::getpid()));
        u.bind(5, runsProcessStart(::getpid()));
        changed = u.exec();
    });
    return changed > 0;
}

std::vector<SweepRow> SweepStore::list() {
    std::vector<SweepRow> out;
    store_.read("cannot list the sweeps", [&](SQLite::Database& db) {
        SQLite::Statement q(db, "SELECT * FROM sweeps ORDER BY id DESC");
        while (q.executeStep()) out.push_back(sweepFrom(q));
    });
    return out;
}

std::optional<SweepRow> SweepStore::sweep(int64_t id) {
    std::optional<SweepRow> out;
    store_.read("cannot read sweep " + std::to_string(id), [&](SQLite::Database& db) {
        SQLite::Statement q(db, "SELECT * FROM sweeps WHERE id = ?");
        q.bind(1, id);
        if (q.executeStep()) out = sweepFrom(q);
    });
    return out;
}

std::string SweepStore::storedStatus(int64_t id) {
    std::string out;
    store_.read("cannot read sweep " + std::to_string(id), [&](SQLite::Database& db) {
        SQLite::Statement q(db, "SELECT status FROM sweeps WHERE id = ?");
        q.bind(1, id);
        if (q.executeStep()) out = q.getColumn(0).getString();
    });
    return out;
}

namespace {

TrialRow trialFrom(SQLite::Statement& q) {
    TrialRow t;
    t.number = int(integer(q, "number"));
    t.config = int(integer(q, "config"));
    t.replicate = int(integer(q, "replicate"));
    t.state = sweep::trialStateFromName(text(q, "state")).value_or(sweep::TrialState::Failed);
    t.params = nlohmann::json::parse(text(q, "params"));
    t.runId = integer(q, "run_id");
    t.attempts = int(integer(q, "attempts"));
    t.slot = text(q, "slot");
    t.value = optReal(q, "value");
    t.secondValue = optReal(q, "second_value");
    t.epochsDone = int(integer(q, "epochs_done"));
    if (!q.getColumn("pruned_at").isNull()) t.prunedAt = int(integer(q, "pruned_at"));
    t.error = text(q, "error");
    t.startedAt = text(q, "started_at");
    t.endedAt = text(q, "ended_at");
    return t;
}

// The trials of sweep `id` (all, or only `number`) with their epochs.
std::vector<TrialRow> readTrials(SQLite::Database& db, int64_t id, std::optional<int> number) {
    std::vector<TrialRow> out;
    const std::string only = number ? " AND number = ?" : "";
    SQLite::Statement q(db, "SELECT * FROM trials WHERE sweep_id = ?" + only + " ORDER BY number");
    q.bind(1, id);
    if (number) q.bind(2, *number);
    while (q.executeStep()) out.push_back(trialFrom(q));
    SQLite::Statement e(db,
                        "SELECT number, epoch, value FROM trial_epochs WHERE sweep_id = ?" + only);
    e.bind(1, id);
    if (number) e.bind(2, *number);
    std::map<int, size_t> at;
    for (size_t i = 0; i < out.size(); ++i) at[out[i].number] = i;
    while (e.executeStep()) {
        const auto it = at.find(e.getColumn(0).getInt());
        if (it != at.end())
            out[it->second].epochs[e.getColumn(1).getInt()] = e.getColumn(2).getDouble();
    }
    return out;
}

// Throws TrialNotUpdatable when a guarded update of trial `number` changed nothing, saying
// where the trial is.
void requireChanged(SQLite::Database& db, int changed, int64_t id, int number,
                    const std::string& expected) {
    if (changed > 0) return;
    SQLite::Statement q(db, "SELECT state, attempts FROM trials WHERE sweep_id = ? AND number = ?");
    q.bind(1, id);
    q.bind(2, number);
    const std::string where = q.executeStep()
                                  ? q.getColumn(0).getString() + " after " +
                                        std::to_string(q.getColumn(1).getInt()) + " attempts"
                                  : "not stored";
    throw TrialNotUpdatable("trial " + std::to_string(number) + " of sweep " + std::to_string(id) +
                            " is " + where + ", not " + expected +
                            ": nothing changed (a late line, or a sweep another coordinator "
                            "took over)");
}

std::string runningAttempt(int attempt) {
    return "running attempt " + std::to_string(attempt);
}

}  // namespace

std::vector<TrialRow> SweepStore::trials(int64_t id) {
    std::vector<TrialRow> out;
    store_.read("cannot read the trials of sweep " + std::to_string(id),
                [&](SQLite::Database& db) { out = readTrials(db, id, std::nullopt); });
    return out;
}

std::optional<TrialRow> SweepStore::trial(int64_t id, int number) {
    std::vector<TrialRow> out;
    store_.read("cannot read trial " + std::to_string(number) + " of sweep " + std::to_string(id),
                [&](SQLite::Database& db) { out = readTrials(db, id, number); });
    if (out.empty()) return std::nullopt;
    return out.front();
}

void SweepStore::addTrials(int64_t id, const std::vector<TrialRow>& trials) {
    if (trials.empty()) return;
    store_.write("cannot add trial " + std::to_string(trials.front().number),
                 [&](SQLite::Database& db) {
                     for (const TrialRow& t : trials) insertQueuedTrial(db, id, t);
                 });
}

void insertQueuedTrial(SQLite::Database& db, int64_t id, const TrialRow& t) {
    SQLite::Statement q(db,
                        "INSERT INTO trials (sweep_id, number, config, replicate, state, "
                        "params) VALUES (?, ?, ?, ?, 'queued', ?)");
    q.bind(1, id);
    q.bind(2, t.number);
    q.bind(3, t.config);
    q.bind(4, t.replicate);
    q.bind(5, t.params.dump());
    q.exec();
}

int SweepStore::startTrial(int64_t id, int number, const std::string& slot) {
    int attempt = 0;
    store_.write("cannot start trial " + std::to_string(number), [&](SQLite::Database& db) {
        SQLite::Statement u(db,
                            "UPDATE trials SET state = 'running', attempts = attempts + 1, "
                            "slot = ?, started_at = ?, ended_at = NULL, error = NULL, value = "
                            "NULL, second_value = NULL, epochs_done = 0, pruned_at = NULL, run_id "
                            "= NULL WHERE sweep_id = ? AND number = ? AND state = 'queued'");
        u.bind(1, slot);
        u.bind(2, utcNowText());
        u.bind(3, id);
        u.bind(4, number);
        requireChanged(db, u.exec(), id, number, "queued");
        SQLite::Statement d(db, "DELETE FROM trial_epochs WHERE sweep_id = ? AND number = ?");
        d.bind(1, id);
        d.bind(2, number);
        d.exec();
        SQLite::Statement q(db, "SELECT attempts FROM trials WHERE sweep_id = ? AND number = ?");
        q.bind(1, id);
        q.bind(2, number);
        q.executeStep();
        attempt = q.getColumn(0).getInt();
    });
    return attempt;
}

void SweepStore::requeueTrial(int64_t id, int number, const std::string& why) {
    store_.write("cannot requeue trial " + std::to_string(number), [&](SQLite::Database& db) {
        SQLite::Statement u(db,
                            "UPDATE trials SET state = 'queued', error = ? WHERE sweep_id = ? "
                            "AND number = ? AND state = 'running'");
        u.bind(1, why);
        u.bind(2, id);
        u.bind(3, number);
        requireChanged(db, u.exec(), id, number, "running");
    });
}

void SweepStore::failTrial(int64_t id, int number, const std::string& error) {
    store_.write("cannot end trial " + std::to_string(number), [&](SQLite::Database& db) {
        SQLite::Statement u(db,
                            "UPDATE trials SET state = 'failed', error = ?, ended_at = ? WHERE "
                            "sweep_id = ? AND number = ? AND state IN ('queued', 'running')");
        u.bind(1, error);
        u.bind(2, utcNowText());
        u.bind(3, id);
        u.bind(4, number);
        requireChanged(db, u.exec(), id, number, "queued or running");
    });
}

// An UPDATE of trials setting `set`, for a running attempt only (binds: set's, then sweep,
// number, attempt).
static std::string forRunningAttempt(const std::string& set) {
    return "UPDATE trials SET " + set +
           " WHERE sweep_id = ? AND number = ? AND state = 'running' AND attempts = ?";
}

void SweepStore::linkRun(SQLite::Database& db, int64_t id, int number, int attempt, int64_t runId) {
    SQLite::Statement u(db, forRunningAttempt("run_id = ?"));
    u.bind(1, runId);
    u.bind(2, id);
    u.bind(3, number);
    u.bind(4, attempt);
    requireChanged(db, u.exec(), id, number, runningAttempt(attempt));
}

void writeTrialEpoch(SQLite::Database& db, int64_t id, int number, int epoch, double value) {
    SQLite::Statement q(db,
                        "INSERT OR REPLACE INTO trial_epochs (sweep_id, number, epoch, value) "
                        "VALUES (?, ?, ?, ?)");
    q.bind(1, id);
    q.bind(2, number);
    q.bind(3, epoch);
    q.bind(4, value);
    q.exec();
}

void SweepStore::addEpoch(SQLite::Database& db, int64_t id, int number, int attempt, int epoch,
                          double value, double best) {
    SQLite::Statement u(db, forRunningAttempt("epochs_done = ?, value = ?"));
    u.bind(1, epoch);
    u.bind(2, best);
    u.bind(3, id);
    u.bind(4, number);
    u.bind(5, attempt);
    requireChanged(db, u.exec(), id, number, runningAttempt(attempt));
    writeTrialEpoch(db, id, number, epoch, value);
}

void SweepStore::setEpochsDone(SQLite::Database& db, int64_t id, int number, int attempt,
                               int epoch) {
    SQLite::Statement u(db, forRunningAttempt("epochs_done = ?"));
    u.bind(1, epoch);
    u.bind(2, id);
    u.bind(3, number);
    u.bind(4, attempt);
    requireChanged(db, u.exec(), id, number, runningAttempt(attempt));
}

void SweepStore::endTrial(SQLite::Database& db, int64_t id, int number, int attempt,
                          const TrialEnd& end) {
    SQLite::Statement u(db, forRunningAttempt("state = ?, value = COALESCE(?, value), second_value "
                                              "= ?, pruned_at = ?, error = ?, ended_at = ?, "
                                              "attempts = attempts - ?"));
    u.bind(1, sweep::trialStateName(end.state));
    bindOpt(u, 2, end.value);
    bindOpt(u, 3, end.second);
    if (end.prunedAt)
        u.bind(4, *end.prunedAt);
    else
        u.bind(4);
    if (end.error.empty())
        u.bind(5);
    else
        u.bind(5, end.error);
    u.bind(6, utcNowText());
    u.bind(7, end.attemptCounts ? 0 : 1);
    u.bind(8, id);
    u.bind(9, number);
    u.bind(10, attempt);
    requireChanged(db, u.exec(), id, number, runningAttempt(attempt));
}

sweep::SweepSpec storedSpec(const SweepRow& s) {
    const std::string dir =
        s.specFile.empty() ? "." : std::filesystem::path(s.specFile).parent_path().string();
    return sweep::SweepSpec::fromJson(s.spec, s.specFile, dir.empty() ? "/" : dir);
}

}  // namespace nnwb
