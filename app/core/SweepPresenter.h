// The Sweeps tab's state, kept out of the widgets: checks a spec (model/sweep/SweepSpec, the
// CLI's loader), starts, stops and resumes a sweep by running the CLI's coordinator
// (app/sweep/Coordinator: trials are `nnwb-cli train --trial` child processes) on a thread of
// its own, lists the store's sweeps and reads the shown sweep's trials and report about once a
// second while it runs. Answers come back on the owner's thread through a CallQueue. Create and
// use on one thread (the GUI's); the destructor asks a running sweep to stop and waits for it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <QObject>
#include <QString>
#include <QTimer>

#include <nlohmann/json.hpp>

#include "app/sweep/Slots.h"
#include "app/sweep/SweepStore.h"

namespace nnwb {

class CallQueue;

// One look at a sweep's rows: what the tab shows.
struct SweepSnapshot {
    SweepRow sweep;
    std::vector<std::string> parameters;  // the spec's parameter paths, in order
    std::string objective, secondObjective;
    bool minimize = true;
    std::vector<TrialRow> trials;
    nlohmann::json report;  // SweepReport's: importance, pareto, leaderboard
};

class SweepPresenter : public QObject {
    Q_OBJECT
public:
    explicit SweepPresenter(QObject* parent = nullptr);
    ~SweepPresenter() override;

    void setDatabase(const QString& path);  // the run store sweeps go in ("" : the default)
    QString database() const { return path_; }
    // The nnwb-cli trials run with: $NNWB_CLI, else beside this program (installed) or in the
    // build tree's app/ folder.
    static QString cliPath();
    // Where specs written in the window and unsaved base experiments are kept.
    QString specFolder() const;

    // Saves a copy of `e` (its data file made absolute) in specFolder() for a spec to name;
    // returns its path ("" when it cannot be written).
    QString saveExperiment(const Experiment& e) const;

    // Checks `text` as a spec file at `file` ("" : a new file in specFolder()); the answer
    // comes as specChecked ("" or the loader's FILE:LINE / path error).
    void check(const QString& text, const QString& file);
    // Saves `text` to `file` (or a new file in specFolder()), loads it and runs the sweep on
    // `slots`: a number of CPU slots, or the CLI's --slots list ("cpu=2,opencl:0:0=4"). False
    // (with failed) when one is already running or the slots do not parse.
    bool start(const QString& text, const QString& file, const QString& slots);
    bool resume(int64_t id, const QString& slots);
    bool start(const QString& text, const QString& file, int cpuSlots) {
        return start(text, file, QString::number(cpuSlots));
    }
    bool resume(int64_t id, int cpuSlots) { return resume(id, QString::number(cpuSlots)); }
    void stop();  // asks the running sweep's coordinator to stop at the trials' next epoch
    bool isRunning() const { return running_; }
    int64_t runningId() const { return runningId_; }

    // Brings a sweep bundle's task results into the store (app/sweep/BundleImport.h: one
    // transaction, idempotent) on a background thread; answered by bundleImported: the sweep's
    // id (0 when nothing was imported) and what happened, refused files and errors included.
    void importBundle(const QString& dir);
    void refreshList();     // answered by listed
    void show(int64_t id);  // reads the sweep now and while it runs; answered by shown
    int64_t shownId() const { return shownId_; }

Q_SIGNALS:
    void specChecked(const QString& error);
    void listed(const std::vector<SweepRow>& sweeps, const QString& error);
    void shown(const SweepSnapshot& snapshot);
    void started(qint64 id);
    void finished(qint64 id, const QString& status);
    void failed(const QString& error);  // a spec that does not load, a store that cannot be read
    void specSaved(const QString& file);
    void bundleImported(qint64 id, const QString& summary);

private Q_SLOTS:
    void runQueuedCalls();

private:
    QString writeSpec(const QString& text, const QString& file);
    void launch(std::function<int64_t(RunStore&, sweep::SweepSpec&)> open, std::vector<Slot> slots);
    // `text` as slots (a bare number: that many CPU slots); emits failed and returns false
    // when it does not parse.
    bool parseSlotText(const QString& text, std::vector<Slot>& out);
    void poll();

    QString path_;
    std::shared_ptr<CallQueue> calls_;
    std::thread thread_;                   // the coordinator's
    std::atomic<int64_t> threadSweep_{0};  // the sweep it runs, once known (for the destructor)
    bool running_ = false;
    int64_t runningId_ = 0;
    int64_t shownId_ = 0;
    int listRequest_ = 0;  // the newest list read asked for; older answers are dropped
    std::shared_ptr<const sweep::SweepSpec> shownSpec_;
    bool reading_ = false;
    QTimer timer_;
};

}  // namespace nnwb
