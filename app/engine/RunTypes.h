// Small value types of a run that every driver of the run engine shares: how a Train request
// treats kept weights, progress within an epoch, how a run ended, and attention snapshots
// (immutable, shared). Plain copyable values, Qt-free; made on the run's thread, read anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/layers/Layer.h"

namespace nnwb {

// How a Train request treats weights that are already trained (a finished run, loaded weights).
enum class StartMode {
    Restart,          // fresh weights and optimizer
    ContinueCurrent,  // go on from the current weights, keeping the optimizer state
    ContinueBest      // put the best epoch's weights back first, keeping the optimizer state
};

enum class RunEnd { Completed, Stopped, Failed };

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

}  // namespace nnwb
