// A run kept in a side file because the run store could not be written (locked, corrupt,
// read-only): `<db folder>/<db stem>-pending/<host>-<pid>-<n>.jsonl`, one JSON record per line
// (the run, each epoch, each model file, the end), each appended with one write() and fsync'd.
// The writer holds a flock() on its file while the run goes, so RunStore (which imports the
// files it can lock on open, see RunStore.h) never takes a file that is still being written.
// A PendingRunFile belongs to the recorder's thread; the reader is a pure function. Qt-free.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/runs/StoredRun.h"

namespace nnwb {

// "<db folder>/<db stem>-pending".
std::string pendingRunsFolder(const std::string& dbPath);

// What a side file holds, as read back.
struct PendingRun {
    StoredRun run;                      // uuid, host and pid as recorded; no id
    std::vector<StoredEpoch> epochs;    // in the order recorded (a repeated epoch replaces)
    std::vector<StoredBundle> bundles;  // paths absolute
    bool ended = false;                 // the run's end was recorded (status, error, best)
    std::string endedAt;
};

class PendingRunFile {
public:
    // Creates and locks a new side file in `folder` (made if missing), publishing it under its
    // final name only once it is locked. Throws std::runtime_error saying what failed.
    explicit PendingRunFile(const std::string& folder);
    ~PendingRunFile();  // closes (unlocks) the file: it can be imported from then on
    PendingRunFile(const PendingRunFile&) = delete;
    PendingRunFile& operator=(const PendingRunFile&) = delete;

    const std::string& path() const { return path_; }
    // A folder of this file's own for model files of a run the store has no id for.
    std::string filesFolder() const;

    void appendRun(const StoredRun& run);
    void appendEpoch(const StoredEpoch& epoch, std::optional<int> bestEpoch);
    void appendBundle(const StoredBundle& bundle);
    // The run's trading figures (StoredRun::trading).
    void appendTrading(const nlohmann::json& trading);
    void appendEnd(const std::string& status, const std::string& error,
                   std::optional<int> bestEpoch);

private:
    void append(const nlohmann::json& record);
    std::string path_;
    int fd_ = -1;
};

// Reads a side file. A torn last line (a crash while appending) is ignored; any other bad line,
// or no run record, makes it return nullopt with `problem` saying what and where.
std::optional<PendingRun> readPendingRun(const std::string& text, const std::string& path,
                                         std::string& problem);

}  // namespace nnwb
