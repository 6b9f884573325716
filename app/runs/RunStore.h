// The run store: one SQLite database (WAL journal, busy timeout, versioned schema migrated on
// open) holding every training run, its epochs and references to its model bundles, which live
// in a folder beside the database (`runs.sqlite` -> `runs-models/<id>/`). One RunStore is one
// connection: create, use and destroy it on one thread; other threads and processes open their
// own. Writes are short IMMEDIATE transactions, so many writers interleave without losing any.
// Opening marks runs whose process is gone (pid + start time, or a stale heartbeat on another
// host) as interrupted. Qt-free.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/runs/StoredRun.h"

namespace SQLite {
class Database;
}

namespace nnwb {

// Any failure of the store; the message starts with "runs database PATH: ".
class RunStoreError : public std::runtime_error {
public:
    explicit RunStoreError(const std::string& what) : std::runtime_error(what) {}
};

class RunStore {
public:
    // Opens (creating the file and its folder when `create`) and migrates the database. Throws
    // RunStoreError for a read-only, locked (longer than the busy timeout), corrupt or newer
    // database. The busy timeout is $NNWB_RUNS_BUSY_MS milliseconds, default 10000.
    explicit RunStore(const std::string& path, bool create = true);
    ~RunStore();
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;

    const std::string& path() const { return path_; }
    // The folder of a run's files: "<db folder>/<db stem>-models/<id>".
    std::string runFolder(int64_t id) const;

    // Writing (the thread that owns the run). insertRun stores everything but id, epochs and
    // bundles, marks it running with this process's pid and a heartbeat, returns the id.
    int64_t insertRun(const StoredRun& run);
    // Adds an epoch (replacing one of the same number), renews the heartbeat and sets the best
    // epoch, in one transaction.
    void addEpoch(int64_t id, const StoredEpoch& epoch, std::optional<int> bestEpoch);
    void heartbeat(int64_t id);
    void finishRun(int64_t id, const std::string& status, const std::string& error,
                   std::optional<int> bestEpoch);
    // Records a bundle file already written (path absolute, inside runFolder(id)).
    void setBundle(int64_t id, const StoredBundle& bundle);

    // Reading. list(): every run with its epoch summary, no epochs or bundles; newest first.
    std::vector<StoredRun> list();
    std::optional<StoredRun> get(int64_t id);
    // The newest run of an experiment file (matched by its path), if any.
    std::optional<int64_t> lastRunOfExperiment(const std::string& experimentFile);

    // Editing. Both return false when there is no such run.
    bool setMeta(int64_t id, const std::string& name, const std::string& tags,
                 const std::string& note);
    // Deletes the run, its epochs and bundles, and its folder of files.
    bool remove(int64_t id);

    // Marks running runs whose process is gone as interrupted; returns how many (done on open).
    int markInterrupted();
    // PRAGMA integrity_check: "ok" or the problems found.
    std::string integrityCheck();

private:
    [[noreturn]] void fail(const std::string& what, const std::exception& e) const;
    std::string relativeToDb(const std::string& absolute) const;
    std::string path_;
    std::unique_ptr<SQLite::Database> db_;
};

// The current UTC time as stored: YYYY-MM-DDTHH:MM:SSZ.
std::string utcNowText();

}  // namespace nnwb
