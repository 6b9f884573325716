// A backend that allocates nothing and computes nothing: it only records the buffers a network
// (or a trainer's setup) would allocate, so the memory a run needs is known before any device
// memory is touched. Ops are no-ops (one generated override for all), downloads give zeros. One
// thread, like every Backend.
#pragma once

#include <cstdint>

#include "compute/Backend.h"

namespace nnwb {

class MeasuringBackend final : public Backend {
public:
    // `bytesPerValue`: 4 for float32 devices, 8 for the double-precision CPU backend.
    explicit MeasuringBackend(DeviceInfo measuredFor, uint64_t bytesPerValue = 4);
    ~MeasuringBackend() override;

    uint64_t peakBytes() const { return peak_; }        // most bytes held at once
    uint64_t largestBytes() const { return largest_; }  // largest single buffer
    uint64_t buffers() const { return count_; }         // allocations made

    DeviceInfo info() const override { return info_; }
    bool computes() const override { return false; }
    Buffer alloc(size_t count) override;
    void upload(BufRef, const float*, size_t) override {}
    void download(BufRef, float* dst, size_t count) override;
    void synchronize() override {}

protected:
    // Every op computes nothing here (the entries still check their arguments).
#define NNWB_MEASURE_OP(Name, name) \
    void name##Impl(const Name##Args&) override {}
    NNWB_OPS(NNWB_MEASURE_OP)
#undef NNWB_MEASURE_OP
    void release(void* handle) noexcept override;

private:
    DeviceInfo info_;
    uint64_t bytesPerValue_;
    uint64_t held_ = 0, peak_ = 0, largest_ = 0, count_ = 0;
};

}  // namespace nnwb
