// Trains the runs of a comparison headless (the CLI): one std::thread per distinct device, so
// runs on different devices train concurrently and runs sharing a device one after another
// (their timings stay comparable). All runs read one shared, immutable data split. A run that
// fails is recorded as failed and the others go on. Each run is also recorded in the run store
// (setRecording) from its own thread. run() blocks on the calling thread; stop()
// and records() may be called from any thread. Qt-free.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "app/compare/RunRecord.h"
#include "app/runs/RunRecorder.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/TrainControl.h"

namespace nnwb {

class ComparisonRunner {
public:
    // Called on the run threads, one call at a time (under the runner's lock), so a callback
    // may print without further locking. `run` is the index of the run.
    struct Callbacks {
        std::function<void(size_t run, const RunRecord&)> started;  // network built
        // an epoch completed; the record already holds it as its last epoch
        std::function<void(size_t run, const RunRecord&, const EpochReport&)> epoch;
        std::function<void(size_t run, const RunRecord&)> finished;  // completed/stopped/failed
        // the run store cannot be written (given once per runner, not once per run)
        std::function<void(const std::string& message)> warning;
    };

    // `experiments[i]` is trained as `labels[i]` on its training.device for its
    // training.epochs; `data` is the split every run reads.
    ComparisonRunner(std::vector<Experiment> experiments, std::vector<std::string> labels,
                     std::shared_ptr<const ExperimentData> data);
    // Records every run in the run store (each run thread with its own connection), named by
    // its label and sharing one comparison id; `files[i]` is where experiment i came from.
    void setRecording(const RecordingOptions& options, std::vector<std::string> files);

    void run(const Callbacks& callbacks = {});
    void stop(size_t run);
    std::vector<RunRecord> records() const;

private:
    void trainOne(size_t i, const Callbacks& cb);

    std::vector<Experiment> experiments_;
    std::shared_ptr<const ExperimentData> data_;
    std::vector<std::shared_ptr<TrainControl>> controls_;
    mutable std::mutex mutex_;  // guards records_ and serialises the callbacks
    std::vector<RunRecord> records_;
    RecordingOptions recording_;
    std::vector<std::string> files_;
    bool warned_ = false;  // guarded by mutex_
};

}  // namespace nnwb
