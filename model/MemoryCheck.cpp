#include "model/MemoryCheck.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "compute/MeasuringBackend.h"
#include "model/Network.h"
#include "model/Trainer.h"

namespace nnwb {

MemoryNeed trainingMemoryNeed(const nlohmann::json& model, const TrainingConfig& training,
                              const DataSplit& data) {
    return trainingMemoryNeed(model, std::vector<TrainingConfig>{training}, data);
}

MemoryNeed trainingMemoryNeed(const nlohmann::json& model,
                              const std::vector<TrainingConfig>& trainings, const DataSplit& data) {
    MeasuringBackend be{DeviceInfo{}};
    {
        // The real Trainer (network, loss, optimizer, staging, logs) on a backend that only
        // counts: whatever the Trainer allocates is measured, with no formula to keep in step.
        Network net(Network::layersFromJson(model), data.train.inputShape);
        Trainer trainer(be, net, trainings, data);
    }
    return {be.peakBytes(), be.largestBytes()};
}

std::string memoryText(uint64_t bytes) {
    char buf[64];
    if (bytes >= (uint64_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(uint64_t(1) << 30));
    else if (bytes >= (uint64_t(1) << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(uint64_t(1) << 20));
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    return buf;
}

void requireDeviceMemory(const MemoryNeed& need, const DeviceInfo& device, int batchSize) {
    const bool cpu = device.id == "cpu";
    const std::string dev = "'" + device.name + "' (" + device.id + ")";
    const std::string globalName = cpu ? "physical memory" : "CL_DEVICE_GLOBAL_MEM_SIZE";
    const std::string allocName = cpu ? "physical memory" : "CL_DEVICE_MAX_MEM_ALLOC_SIZE";
    const std::string what = "the network needs " + memoryText(need.totalBytes) + " (" +
                             std::to_string(need.totalBytes) +
                             " bytes) of device memory for batch size " + std::to_string(batchSize);
    if (device.globalMemory > 0 && need.totalBytes > device.globalMemory)
        throw ComputeError(what + ", but " + dev + " has " + memoryText(device.globalMemory) +
                           " (" + std::to_string(device.globalMemory) + " bytes, " + globalName +
                           "); choose a smaller network or batch size, or another device");
    if (device.maxAlloc > 0 && need.largestBytes > device.maxAlloc)
        throw ComputeError(what + "; its largest buffer needs " + memoryText(need.largestBytes) +
                           " (" + std::to_string(need.largestBytes) + " bytes), but " + dev +
                           " allows at most " + memoryText(device.maxAlloc) + " (" +
                           std::to_string(device.maxAlloc) + " bytes, " + allocName +
                           ") per buffer; choose a smaller layer or batch size, or another device");
}

}  // namespace nnwb
