// The comparison set of the window and its runs, trained by the one comparison engine
// (ComparisonRunner, as nnwb-cli compare: the runs of one device in turn, devices in parallel,
// each distinct data set loaded once) on a thread of its own; each run stoppable on its own, a
// run that fails ends alone. Keeps every run's RunRecord up to date from the runner's reports
// and saves / opens the set as one file. Lives on and is used from the GUI thread only.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <QObject>
#include <QString>

#include "app/compare/ComparisonRunner.h"
#include "app/compare/ComparisonSet.h"
#include "app/core/CallQueue.h"
#include "app/core/MetaTypes.h"
#include "app/runs/RunRecorder.h"

namespace nnwb {

class ComparisonController : public QObject {
    Q_OBJECT
public:
    explicit ComparisonController(QObject* parent = nullptr);
    ~ComparisonController() override;

    const ComparisonSet& set() const { return set_; }
    int runCount() const { return static_cast<int>(set_.runs.size()); }
    const RunRecord& record(int run) const { return set_.runs.at(size_t(run)).record; }
    std::vector<RunRecord> records() const { return set_.records(); }
    bool isBusy() const;
    bool isRunning(int run) const;
    QString filePath() const { return filePath_; }
    // The last Score matrices of a run (null before its first epoch or for a stack without
    // attention), kept so that a rebuilt view shows them again.
    AttentionSnapshotPtr scores(int run) const;

    // Edits of the set, refused (false / -1) while a run is going.
    int addRun(const Experiment& experiment, const QString& file, const QString& device = {});
    bool removeRun(int run);
    bool setDevice(int run, const QString& device);
    bool setEpochs(int epochs);  // 0: each experiment's own

    // Starts every run, each on its own worker thread; false when busy or the set is empty,
    // and false with `error` set (nothing restarted, the runs' histories kept) when a run's
    // experiment is an ensemble (comparisonEnsembleRefusal, nnwb-cli compare's words).
    bool start(QString* error = nullptr);
    void stop(int run);
    void stopAll();
    // Where the runs are recorded (name, source, comparison id and file are set per run);
    // default: not recorded.
    void setRecording(const RecordingOptions& options) { recording_ = options; }
    // Which validation sample the runs' attention snapshots show.
    void requestScores(int sample);

    bool save(const QString& path, QString* error);
    // Replaces the set; on failure returns false with the message and changes nothing.
    bool open(const QString& path, QString* error);
    // Stops every run and ends the worker threads; waits for them. Idempotent.
    void shutdown();

Q_SIGNALS:
    void runsChanged();        // runs added, removed or replaced (open)
    void runChanged(int run);  // status, device or figures of one run
    void runProgress(int run, const nnwb::TrainingProgress& progress);
    void epochFinished(int run, const nnwb::EpochReport& report);
    void attentionReady(int run, const nnwb::AttentionSnapshotPtr& snapshot);
    void runFinished(int run, nnwb::RunEnd end, const QString& message);
    void allFinished();
    void recordingWarning(const QString& message);  // the run store cannot be written

private Q_SLOTS:
    void runQueuedCalls() { calls_.run(); }

private:
    // The runner's thread: trains every run, then serves score requests until ended.
    void runAndServe(std::shared_ptr<ComparisonRunner> runner);
    ComparisonRunner::Callbacks callbacks();
    void runEnded(size_t run, const RunRecord& record);
    void endThread();

    ComparisonSet set_;
    std::vector<AttentionSnapshotPtr> scores_;  // one per run, same order
    QString filePath_;
    RecordingOptions recording_ = RecordingOptions::none();
    int started_ = 0;  // comparisons started, for their ids
    bool busy_ = false;
    int scoreSample_ = 0;
    std::shared_ptr<ComparisonRunner> runner_;
    std::thread thread_;
    // Score requests for the runner's thread once its runs are done; `ending_` ends it.
    std::mutex requestMutex_;
    std::condition_variable requested_;
    std::deque<int> requests_;
    bool ending_ = false;
    CallQueue calls_{this, "runQueuedCalls"};
};

}  // namespace nnwb
