// The one run engine: a training run from settings to stored result. It prepares the run (the
// data, loaded once or shared; the backend; the memory check; network and Trainer), holds the
// one epoch loop (epochs, best epoch and early stopping, recording, failure classification,
// end status) and keeps the result's weights. nnwb-cli train, the window's training worker and
// every comparison run drive it. A population (docs/decisions/population.md) is one engine of P
// members trained in the same launches, each kept, stopped early and recorded as its own run.
// Qt-free; create, use and destroy it on one thread.
#pragma once

#include <memory>
#include <string>

#include "app/engine/RunEvents.h"
#include "app/engine/RunTypes.h"
#include "app/runs/RunRecorder.h"
#include "model/EpochKeeper.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/ModelBundle.h"
#include "model/TrainControl.h"
#include "model/TrainingSession.h"

namespace nnwb {

// How one call of RunEngine::train ended.
struct RunResult {
    RunEnd end = RunEnd::Completed;
    bool stoppedEarly = false;  // completed by early stopping
    std::string error;          // a failed run: what failed, classified ("device: ...")
    std::string rawError;       // the same, unclassified (the exception's text)
};

class RunEngine {
public:
    // Prepares a run of `experiment`: loads its data unless `data` is given, creates the
    // backend for training.device unless `backend` is given (a sweep's kept worker), checks the
    // device's memory, builds network and Trainer.
    // Throws DataLoadError, ComputeError, ShapeError or TrainingError (TrainingSession).
    explicit RunEngine(const Experiment& experiment,
                       std::shared_ptr<const ExperimentData> data = nullptr,
                       std::shared_ptr<Backend> backend = nullptr);
    // A population of members.size() models (model/PopulationCheck.h says which may differ).
    // Every member is recorded as its own run (RecordingOptions::name gets " [model m]" when
    // the members share a name); a member that stops early or diverges is masked out of the
    // updates while the others go on. Not with checkpoints or the Continue modes.
    explicit RunEngine(const std::vector<Experiment>& members,
                       std::shared_ptr<const ExperimentData> data = nullptr,
                       std::shared_ptr<Backend> backend = nullptr);
    RunEngine(const RunEngine&) = delete;
    RunEngine& operator=(const RunEngine&) = delete;

    // Trains `epochs` epochs: the one epoch loop. Restart trains the fresh network; the
    // Continue modes go on from the kept network, optimizer and epoch numbering (ContinueBest
    // puts the best epoch's weights back first). The run is recorded as `recording` says, its
    // end status mapped here once; a continued run's record starts with the epochs this engine
    // trained before (not a checkpoint's: a resumed run records from the checkpoint on). A failed
    // run keeps the last good weights (host copies, and put back on the device when it still
    // answers). `sentenceErrors`: "Device: ..." rather than "device: ..." in RunResult::error.
    RunResult train(int epochs, StartMode mode, const RecordingOptions& recording,
                    RunEvents& events, TrainControl* control = nullptr,
                    bool sentenceErrors = false);

    // Why `next` cannot continue this run (the one rule of app/engine/ContinueRule.h, plus a
    // failed last run or released compute objects); empty when it can.
    std::string continueRefusal(const Experiment& next) const;

    // Loads a weights file (safetensors or a model bundle) into the network; the loaded weights
    // become the result, named by `epoch` (-1: the bundle's epoch, 0 for plain weights).
    // Throws on an unreadable file or a name or shape that does not match.
    void adoptWeightsFile(const std::string& path, int epoch = -1);
    // The same from weights in memory (`tensors` named as in a weights file, as
    // EnsembleBundle::weights holds a member's), from epoch `epoch`. Throws
    // std::invalid_argument on a name or shape that does not match.
    void adoptWeights(const TensorMap& tensors, int epoch);

    // Checkpoints (model/TrainCheckpoint.h). With a file set, train() writes one after every
    // completed epoch (atomically: a kill or SIGTERM loses at most the epoch in flight).
    void setCheckpointFile(const std::string& path) { checkpointFile_ = path; }
    // Puts the run back where the checkpoint left it (weights, optimizer, schedule, dropout,
    // best epoch, early stopping); train(N - epoch, ContinueCurrent, ...) then trains exactly
    // the epochs the uninterrupted run would have. Returns the checkpoint's epoch. Throws
    // CheckpointError (another experiment, a damaged file).
    int resumeFromCheckpoint(const std::string& path);
    // What a checkpoint of this run is keyed by: the SHA-256 of the experiment without its
    // device (a requeued task may get another GPU).
    std::string checkpointFingerprint() const;

    // The Score matrices of validation sample `sample` (clamped) with the latest weights, or
    // the best epoch's when `ofBest`; null when the stack has none or nothing trained yet.
    AttentionSnapshotPtr attentionSnapshot(int sample, bool ofBest);

