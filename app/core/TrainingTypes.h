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
#include "model/layers/Layer.h"

namespace nnwb {

// Sent once when a run has built its network on the device.
struct RunInfo {
    QString deviceId;         // "cpu", "opencl:0:0"
    QString deviceName;       // e.g. "CPU (native)" or the OpenCL device name
    QString dataDescription;  // from loadExperimentData
    size_t parameters = 0;
    size_t trainSamples = 0, validationSamples = 0;
    int epochs = 0;             // epochs this run will train
    int64_t recordedRunId = 0;  // its id in the run store; 0 when it is not recorded
    Shape input;
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
    int epoch = 0;                 // epochs trained when it was read
    int sample = 0;                // validation sample index
    size_t validationSamples = 0;  // how many there are (for the sample picker)
    std::vector<AttentionScores> layers;
};
using AttentionSnapshotPtr = std::shared_ptr<const AttentionSnapshot>;

enum class RunEnd { Completed, Stopped, Failed };

}  // namespace nnwb
