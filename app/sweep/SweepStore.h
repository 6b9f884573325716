// The sweep tables of the run store (schema version 4, app/runs/RunsSchema.cpp): sweeps and
// their trials with state, configuration, the run of their last attempt and the objective per
// epoch. Every write is one transaction on the caller's RunStore connection; the coordinator of
// a sweep is its only writer (docs/sweeps.md), `sweep stop` only sets the status. Use on the
// thread that owns the RunStore.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "model/sweep/SweepSpec.h"
#include "model/sweep/Trial.h"

namespace SQLite {
class Database;
}

namespace nnwb {

namespace sweepstatus {
inline constexpr const char* kRunning = "running";
inline constexpr const char* kStopping = "stopping";  // `sweep stop` asked; the coordinator ends it
inline constexpr const char* kStopped = "stopped";
inline constexpr const char* kCompleted = "completed";
// Its coordinator died (never stored: list() and sweep() read a running or stopping sweep so
// when its process is gone, or, on another host, its heartbeat is 15 minutes old).
inline constexpr const char* kInterrupted = "interrupted";
}  // namespace sweepstatus

struct SweepRow {
    int64_t id = 0;
    std::string name, status, createdAt, endedAt, specFile, host;
    nlohmann::json spec;
    int64_t pid = 0, pidStart = 0;
    double heartbeatAt = 0;  // UTC seconds of the coordinator's last heartbeat
};

struct TrialRow {
    int number = 0, config = 0, replicate = 0;
    sweep::TrialState state = sweep::TrialState::Queued;
    nlohmann::json params = nlohmann::json::object();
    int64_t runId = 0;
    int attempts = 0;
    std::string slot;
    std::optional<double> value, secondValue;  // as reported (not oriented)
    int epochsDone = 0;
    std::optional<int> prunedAt;
    std::string error, startedAt, endedAt;
    std::map<int, double> epochs;  // objective per epoch, as reported
};

class SweepStore {
public:
    explicit SweepStore(RunStore& store) : store_(store) {}
    RunStore& runs() { return store_; }

    // A new sweep, running, owned by this process.
    int64_t create(const std::string& name, const nlohmann::json& spec,
                   const std::string& specFile);
    // Takes over sweep `id` for this process (resume). Throws std::runtime_error when it is
    // finished or a live process on this host still coordinates it. Returns the status it had.
    std::string claim(int64_t id);
    void setStatus(int64_t id, const std::string& status);
    // Sets `stopping` when the sweep is running; returns the status found.
    std::string requestStop(int64_t id);
    void heartbeat(int64_t id);

    std::vector<SweepRow> list();
    std::optional<SweepRow> sweep(int64_t id);
    std::vector<TrialRow> trials(int64_t id);  // by number, with their epochs

    // Stores trials as queued, all in one transaction: a configuration's seed replicates are
    // stored together or not at all (a kill between them cannot lose one).
    void addTrials(int64_t id, const std::vector<TrialRow>& trials);
    // Marks the trial running on `slot` (attempts + 1) and clears the epochs of an earlier
    // attempt.
    void startTrial(int64_t id, int number, const std::string& slot);
    // Back to queued (stopped by `sweep stop`, or an attempt its coordinator lost), keeping
    // the count of attempts.
    void requeueTrial(int64_t id, int number, const std::string& why);
    void failTrial(int64_t id, int number, const std::string& error);

    // Statements for RunStore's `also` hooks (inside the run's transaction).
    static void linkRun(SQLite::Database& db, int64_t id, int number, int64_t runId);
    static void addEpoch(SQLite::Database& db, int64_t id, int number, int epoch, double value);
    // A trial whose objective is an end-of-trial figure: only its epochs done (no value yet).
    static void setEpochsDone(SQLite::Database& db, int64_t id, int number, int epoch);
    // The attempt that startTrial counted was none: `sweep stop` ended it (docs/sweeps.md).
    static void uncountAttempt(SQLite::Database& db, int64_t id, int number);
    static void endTrial(SQLite::Database& db, int64_t id, int number, sweep::TrialState state,
                         std::optional<double> value, std::optional<double> second,
                         std::optional<int> prunedAt, const std::string& error);

private:
    RunStore& store_;
};

// Adds trial `t` of sweep `id` as queued, in the caller's transaction on `db`
// (SweepStore::addTrials and the import of a Slurm bundle, which writes a whole sweep in one
// transaction).
void insertQueuedTrial(SQLite::Database& db, int64_t id, const TrialRow& t);

// The spec of a stored sweep, relative paths taken from where its file was. Throws
// sweep::SpecError when it no longer loads (its experiment file moved, say).
sweep::SweepSpec storedSpec(const SweepRow& s);

}  // namespace nnwb
