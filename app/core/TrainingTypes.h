// Small value types the training worker sends to the GUI thread through queued signals: what a
// run is training on, progress within an epoch, attention snapshots (immutable, shared) and how
// a run ended. Plain copyable values; created on the worker thread, read on any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <QString>

#include "model/Shape.h"
#include "model/data/BarSeries.h"
#include "model/data/Fractals.h"
#include "model/layers/Layer.h"

namespace nnwb {

// Sent once when a run has built its network on the device.
struct RunInfo {
    QString deviceId;         // "cpu", "opencl:0:0"
    QString deviceName;       // e.g. "CPU (native)" or the OpenCL device name
    QString dataDescription;  // from loadExperimentData
    size_t parameters = 0;
    size_t trainSamples = 0, validationSamples = 0;
    int epochs = 0;      // the last epoch this run will train (numbering goes on when continued)
    int firstEpoch = 1;  // > 1 when the run continues an earlier one
    bool continued = false;
    int64_t recordedRunId = 0;  // its id in the run store; 0 when it is not recorded
    Shape input;
    // Price-file runs: the loaded bars (shared, read-only), the fractal rule and the bar
    // indices of each part's samples (last bar of each window; first > last: empty part).
    std::shared_ptr<const BarSeries> bars;
    FractalRule fractalRule = FractalRule::ThreeBar;
    size_t trainFirstBar = 0, trainLastBar = 0, validationFirstBar = 1, validationLastBar = 0;
};

// How a Train request treats weights that are already trained (a finished run, loaded weights).
enum class StartMode {
    Restart,          // fresh weights and optimizer
    ContinueCurrent,  // go on from the current weights, keeping the optimizer state
    ContinueBest      // put the best epoch's weights back first, keeping the optimizer state
};

// Progress within the current epoch plus an estimate for the whole run.
struct TrainingProgress {
    int epoch = 0, epochs = 0;   // 1-based epoch being trained, epochs of the run
    size_t done = 0, total = 0;  // training samples of this epoch
    double samplesPerSecond = 0.0;
    double epochEtaSeconds = 0.0;  // rest of this epoch
    double runEtaSeconds = 0.0;    // rest of the run (estimate)
};

// The Score matrices of every attention layer for one validation sample.
struct AttentionSnapshot {
    int epoch = 0;                 // the epoch whose weights it shows
    bool bestEpoch = false;        // that epoch is the run's best so far
    int sample = 0;                // validation sample index
    size_t validationSamples = 0;  // how many there are (for the sample picker)
    int64_t sampleTime = 0;        // open time of the sample's last bar (0: not a price file)
    int windowBars = 0;            // bars per sample of a price file (0: synthetic data)
    std::vector<float> outputs;    // what the metrics see for the sample ([none, buy, sell])
    std::vector<float> target;     // its target (one-hot; buy and sell both set for "both")
    std::vector<AttentionScores> layers;
};
using AttentionSnapshotPtr = std::shared_ptr<const AttentionSnapshot>;

enum class RunEnd { Completed, Stopped, Failed };

}  // namespace nnwb
