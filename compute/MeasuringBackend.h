// A backend that allocates nothing and computes nothing: it only records the buffers a network
// (or a trainer's setup) would allocate, so the memory a run needs is known before any device
// memory is touched. Ops are no-ops, downloads give zeros. One thread, like every Backend.
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
    Buffer alloc(size_t count) override;
    void upload(BufRef, const float*, size_t) override {}
    void download(BufRef, float* dst, size_t count) override;
    void synchronize() override {}

    void fill(BufRef, size_t, float) override {}
    void copy(BufRef, BufRef, size_t) override {}
    void copy2d(BufRef, int, BufRef, int, int, int) override {}
    void axpy(size_t, float, BufRef, BufRef) override {}
    void add(size_t, BufRef, BufRef, BufRef) override {}
    void gemm(const GemmArgs&) override {}
    void biasActivation(int, int, BufRef, BufRef, BufRef, BufRef, Activation) override {}
    void activationBackward(int, int, BufRef, BufRef, BufRef, BufRef, Activation) override {}
    void biasGradient(int, int, BufRef, BufRef) override {}
    void softmaxForward(const SoftmaxArgs&, BufRef, BufRef) override {}
    void softmaxBackward(const SoftmaxArgs&, BufRef, BufRef, BufRef) override {}
    void normForward(int, int, float, BufRef, BufRef, BufRef) override {}
    void normBackward(int, int, BufRef, BufRef, BufRef, BufRef) override {}
    void unfold(int, int, int, int, int, BufRef, BufRef) override {}
    void fold(int, int, int, int, int, BufRef, BufRef) override {}
    void mseLoss(int, int, BufRef, BufRef, BufRef, BufRef, float) override {}
    void softmaxCrossEntropy(int, int, BufRef, BufRef, BufRef, BufRef, BufRef, float) override {}
    void sgdStep(size_t, BufRef, BufRef, BufRef, float, float, float, BufRef) override {}
    void adamStep(size_t, BufRef, BufRef, BufRef, BufRef, float, float, float, float, float, float,
                  float, BufRef) override {}
    void clipByGlobalNorm(size_t, BufRef, float, BufRef) override {}
    void scaleRows(int, int, BufRef, BufRef) override {}
    void dropoutForward(size_t, float, uint64_t, BufRef, BufRef, BufRef) override {}
    void dropoutBackward(size_t, BufRef, BufRef, BufRef) override {}
    void recordOutcomes(int, int, BufRef, BufRef, BufRef, BufRef, BufRef, float) override {}
    void lightConvForward(int, int, int, int, int, int, bool, BufRef, BufRef, BufRef,
                          BufRef) override {}
    void lightConvBackward(int, int, int, int, int, int, bool, BufRef, BufRef, BufRef, BufRef,
                           BufRef, BufRef) override {}

protected:
    void release(void* handle) noexcept override;

private:
    DeviceInfo info_;
    uint64_t bytesPerValue_;
    uint64_t held_ = 0, peak_ = 0, largest_ = 0, count_ = 0;
};

}  // namespace nnwb
