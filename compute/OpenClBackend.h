// The OpenCL backend: every Backend op as kernels from kernels/*.cl (embedded at build time,
// or read from $NNWB_KERNEL_DIR), for any OpenCL 1.2+ device. Build failures carry the
// compiler's build log. Owned and used by one thread (the one running the network).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compute/Backend.h"

namespace nnwb {

class OpenClBackend final : public Backend {
public:
    // id is "opencl:P:D"; throws ComputeError naming the id if it does not exist.
    static std::unique_ptr<OpenClBackend> create(const std::string& id);
    // Every device of every platform; empty when no OpenCL runtime is installed.
    static std::vector<DeviceInfo> enumerate();
    ~OpenClBackend() override;
    // (implementation in progress)

protected:
    void release(void* handle) noexcept override;
};

}  // namespace nnwb
