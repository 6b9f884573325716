// The sweep tables of the run store (schema version 4, app/runs/RunsSchema.cpp): sweeps and
// their trials with state, configuration, the run of their last attempt and the objective per
// epoch. Every write is one transaction on the caller's RunStore connection; the coordinator of
// a sweep is its only writer (docs/sweeps.md), `sweep stop` only sets the status. Use on the
// thread that owns the RunStore.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
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
    // value: the best objective so far, the trial's value once it ended (as reported, not
    // oriented); the last epoch's is epochs' last.
    std::optional<double> value, secondValue;
    int epochsDone = 0;
    std::optional<int> prunedAt;
    std::string error, startedAt, endedAt;
    std::map<int, double> epochs;  // objective per epoch, as reported
};

// A guarded update found the trial in another state or attempt than the caller's (a finished
// trial, a line of an attempt that another one replaced, a coordinator that lost the sweep):
// nothing was changed. RunStore::write() passes it on as a RunStoreError with this message.
class TrialNotUpdatable : public std::runtime_error {
public:
    explicit TrialNotUpdatable(const std::string& what) : std::runtime_error(what) {}
};

// How an attempt of a trial ended, as the coordinator stores it (endTrial).
struct TrialEnd {
    sweep::TrialState state = sweep::TrialState::Failed;  // Queued: it runs again
    std::optional<double> value{}, second{};
    std::optional<int> prunedAt{};
    std::string error{};
    bool attemptCounts = true;  // false: `sweep stop` ended it, which is no attempt
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
    // Renews the heartbeat of this process's claim; false (nothing written) when the sweep is
    // no longer this process's (another coordinator took it over).
    bool heartbeat(int64_t id);

    std::vector<SweepRow> list();
    std::optional<SweepRow> sweep(int64_t id);
    // The status column alone, as stored (no interrupted check; empty: no such sweep): one
    // indexed read, for the coordinator's look before each trial it hands out.
    std::string storedStatus(int64_t id);
    std::vector<TrialRow> trials(int64_t id);               // by number, with their epochs
    std::optional<TrialRow> trial(int64_t id, int number);  // one, with its epochs

    // Stores trials as queued, all in one transaction: a configuration's seed replicates are
    // stored together or not at all (a kill between them cannot lose one).
    void addTrials(int64_t id, const std::vector<TrialRow>& trials);

    // The updates of a trial's life. Each is guarded by the state (and attempt) it expects and
    // throws TrialNotUpdatable, changing nothing, when the trial is elsewhere: a complete,
    // pruned or failed trial never changes (only a bundle import, by its rule "a result that
    // got further wins", app/sweep/BundleImport.h).
    //
    // A queued trial starts running on `slot` as its next attempt (attempts + 1, the epochs of
    // an earlier attempt cleared); returns that attempt's number.
    int startTrial(int64_t id, int number, const std::string& slot);
    // A running trial whose coordinator died goes back to the queue, keeping its attempts.
    void requeueTrial(int64_t id, int number, const std::string& why);
    // A queued or running trial fails.
    void failTrial(int64_t id, int number, const std::string& error);

    // Statements for RunStore's `also` hooks (inside the run's transaction), each for running
    // attempt `attempt` of the trial only.
    static void linkRun(SQLite::Database& db, int64_t id, int number, int attempt, int64_t runId);
    // The objective at `epoch`; `best` the best value so far (the trial's value).
    static void addEpoch(SQLite::Database& db, int64_t id, int number, int attempt, int epoch,
                         double value, double best);
    // A trial whose objective is an end-of-trial figure: only its epochs done (no value yet).
    static void setEpochsDone(SQLite::Database& db, int64_t id, int number, int attempt, int epoch);
    static void endTrial(SQLite::Database& db, int64_t id, int number, int attempt,
                         const TrialEnd& end);

private:
    RunStore& store_;
};

// The objective of trial `number` at `epoch`, unguarded (a bundle import writes whole trials).
void writeTrialEpoch(SQLite::Database& db, int64_t id, int number, int epoch, double value);

// Adds trial `t` of sweep `id` as queued, in the caller's transaction on `db`
// (SweepStore::addTrials and the import of a Slurm bundle, which writes a whole sweep in one
// transaction).
void insertQueuedTrial(SQLite::Database& db, int64_t id, const TrialRow& t);

// The spec of a stored sweep, relative paths taken from where its file was. Throws
// sweep::SpecError when it no longer loads (its experiment file moved, say).
sweep::SweepSpec storedSpec(const SweepRow& s);

}  // namespace nnwb
