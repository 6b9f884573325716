// What a driver of the run engine hears from a run: its start, progress within an epoch, each
// completed epoch, the pause between epochs (where the window's worker serves its requests)
// and the run store's one warning. Called on the run's thread only, one call at a time.
#pragma once

#include <functional>
#include <string>

#include "app/engine/RunTypes.h"
#include "model/Trainer.h"

namespace nnwb {

class RunEngine;

class RunEvents {
public:
    virtual ~RunEvents() = default;
    // The run is recording and about to train its first epoch (`run` tells what it trains on).
    virtual void started(RunEngine& run) { (void)run; }
    virtual void progress(const TrainingProgress& p) { (void)p; }
    // An epoch completed: kept (best epoch, early stopping) and recorded.
    virtual void epoch(const EpochReport& report) { (void)report; }
    // After each completed epoch but the last, with the network idle: a driver may read it.
    virtual void betweenEpochs() {}
    // The run store cannot be written; the run goes on unrecorded (at most once per run).
    virtual void warning(const std::string& message) { (void)message; }
};

// RunEvents from functions, each optional: for drivers that pass the events on elsewhere (the
// window's worker as signals, the comparison runner to its callbacks).
struct RunEventHandlers : RunEvents {
    std::function<void(RunEngine&)> onStarted;
    std::function<void(const TrainingProgress&)> onProgress;
    std::function<void(const EpochReport&)> onEpoch;
    std::function<void()> onBetween;
    std::function<void(const std::string&)> onWarning;
    void started(RunEngine& run) override {
        if (onStarted) onStarted(run);
    }
    void progress(const TrainingProgress& p) override {
        if (onProgress) onProgress(p);
    }
    void epoch(const EpochReport& r) override {
        if (onEpoch) onEpoch(r);
    }
    void betweenEpochs() override {
        if (onBetween) onBetween();
    }
    void warning(const std::string& m) override {
        if (onWarning) onWarning(m);
    }
};

}  // namespace nnwb
