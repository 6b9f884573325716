#include "compute/BackendRegistry.h"

#include <utility>

#include "compute/CpuBackend.h"
#include "compute/OpenClBackend.h"

namespace nnwb {

std::unique_ptr<Backend> createBackend(const std::string& id) {
    if (id == "cpu") return std::make_unique<CpuBackend>();
    if (id.rfind("opencl:", 0) == 0) return OpenClBackend::create(id);
    throw ComputeError("unknown device '" + id + "' (use 'cpu' or 'opencl:P:D'; " +
                       "`nnwb-cli devices` lists them)");
}

std::vector<DeviceInfo> listDevices() {
    std::vector<DeviceInfo> out;
    out.push_back(CpuBackend().info());
    for (auto& d : OpenClBackend::enumerate()) out.push_back(std::move(d));
    return out;
}

}  // namespace nnwb
