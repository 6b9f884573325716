// The run store as the window sees it: the runs listed, runs loaded with their epochs and
// bundles, the newest run of an experiment file, name/tags/note edits, deletes and a run's CSV.
// Every query runs on a thread this object owns, one at a time in the order asked (an edit is
// seen by the list asked after it), in short transactions of a connection of its own. Answers
// come back through a CallQueue to the callback given with the query, on the owner's thread,
// unless the callback's `context` object (a view) or this object is gone by then. Create and
// use on one thread (the GUI's); the destructor drops the queued queries and waits for the
// running one.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <QObject>
#include <QString>

#include "app/runs/StoredRun.h"

namespace nnwb {

class CallQueue;
class RunStore;

class RunHistory : public QObject {
    Q_OBJECT
public:
    using Runs = std::vector<StoredRun>;

    explicit RunHistory(QObject* parent = nullptr);
    ~RunHistory() override;

    // The database queried (a path; "" or no file yet: no runs). Never creates the file.
    void setDatabase(const QString& path);
    QString database() const { return path_; }

    // Every run with its epoch summary (no epochs, bundles), newest first; runs of processes
    // that are gone are marked interrupted first. `error`: the store could not be read.
    void list(QObject* context, std::function<void(const Runs& runs, const QString& error)> done);
    // The runs `ids` in full (epochs, bundles), in that order; ids no longer stored are left out.
    void load(const std::vector<int64_t>& ids, QObject* context,
              std::function<void(const Runs& runs, const QString& error)> done);
    // The newest run of the experiment file `path` (absolute), in full; none without one.
    void lastRunOf(const QString& path, QObject* context,
                   std::function<void(const std::optional<StoredRun>& run)> done);
    // Edits; `done` (optional) gets "" or the error.
    void setMeta(int64_t id, const std::string& name, const std::string& tags,
                 const std::string& note, QObject* context = nullptr,
                 std::function<void(const QString& error)> done = {});
    void remove(const std::vector<int64_t>& ids, QObject* context,
                std::function<void(const QString& error)> done);
    // Writes run `id`'s per-epoch CSV to `path` (StoredRunCsv).
    void exportCsv(int64_t id, const QString& path, QObject* context,
                   std::function<void(const QString& error)> done);

    // Queries asked whose answers have not come back yet.
    int pending() const { return pending_; }

private Q_SLOTS:
    void runQueuedCalls();

private:
    // The store thread's side: the open connection (null: none or no file) and its path.
    struct Connection {
        std::string path;
        std::unique_ptr<RunStore> store;
        RunStore* open();  // null when there is no file; throws when it cannot be read
    };
    using Query = std::function<std::function<void()>(Connection&)>;
    // Runs `query` on the store thread; the call it returns runs on this object's thread, if
    // `context` (when given) still lives.
    void ask(QObject* context, Query query);
    void work();

    QString path_;
    int pending_ = 0;
    std::shared_ptr<CallQueue> calls_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void(Connection&)>> queries_;
    bool stopping_ = false;
    Connection connection_;  // the store thread's only
    std::thread thread_;
};

// The runs that match the Runs view's filter text (RunFilter: the syntax of `nnwb-cli runs
// list --filter`). An unknown key shows every run, with the reason in `error`. Any thread.
struct FilteredRuns {
    std::vector<StoredRun> runs;
    QString error;
};
FilteredRuns filterRuns(const std::vector<StoredRun>& runs, const QString& filter);

}  // namespace nnwb
