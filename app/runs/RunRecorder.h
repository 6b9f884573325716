// Records one training run into the run store, from the thread that owns the run (the CLI, a
// comparison run thread, a training worker): begin() when the network is built, epoch() after
// each epoch, bundle() for the best and last weights, finish() with the status. Every write is
// a short transaction on the recorder's own connection. A store that cannot be opened or
// written (read-only, locked, corrupt) gives one warning through the callback; from then on the
// run (all of it, from its start) is kept in a side file beside the database (PendingRun.h),
// which the next RunStore that opens the store for writing imports; training goes on. Create,
// use and destroy it on one thread. Qt-free.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/runs/PendingRun.h"
#include "app/runs/RunStore.h"
#include "compute/Backend.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/WeightsSnapshot.h"

namespace nnwb {

// How (and whether) a run is recorded; a plain value handed to the run's thread.
struct RecordingOptions {
    bool enabled = true;
    std::string dbPath;  // empty: runsDbPath() ($NNWB_RUNS_DB, XDG, ~/.local/share/nnwb)
    std::string name;    // empty: the experiment's name
    std::string tags, note;
    std::string source = "cli-train";  // cli-train, cli-compare, cli-walkforward, window, ...
    std::string comparison;            // id shared by the runs of one comparison
    std::string experimentFile;        // where the experiment was opened from
    static RecordingOptions none() {   // records nothing
        RecordingOptions o;
        o.enabled = false;
        return o;
    }
};

// The app version runs and bundles are stamped with.
const char* nnwbVersion();
// A new run's uuid: 256 random bits as 64 hex digits.
std::string newRunUuid();
// The run row RunRecorder::begin() stores (all but uuid, host, pid and start time): names,
// experiment, the data file's path, sha256, size and bars, device, sizes, the monitor's name
// ("" : validation or training loss). The sweep coordinator stores trial runs from it too.
// Throws when the data file cannot be read. `hashFile` hashes the data file (sha256File; a
// sweep's kept worker passes its cache, TrialWorker.h).
using FileHasher = std::string (*)(const std::string& path, uint64_t* size);
StoredRun recordedRunRow(const RecordingOptions& options, const Experiment& experiment,
                         const ExperimentData& data, const DeviceInfo& device, size_t parameters,
                         int epochsPlanned, const std::string& monitor = {},
                         FileHasher hashFile = nullptr);

class RunRecorder {
public:
    using Warn = std::function<void(const std::string& message)>;
    RunRecorder(RecordingOptions options, Warn warn);
    // A run begun and not finished ends as stopped.
    ~RunRecorder();
    RunRecorder(const RunRecorder&) = delete;
    RunRecorder& operator=(const RunRecorder&) = delete;

    // Whether the run goes into the store itself (false once it is kept in a side file).
    bool recording() const { return store_ != nullptr && id_ > 0 && !disabled_; }
    // The side file the run is kept in since the store failed; empty while it is not.
    std::string sideFile() const;
    // The run's id in the store (0 before begin() stored it); kept after a failed write.
    int64_t runId() const { return id_; }
    const std::string& dbPath() const { return path_; }

    // `data` must outlive the recorder (bundles read its settings); `monitor` names what the
    // best epoch is best at (monitorName()).
    void begin(const Experiment& experiment, const ExperimentData& data, const DeviceInfo& device,
               size_t parameters, int epochsPlanned, const std::string& monitor = {});
    // Stores the epoch with its learning rate. The best epoch is the report's (EpochKeeper's)
    // when it has one, else the lowest validation loss (training loss without validation).
    void epoch(const EpochReport& report);
    // Whether the last epoch given to epoch() is the best so far.
    bool lastIsBest() const { return lastIsBest_; }
    std::optional<int> bestEpoch() const { return bestEpoch_; }
    // Renews the heartbeat, at most every few seconds (call it as often as convenient).
    void heartbeat();
    // Writes `weights` as the run's `kind` ("best" or "last") model file beside the database:
    // a model bundle (weights, data settings, statistics) for a price file, else a plain
    // weights file. `model`: the network's JSON (Network::toJson()).
    void bundle(const std::string& kind, const WeightsSnapshot& weights,
                const nlohmann::json& model);
    // Whether what the run gives still goes somewhere (the store or its side file): begun,
    // not finished, recording enabled.
    bool active() const {
        return started_ && !finished_ && (recording() || pending_ || heldInMemory_);
    }
    // Stores the run's trading figures (StoredRun::trading); call before finish().
    void trading(const nlohmann::json& figures);
    // status: one of runstatus::*; error: why it failed.
    void finish(const std::string& status, const std::string& error = {});

private:
    // The store failed: warn once and keep the whole run in a side file from now on; when no
    // side file can be written either (a full disk), hold the run in memory until finish().
    void keepAside(const std::exception& e);
    // Writes the whole run so far into a new side file (pending_); throws, leaving no file.
    void writeAside();
    // Deletes the side file after a failed write; the run is then held in memory.
    void dropSideFile();
    // At finish(): a run held in memory is written aside again, else the warning says exactly
    // what was lost.
    void retryAside();
    // Runs a write to the side file; a failure there warns (once more) and ends recording.
    template <typename F>
    void toSideFile(F&& write);
    void warnOnce(const std::string& message);
    RecordingOptions options_;
    Experiment experiment_;
    const ExperimentData* data_ = nullptr;
    Warn warn_;
    std::string path_;
    std::unique_ptr<RunStore> store_;
    std::unique_ptr<PendingRunFile> pending_;
    // All of the run so far, for the side file should the store fail.
    StoredRun row_;
    std::vector<StoredEpoch> epochs_;
    std::vector<StoredBundle> bundles_;
    nlohmann::json trading_;
    std::string status_, error_;
    int64_t id_ = 0;
    bool started_ = false;
    bool finished_ = false;
    bool warned_ = false;
    bool disabled_ = false;
    // Neither the store nor a side file took the run: it is in row_, epochs_, ... only.
    bool heldInMemory_ = false;
    size_t storedEpochs_ = 0;              // epochs the store took
    std::vector<std::string> lostModels_;  // model files not written while held in memory
    bool hasValidation_ = false;
    std::optional<int> bestEpoch_;
    double bestValue_ = 0.0;
    bool lastIsBest_ = false;
    std::chrono::steady_clock::time_point lastBeat_;
};

}  // namespace nnwb
