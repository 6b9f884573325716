// The run store: one SQLite database (rollback journal, versioned schema migrated on open)
// holding every training run, its epochs and references to its model bundles, which live in a
// folder beside the database (`runs.sqlite` -> `runs-models/<id>/`). One RunStore is one
// connection: create, use and destroy it on one thread; other threads and processes open their
// own. Opening marks runs whose process is gone as interrupted and imports the runs kept in side
// files (PendingRun.h) while the store could not be written. Qt-free.
//
// Why many processes and threads cannot corrupt it (issue 24). SQLite's own locks are POSIX
// fcntl locks, and on POSIX closing *any* descriptor of a file drops every such lock the process
// holds on it: a file dialog or MIME sniffer that opens and closes runs.sqlite made another
// process believe it was the last user, checkpoint and delete a live WAL. So our processes no
// longer rely on those locks between each other:
// - Every access to the file (open and migration, each write transaction, each read, the first
//   statement's schema read included) happens while this connection holds a flock() on
//   `runs.sqlite.lock` (RunsLock): exclusive to write, shared to read. flock locks belong to the
//   open file description, so no close() of another descriptor (of either file) drops them, and
//   separate connections in one process exclude each other like processes do. Writers are
//   alone; readers only overlap readers; what SQLite's fcntl locks would have decided between
//   our connections is already decided, so losing them changes nothing.
// - The journal is a rollback journal (journal_mode=DELETE), not WAL: WAL keeps state between
//   transactions (a shared lock held while the connection is open, the -shm index, and a close
//   that checkpoints and deletes the WAL when it believes it is the last user), which no lock
//   around transactions can protect. A rollback journal keeps nothing between transactions but
//   the page cache, which SQLite revalidates at the start of every read (file change counter).
//   A store still in WAL mode is switched on open, under the exclusive lock.
// - Every statement is finished or reset before its guard is released (guards are declared
//   before transactions and statements, so they are destroyed after them).
// - A journal found beside the file under a shared lock can only be a hot journal of a writer
//   that died; reading then takes the exclusive lock, since rolling it back is a write.
// - Group commit (RunStore::Batch, the sweep coordinator): the writes of one batch are
//   made inside one transaction under one exclusive lock and committed together, so they cost
//   one journal and one set of syncs (synchronous = FULL) instead of one per write. Each write
//   in it is still all or nothing (a savepoint). A batch is never held across a wait.
// Outside that: programs that do not take the lock file (the sqlite3 shell, an nnwb older than
// this) are only protected by SQLite's own locks, and on NFS Linux emulates flock with fcntl
// locks, so the store should live on a local file system.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/runs/RunsLock.h"
#include "app/runs/StoredRun.h"

namespace SQLite {
class Database;
}

namespace nnwb {

struct PendingRun;

// Any failure of the store; the message starts with "runs database PATH: ".
class RunStoreError : public std::runtime_error {
public:
    explicit RunStoreError(const std::string& what) : std::runtime_error(what) {}
};

// remove() of a run that may not be removed now (a running sweep trial's); nothing changed.
class RunInUseError : public RunStoreError {
public:
    explicit RunInUseError(const std::string& what) : RunStoreError(what) {}
};

class RunStore {
public:
    // Opens (creating the file and its folder when `create`), migrates the database and imports
    // the side files no writer holds any more. Throws RunStoreError for a read-only, locked
    // (longer than the busy timeout), corrupt or newer database. The busy timeout (for the lock
    // file and SQLite's own) is $NNWB_RUNS_BUSY_MS milliseconds, default 10000.
    explicit RunStore(const std::string& path, bool create = true);
    ~RunStore();
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;

    const std::string& path() const { return path_; }
    // The folder of a run's files: "<db folder>/<db stem>-models/<id>".
    std::string runFolder(int64_t id) const;
    static std::string runFolderOf(const std::string& dbPath, int64_t id);

    // Writing (the thread that owns the run). insertRun stores everything but id, epochs and
    // bundles, marks it running with this process's pid and a heartbeat, returns the id.
    // `also` (optional) runs in the same transaction, given the new id: a caller's own rows
    // that must commit with the run's (a sweep trial's, app/sweep/SweepStore.h).
    using Also = std::function<void(SQLite::Database&, int64_t id)>;
    int64_t insertRun(const StoredRun& run, const Also& also = {});
    // Adds an epoch (replacing one of the same number), renews the heartbeat and sets the best
    // epoch, in one transaction (with `also`).
    void addEpoch(int64_t id, const StoredEpoch& epoch, std::optional<int> bestEpoch,
                  const Also& also = {});
    void heartbeat(int64_t id);
    void finishRun(int64_t id, const std::string& status, const std::string& error,
                   std::optional<int> bestEpoch, const Also& also = {});
    // Stores the run's trading figures (StoredRun::trading).
    void setTrading(int64_t id, const nlohmann::json& trading);
    // Records a bundle file already written (path absolute, inside runFolder(id)).
    void setBundle(int64_t id, const StoredBundle& bundle);

