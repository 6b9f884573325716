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

    void fill(BufRef x, size_t n, float value) override;
    void copy(BufRef src, BufRef dst, size_t n) override;
    void copy2d(BufRef src, int srcLd, BufRef dst, int dstLd, int rows, int cols) override;
    void axpy(size_t n, float alpha, BufRef x, BufRef y) override;
    void add(size_t n, BufRef a, BufRef b, BufRef out) override;
    void gemm(const GemmArgs& g) override;
    void biasActivation(int rows, int cols, BufRef x, BufRef bias, BufRef z, BufRef y,
                        Activation act) override;
    void activationBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy, BufRef dz,
                            Activation act) override;
    void biasGradient(int rows, int cols, BufRef dz, BufRef db) override;
    void softmaxForward(const SoftmaxArgs& s, BufRef x, BufRef y) override;
    void softmaxBackward(const SoftmaxArgs& s, BufRef y, BufRef dy, BufRef dx) override;
    void normForward(int rows, int cols, float eps, BufRef x, BufRef y, BufRef rstd) override;
    void normBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy, BufRef dx) override;
    void unfold(int batch, int len, int window, int step, int positions, BufRef x,
                BufRef cols) override;
    void fold(int batch, int len, int window, int step, int positions, BufRef dcols,
              BufRef dx) override;
    void mseLoss(int rows, int cols, BufRef y, BufRef target, BufRef dy, BufRef loss,
                 float gradScale) override;
    void softmaxCrossEntropy(int rows, int cols, BufRef logits, BufRef target, BufRef prob,
                             BufRef dy, BufRef loss, float gradScale) override;
    void sgdStep(size_t n, BufRef w, BufRef g, BufRef velocity, float lr, float momentum,
                 float weightDecay, BufRef skip) override;
    void adamStep(size_t n, BufRef w, BufRef g, BufRef m, BufRef v, float lr, float beta1,
                  float beta2, float eps, float weightDecay, float bc1, float bc2,
                  BufRef skip) override;
    void clipByGlobalNorm(size_t n, BufRef g, float maxNorm, BufRef norm) override;
    void scaleRows(int rows, int cols, BufRef scale, BufRef x) override;
    void dropoutForward(size_t n, float rate, uint64_t key, BufRef x, BufRef mask,
                        BufRef y) override;
    void dropoutBackward(size_t n, BufRef mask, BufRef dy, BufRef dx) override;
    void recordOutcomes(int rows, int cols, BufRef pred, BufRef target, BufRef loss, BufRef log,
                        BufRef flag, float batchIndex) override;
    void lightConvForward(int batch, int units, int channels, int heads, int k, int padL,
                          bool softmaxTaps, BufRef x, BufRef weight, BufRef wsm,
                          BufRef y) override;
    void lightConvBackward(int batch, int units, int channels, int heads, int k, int padL,
                           bool softmaxTaps, BufRef x, BufRef weight, BufRef wsm, BufRef dy,
                           BufRef dx, BufRef dw) override;

protected:
    void release(void* handle) noexcept override;

private:
    template <typename T>
    friend struct CpuOps;
    Precision precision_;
    std::unique_ptr<ThreadPool> pool_;
};

}  // namespace nnwb
