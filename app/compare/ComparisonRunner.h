// The one comparison engine (the CLI's compare and the window's comparison set): one thread
// per distinct device, so runs on different devices train concurrently and runs sharing a
// device one after another (their timings stay comparable). Each run is a RunEngine run; runs
// with the same data settings read one shared, immutable data set, loaded once. A run that
// fails is recorded as failed and the others go on. run() blocks on the calling thread;
// stop(), setScoreSample() and records() may be called from any thread. Qt-free.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "app/compare/RunRecord.h"
#include "app/engine/RunTypes.h"
#include "app/runs/RunRecorder.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/TrainControl.h"

namespace nnwb {

class RunEngine;

class ComparisonRunner {
public:
    // Called on the run threads, one call at a time (under the runner's lock), so a callback
    // may print without further locking. `run` is the index of the run.
    struct Callbacks {
        std::function<void(size_t run, const RunRecord&)> started;  // network built
        std::function<void(size_t run, const TrainingProgress&)> progress;
        // an epoch completed; the record already holds it as its last epoch
        std::function<void(size_t run, const RunRecord&, const EpochReport&)> epoch;
        // after each epoch while a score sample is set (setScoreSample)
        std::function<void(size_t run, const AttentionSnapshotPtr&)> scores;
        std::function<void(size_t run, const RunRecord&)> finished;  // completed/stopped/failed
        // the run store cannot be written (given once per runner, not once per run)
        std::function<void(const std::string& message)> warning;
    };

    // `experiments[i]` is trained as `labels[i]` on its training.device for its
    // training.epochs; `data`, when given, is the split every run reads (else each distinct
    // data section is loaded once, by the first run that needs it).
    ComparisonRunner(std::vector<Experiment> experiments, std::vector<std::string> labels,
                     std::shared_ptr<const ExperimentData> data = nullptr);
    ~ComparisonRunner();
    // Records every run in the run store (each run thread with its own connection), named by
    // its label and sharing one comparison id; `files[i]` is where experiment i came from.
    // The source is options.source, "cli-compare" when left at the default.
    void setRecording(const RecordingOptions& options, std::vector<std::string> files);
    // "Model: ..." rather than "model: ..." in a failed run's error (the window's style).
    void setSentenceErrors(bool on) { sentenceErrors_ = on; }

    void run(const Callbacks& callbacks = {});
    // Keeps each run's trained network after run() (device memory held) for scoresOf().
    void setKeepRuns(bool on) { keepRuns_ = on; }
    // After run() has returned, on the thread that called it: the Score matrices of validation
    // sample `sample` for run `run`'s last weights; null when not kept or nothing to show.
    AttentionSnapshotPtr scoresOf(size_t run, int sample);
    void stop(size_t run);  // an index past the runs is ignored
    void stopAll();
    // Which validation sample the runs' attention snapshots show; -1: none (the default).
    void setScoreSample(int sample) { scoreSample_.store(sample); }
    std::vector<RunRecord> records() const;

private:
    void trainOne(size_t i, const Callbacks& cb);
    std::shared_ptr<const ExperimentData> dataFor(const Experiment& e);

    std::vector<Experiment> experiments_;
    std::shared_ptr<const ExperimentData> data_;
    std::vector<std::shared_ptr<TrainControl>> controls_;
    mutable std::mutex mutex_;  // guards records_ and serialises the callbacks
    std::vector<RunRecord> records_;
    std::mutex dataMutex_;  // guards loaded_
    std::map<std::string, std::shared_ptr<const ExperimentData>> loaded_;
    RecordingOptions recording_;
    std::vector<std::string> files_;
    bool warned_ = false;  // guarded by mutex_
    bool sentenceErrors_ = false;
    bool keepRuns_ = false;
    std::vector<std::unique_ptr<RunEngine>> kept_;  // with keepRuns_; each written by its run
    std::atomic<int> scoreSample_{-1};
};

}  // namespace nnwb
