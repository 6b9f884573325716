// The native C++ backend: the reference that defines "correct" for every op. Stores float32 by
// default; Precision::Double stores doubles for finite-difference gradient checks.
// Uses worker threads internally for large ops; callers use it from one thread only.
#pragma once

#include <memory>

#include "compute/Backend.h"

namespace nnwb {

class ThreadPool;

enum class Precision { Float, Double };

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(Precision precision = Precision::Float, int threads = 0);
    ~CpuBackend() override;

    Precision precision() const { return precision_; }
    DeviceInfo info() const override;
    Buffer alloc(size_t count) override;
    void upload(BufRef dst, const float* src, size_t count) override;
    void download(BufRef src, float* dst, size_t count) override;
    void uploadF64(BufRef dst, const double* src, size_t count) override;
    void downloadF64(BufRef src, double* dst, size_t count) override;
    void synchronize() override {}

protected:
#define NNWB_CPU_OP(Name, name) void name##Impl(const Name##Args& args) override;
    NNWB_OPS(NNWB_CPU_OP)
#undef NNWB_CPU_OP
    void release(void* handle) noexcept override;

private:
    template <typename T>
    friend struct CpuOps;
    Precision precision_;
    std::unique_ptr<ThreadPool> pool_;
};

}  // namespace nnwb