    // Reading. list(): every run with its epoch summary, no epochs or bundles; newest first;
    // an ensemble's member runs are left out (its own run stands for them).
    std::vector<StoredRun> list();
    // The member runs of an ensemble run, with epochs and bundles, in id order (none: empty).
    std::vector<StoredRun> members(int64_t ensemble);
    // Makes `members` the member runs of the ensemble run `ensemble` (docs/ensembles.md).
    void setEnsembleMembers(int64_t ensemble, const std::vector<int64_t>& members);
    std::optional<StoredRun> get(int64_t id);
    // The newest run of an experiment file (matched by its path), if any.
    std::optional<int64_t> lastRunOfExperiment(const std::string& experimentFile);

    // Editing. Both return false when there is no such run.
    bool setMeta(int64_t id, const std::string& name, const std::string& tags,
                 const std::string& note);
    // Deletes the run, its epochs and bundles, and its folder of files (an ensemble's run: its
    // member runs too). Throws RunInUseError
    // for the run of a sweep trial that is running (its coordinator still records it).
    bool remove(int64_t id);

    // Marks running runs whose process is gone as interrupted; returns how many (done on open).
    int markInterrupted();
    // PRAGMA integrity_check: "ok" or the problems found.
    std::string integrityCheck();
    // Imports the side files of `<db stem>-pending/` that no writer holds, in one transaction,
    // deleting each only after that committed; returns how many (done on open).
    int importPending();
    // Imports runs made elsewhere (a sweep bundle's task results, app/sweep/BundleImport.h) in
    // one transaction: `choose` (in it, first) says which to import; each chosen run is matched
    // by its uuid (updated, never duplicated), its epochs, bundles (files copied into its
    // folder) and end written; `also` then gets the ids (0 for runs not chosen). Anything
    // that fails (a model file that cannot be copied included) rolls everything back.
    using ImportChoice = std::function<std::vector<bool>(SQLite::Database&)>;
    using ImportAlso = std::function<void(SQLite::Database&, const std::vector<int64_t>& ids)>;
    void importRuns(std::vector<PendingRun>& runs, const ImportChoice& choose,
                    const ImportAlso& also);
    // Statements of other tables (the sweep tables, app/sweep/SweepStore.h) under this
    // connection's discipline: write() runs `f` holding the exclusive lock inside one
    // IMMEDIATE transaction, committed when `f` returns (rolled back when it throws); read()
    // holds the shared lock. Failures throw RunStoreError starting "runs database PATH: what".
    void write(const std::string& what, const std::function<void(SQLite::Database&)>& f);
    void read(const std::string& what, const std::function<void(SQLite::Database&)>& f);

    // Group commit (docs/runs.md "Writes and durability"): while a Batch lives, this
    // connection holds the exclusive lock and one open transaction, and every write of it
    // (each still all or nothing: a savepoint, rolled back alone when it fails) joins that
    // transaction; commit() commits them at once. Until then they are not durable and other
    // connections cannot read (they wait on the lock), so a batch must be short: never held
    // across a wait for input. ~Batch without commit() (an exception) commits what succeeded,
    // so the store holds what it would have held without the batch. Not nested; the thread
    // that owns the store only.
    class Batch {
    public:
        explicit Batch(RunStore& store);
        ~Batch();
        Batch(const Batch&) = delete;
        Batch& operator=(const Batch&) = delete;
        void commit();  // throws RunStoreError

    private:
        RunStore& s_;
        RunsLock::Guard guard_;
        bool open_ = false;
    };
    // Transactions this connection has committed that changed rows (a batch counts once).
    int64_t commits() const { return commits_; }

    // Side files that could not be imported on open (bad lines, a model file that cannot be
    // copied), each saying what and where; such files are left in place.
    const std::vector<std::string>& pendingProblems() const { return problems_; }

private:
    class WriteTx;  // BEGIN IMMEDIATE ... COMMIT, or a savepoint inside a Batch
    void useRollbackJournal();
    RunsLock::Guard writing();
    RunsLock::Guard reading();
    // Statements run inside a caller's lock and transaction.
    int64_t insertRow(const StoredRun& run, const std::string& host, int64_t pid, int64_t pidStart,
                      const std::string& status);
    void writeEpoch(int64_t id, const StoredEpoch& epoch);
    void writeBundle(int64_t id, const StoredBundle& bundle);
    // False when a model file could not be copied (the side file is then kept).
    bool importRun(PendingRun& run, const std::string& file, int64_t* idOut = nullptr);
    // Deletes the model folders of ids without a run: what an import whose transaction rolled
    // back or was killed had copied (a run's row is committed before its folder is made, so
    // none of them is a live run's). Holding the write lock, outside a failed transaction.
    void removeOrphanFolders();
    [[noreturn]] void fail(const std::string& what, const std::exception& e) const;
    std::string relativeToDb(const std::string& absolute) const;
    std::string path_;
    std::unique_ptr<RunsLock> lock_;  // declared first: destroyed after the connection
    std::unique_ptr<SQLite::Database> db_;
    std::vector<std::string> problems_;
    bool batchOpen_ = false;
    int64_t commits_ = 0;
    int64_t changesAtCommit_ = 0;  // sqlite3_total_changes64 at the last commit
};

// The current UTC time as stored: YYYY-MM-DDTHH:MM:SSZ.
std::string utcNowText();
// The identity of a process as the store keeps it (host, pid, start time in clock ticks after
// boot) and whether such a process still runs on this host (RunStore's own rule).
std::string runsHostName();
int64_t runsProcessStart(int64_t pid);
bool runsProcessAlive(int64_t pid, int64_t start);

}  // namespace nnwb
