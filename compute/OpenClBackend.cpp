// Placeholder until the opencl branch lands.
#include "compute/OpenClBackend.h"

namespace nnwb {
std::unique_ptr<OpenClBackend> OpenClBackend::create(const std::string& id) {
    throw ComputeError("no OpenCL device '" + id + "'");
}
std::vector<DeviceInfo> OpenClBackend::enumerate() { return {}; }
OpenClBackend::~OpenClBackend() = default;
void OpenClBackend::release(void*) noexcept {}
}  // namespace nnwb
