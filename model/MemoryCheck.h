// Checks, before training starts, that a run fits the device: the buffers the Trainer would
// allocate (activations, parameters, gradients, optimizer state, loss, staging, logs) are
// measured by building the real Trainer on a MeasuringBackend, then compared with the
// device's global memory and largest single allocation. Pure host work; any thread.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "compute/Backend.h"
#include "model/Experiment.h"
#include "model/SampleSet.h"

namespace nnwb {

struct MemoryNeed {
    uint64_t totalBytes = 0;    // held at once during training
    uint64_t largestBytes = 0;  // the largest single buffer
};

// What Trainer(backend, net, training, data) allocates for `model`: the Trainer itself is built
// on a MeasuringBackend. Throws what the Trainer's constructor throws (TrainingError, ShapeError).
MemoryNeed trainingMemoryNeed(const nlohmann::json& model, const TrainingConfig& training,
                              const DataSplit& data);
// The same for a population's Trainer (one config per model).
MemoryNeed trainingMemoryNeed(const nlohmann::json& model,
                              const std::vector<TrainingConfig>& trainings, const DataSplit& data);

// Throws ComputeError naming the needed bytes and the device's limits when `need` does not fit
// `device` (global memory, or the largest single allocation). A device reporting 0 for a limit
// is not checked against it.
void requireDeviceMemory(const MemoryNeed& need, const DeviceInfo& device, int batchSize);

// "1234 bytes", "12.3 MiB", "4.0 GiB".
std::string memoryText(uint64_t bytes);

}  // namespace nnwb
