// Walk-forward validation (validation.mode "walkforward") on the one run engine: the price
// file loaded and its folds planned once (model/FoldData.h), then per fold a RunEngine trains
// on the fold's own data (best epoch and early stopping on the fold's early-stopping
// validation), the run's result (the best epoch's weights with keepBest) predicts the fold's
// test window, and the test predictions are stitched into one out-of-sample SignalSeries with
// metrics over all of it. Each fold is recorded as a run ("<name> fold k/N") unless recording
// is off. nnwb-cli walkforward and train drive it; the window's worker can. Qt-free; create,
// use and destroy it on one thread (the one that trains).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/engine/RunEngine.h"
#include "app/engine/RunEvents.h"
#include "app/engine/RunTypes.h"
#include "app/runs/RunRecorder.h"
#include "model/Experiment.h"
#include "model/FoldData.h"
#include "model/Metrics.h"
#include "model/TrainControl.h"
#include "model/data/FoldPlan.h"
#include "model/trading/SignalSeries.h"

namespace nnwb {

// What one fold gave. Periods are bar indices (Fold) and the open times of their first and last
// bars; figures of an empty part are zero (samples 0).
struct FoldRecord {
    size_t index = 0;  // 0-based; the user sees index + 1 of `folds`
    size_t folds = 0;
    Fold fold;
    int64_t trainFrom = 0, trainTo = 0;            // the fitted samples
    int64_t validationFrom = 0, validationTo = 0;  // early-stopping validation (0: none)
    int64_t testFrom = 0, testTo = 0;
    RunEnd end = RunEnd::Completed;
    std::string error;          // a failed fold: why
    int epochs = 0;             // epochs trained
    int bestEpoch = 0;          // the epoch whose weights predicted the test window (0: none)
    bool stoppedEarly = false;  // by early stopping
    bool hasValidation = false;
    EpochMetrics train;       // the fitted samples at bestEpoch
    EpochMetrics validation;  // the early-stopping validation at bestEpoch
    EpochMetrics test;        // the test window with bestEpoch's weights
    int64_t runId = 0;        // the fold's run in the run store (0: not recorded)
    std::string name;         // the fold's run name, "<experiment> fold k/N"
};

struct WalkForwardResult {
    RunEnd end = RunEnd::Completed;  // Failed or Stopped: at the first fold that was
    std::string error;               // "fold k/N: ..." when failed
    std::vector<FoldRecord> folds;   // the folds that ran, in order
    // The test predictions of the completed folds, in bar order (bar indices of the loaded
    // file, WalkForward::data().bars), and the task metrics over all of them.
    SignalSeries outOfSample;
    EpochMetrics stitched;
};

// What a driver hears: the RunEvents of each fold's run (started, progress, epochs, ...) and
// the folds' starts and ends. On the walk-forward's thread, one call at a time.
class WalkForwardEvents : public RunEvents {
public:
    // `record` has the fold's periods, nothing trained yet.
    virtual void foldStarted(const FoldRecord& record) { (void)record; }
    // Also for a failed or stopped fold (record.end says which).
    virtual void foldEnded(const FoldRecord& record) { (void)record; }
};

// One fold's outcome: its record and, when it completed, its test window's outputs and targets
// (3 per sample) from the fold's test bar on, what stitching needs. A fold can run in another
// process (`nnwb-cli walkforward --fold K`) and send this back.
struct FoldOutcome {
    FoldRecord record;
    std::vector<float> outputs, targets;
    size_t testFirstBar = 0;
    // Under cpcv: the test figures of each of the split's test groups, in test-group order.
    std::vector<EpochMetrics> groupTest;
};

class WalkForward {
public:
    // Loads the price file and plans the folds (whatever e.validation.mode says). Throws
    // DataLoadError with "FILE:LINE: ...", "data.KEY: ..." or "validation.KEY: ...".
    explicit WalkForward(const Experiment& e);

    const Experiment& experiment() const { return experiment_; }
    const WalkForwardData& data() const { return data_; }
    const FoldPlan& plan() const { return data_.plan; }

    // Trains and tests every fold in order (a cpcv plan fails: app/engine/Cpcv.h runs it). A fold
    // whose run fails or is stopped ends the walk-forward there (the result keeps the folds before
    // it). Throws what RunEngine's constructor throws for a fold (ComputeError, ShapeError,
    // TrainingError, DataLoadError).
    WalkForwardResult run(const RecordingOptions& recording, WalkForwardEvents& events,
                          TrainControl* control = nullptr);

    // Fold k (0-based) alone, as run() trains and tests it (events.foldStarted and foldEnded
    // included). Throws what run() throws.
    FoldOutcome runFold(size_t k, const RecordingOptions& recording, WalkForwardEvents& events,
                        TrainControl* control = nullptr);
    // Fold k's record before it trains (periods, name "<name> fold k/N" or `name`'s).
    FoldRecord plannedRecord(size_t k, const std::string& name = {}) const;
    // The folds' outcomes, in fold order, stitched as run() does: up to and including the first
    // fold that did not complete (its end and "fold k/N: error" become the result's).
    static WalkForwardResult stitch(const std::vector<FoldOutcome>& outcomes);

private:
    std::vector<EpochMetrics> testGroupMetrics(Trainer& trainer, const SampleSet& test,
                                               size_t k) const;
    Experiment experiment_;
    WalkForwardData data_;
};

// "<name> fold k/N" (k 1-based), the run name of a fold.
std::string foldRunName(const std::string& name, size_t index, size_t folds);

}  // namespace nnwb
