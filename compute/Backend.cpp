#include "compute/Backend.h"

#include <vector>

#include "compute/CpuBackend.h"
#include "compute/OpenClBackend.h"

namespace nnwb {

void Buffer::reset() noexcept {
    if (owner_ && handle_) owner_->release(handle_);
    owner_ = nullptr;
    handle_ = nullptr;
    count_ = 0;
}

void Backend::uploadF64(BufRef dst, const double* src, size_t count) {
    std::vector<float> tmp(src, src + count);
    upload(dst, tmp.data(), count);
}

void Backend::downloadF64(BufRef src, double* dst, size_t count) {
    std::vector<float> tmp(count);
    download(src, tmp.data(), count);
    for (size_t i = 0; i < count; ++i) dst[i] = tmp[i];
}

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
