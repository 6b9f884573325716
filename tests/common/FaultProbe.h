// Finds a value for NNWB_CL_FAIL_AFTER that makes an OpenCL run of an experiment fail in the
// middle of its second epoch, by training it once on the device and counting enqueues; also
// returns the weights after the first epoch (what a failed run must keep). Test main thread.
#pragma once

#include <cstdint>
#include <string>

#include "model/Experiment.h"
#include "model/Safetensors.h"

namespace nnwb::test {

struct FaultProbe {
    uint64_t failAt = 0;      // an enqueue halfway through epoch 2
    TensorMap epoch1Weights;  // the network's weights after epoch 1
};

// Trains two epochs of `experiment` on OpenCL device `id` (throws on failure).
FaultProbe probeMidEpochFault(const Experiment& experiment, const std::string& id);

}  // namespace nnwb::test