    // Frees the device objects (network, trainer, backend); the experiment and the kept host
    // copies of the weights stay (saving them still works).
    void releaseCompute() { session_.reset(); }
    bool hasCompute() const { return session_ != nullptr; }

    const Experiment& experiment() const { return members_.front().experiment; }
    int models() const { return static_cast<int>(members_.size()); }
    // A population member's experiment, keeper, recorded run, trading figures and end.
    const Experiment& experimentOf(int m) const { return member(m).experiment; }
    const EpochKeeper& keeperOf(int m) const { return member(m).keeper; }
    int64_t recordedRunIdOf(int m) const { return member(m).runId; }
    const nlohmann::json& tradingOf(int m) const { return member(m).trading; }
    const RunResult& resultOf(int m) const { return member(m).result; }
    // Whether member m still trains in the current train() call.
    bool memberOpen(int m) const { return member(m).open; }
    // Ends member m of a population as stopped now (a sweep's prune or stop between epochs,
    // from RunEvents::betweenEpochs): masked out of the updates as early stopping masks it,
    // its kept epochs stay; the others go on. train() returns when no member is left.
    void stopMember(int m);
    const ExperimentData& data() const { return *data_; }
    std::shared_ptr<const ExperimentData> sharedData() const { return data_; }
    // Only while hasCompute().
    TrainingSession& session() { return *session_; }
    Network& network() { return session_->network(); }
    Trainer& trainer() { return session_->trainer(); }
    const EpochKeeper& keeper() const { return members_.front().keeper; }
    bool failed() const { return failed_; }
    // The last epoch of the current (or last) train() call and its first.
    int epochsWanted() const { return epochsWanted_; }
    int firstEpoch() const { return firstEpoch_; }
    int64_t recordedRunId() const { return members_.front().runId; }
    // The trading figures of the last train() (StoredRun::trading's form), computed at its end
    // whether or not the run is recorded; null when there was nothing to trade (a failed run,
    // synthetic data, no validation part, no epoch kept).
    const nlohmann::json& trading() const { return members_.front().trading; }
    // The same with its per-bar return series ("returnSeries", app/runs/RunReturns.h), as a
    // recorded run stores it and a sweep trial reports it.
    const nlohmann::json& tradingWithReturns(int m = 0) const { return member(m).tradingFull; }
    // The model bundle of member m's result (the best epoch's weights with keepBest, else the
    // last good epoch's) with the data settings and statistics: the one place a run's bundle is
    // made. Throws ModelBundleError for synthetic data, std::logic_error when no epoch is kept.
    ModelBundle resultBundle(int m = 0);

private:
    // One model of the run (a single run has one): what it trains, what it keeps, how it ended.
    struct Member {
        Experiment experiment;
        EpochKeeper keeper;  // host copies of the last good and the best epoch, early stopping
        std::unique_ptr<RunRecorder> recorder;  // during train()
        // The epochs the kept weights trained through in this engine (since the last Restart
        // or adopted file; without validation outputs): a continued run records them first.
        std::vector<EpochReport> trained;
        int64_t runId = 0;
        nlohmann::json trading;      // figures only
        nlohmann::json tradingFull;  // with the return series
        RunResult result;
        bool open = false;  // still training in this train() call
    };
    const Member& member(int m) const { return members_.at(static_cast<size_t>(m)); }
    // The network's weights, just loaded, become the result named by `epoch`.
    void adoptLoaded(int epoch);
    // Ends the members still open with `result` (the trading figures of all of them from one
    // pass, recorded or not), the single mapping from how a run ended to its stored status;
    // returns model 0's.
    RunResult finish(const RunResult& result);
    RunResult fail(const std::exception& e, bool sentenceErrors);
    // Member m failed on its own (a population's diverged model): masked out of the updates,
    // recorded failed at the end.
    void failMember(Member& mb, const std::string& error, bool sentenceErrors);
    // Starts every member's recording (train()'s first step after the checks).
    void beginRecording(const RecordingOptions& recording, RunEvents& events);
    // The one epoch loop, from events.started to finish().
    RunResult epochLoop(RunEvents& events, TrainControl* control, bool sentenceErrors);
    // Checkpoints, records and reports a kept epoch of `mb`; masks it when it stopped early.
    void recordEpoch(Member& mb, const EpochReport& report, RunEvents& events);
    // Keeps a population member's epoch; false when it failed (it trains no more).
    bool afterEpoch(Member& mb, EpochReport& report, bool sentenceErrors);

    std::vector<Member> members_;
    std::shared_ptr<const ExperimentData> data_;
    std::unique_ptr<TrainingSession> session_;
    bool failed_ = false;
    int epochsWanted_ = 0;
    int firstEpoch_ = 1;
    std::string checkpointFile_;
    bool resumed_ = false;  // the next train() goes on from a checkpoint
};

}  // namespace nnwb
