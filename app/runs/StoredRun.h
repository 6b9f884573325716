// What the run store keeps of one training run: who/what/where it trained, how it ended, every
// epoch's figures and its model bundles. Plain value types, read from and written to the
// database by RunStore; copied freely between threads. Qt-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/Trainer.h"

namespace nnwb {

// Run statuses as stored (the `status` column).
namespace runstatus {
inline constexpr const char* kRunning = "running";
inline constexpr const char* kCompleted = "completed";
inline constexpr const char* kStopped = "stopped";
inline constexpr const char* kStoppedEarly = "stopped_early";
inline constexpr const char* kFailed = "failed";
inline constexpr const char* kInterrupted = "interrupted";  // the process died while it ran
}  // namespace runstatus

struct StoredEpoch {
    EpochReport report;
    std::optional<double> learningRate;  // the rate the epoch trained with
};

// A model file of a run, in the store's folder beside the database.
struct StoredBundle {
    std::string kind;    // "best" or "last"
    std::string path;    // absolute (the database keeps it relative to its folder)
    std::string sha256;  // of the file's content
    uint64_t size = 0;   // bytes
    int epoch = 0;       // the epoch whose weights it holds
};

struct StoredRun {
    int64_t id = 0;
    std::string uuid;              // names the run across the store and its side file
    std::string name, tags, note;  // tags: comma-separated
    std::string source;            // cli-train, cli-compare, window, window-compare
    std::string comparison;        // shared by the runs of one comparison; empty otherwise
    nlohmann::json experiment;     // the experiment as trained
    std::string experimentFile;    // where it was opened from; empty if unsaved
    std::string dataFile, dataSha256, dataFirstBar, dataLastBar, dataDescription;
    int64_t dataSize = 0, dataBars = 0;
    std::string deviceId, deviceName;
    uint64_t seed = 0;
    std::string appVersion;
    int64_t parameters = 0, trainSamples = 0, validationSamples = 0;
    int epochsPlanned = 0;
    std::string startedAt, endedAt;  // UTC, YYYY-MM-DDTHH:MM:SSZ; endedAt empty while running
    std::string status = runstatus::kRunning;
    std::string error;  // why it failed or was interrupted
    std::string host;
    int64_t pid = 0;
    double heartbeatAt = 0.0;
    std::optional<int> bestEpoch;
    std::string monitor;  // what best means, e.g. "validation loss"
    // The trading figures of the validation part with the best epoch's weights
    // (app/engine/RunTrading.h: range, point, spreadFrom, strategy, buyAndHold, random, epoch,
    // settings) or {"error": why they could not be computed}; null when none were computed
    // (synthetic data, no validation part, a failed run, a run recorded before schema 4).
    nlohmann::json trading;

    // An ensemble (docs/ensembles.md): the ensemble run a member's run belongs to (0: none),
    // and how many member runs an ensemble's run has (0 for any other run).
    int64_t ensembleRun = 0;
    int ensembleMembers = 0;

    // Summary over the epochs (filled by RunStore::list and get).
    int epochsDone = 0;
    // bestValAccuracy: over the epochs with kMinSignalsForAccuracy validation signals or more
    // (model/FigureText.h); bestValAccuracySignals: that epoch's signals, else the most of any.
    std::optional<double> bestValLoss, bestValAccuracy, bestValMissed;
    std::optional<size_t> bestValAccuracySignals;

    // Filled by RunStore::get only.
    std::vector<StoredEpoch> epochs;
    std::vector<StoredBundle> bundles;

    bool hasValidation() const { return validationSamples > 0; }
    const StoredBundle* bundle(const std::string& kind) const {
        for (const StoredBundle& b : bundles)
            if (b.kind == kind) return &b;
        return nullptr;
    }
};

// "stopped early" for "stopped_early"; other statuses as stored.
std::string runStatusLabel(const std::string& status);
// The best validation accuracy with its signals: "55.00 (40)", "n/a (3)" (no epoch had enough
// signals, model/FigureText.h), "–" without task figures.
std::string bestValAccuracyCell(const StoredRun& run);

}  // namespace nnwb
