// The OpenCL backend: every Backend op as kernels from kernels/*.cl (embedded at build time,
// or read from $NNWB_KERNEL_DIR), for any OpenCL 1.2+ device, on one in-order queue. Programs
// are built once at creation (binaries cached on disk); build failures carry the compiler's
// build log. Owned and used by one thread (the one running the network).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compute/Backend.h"

namespace nnwb {

struct OpenClOptions {
    bool profiling = false;  // per-kernel timing; also switched on by NNWB_CL_PROFILE=1
    std::string kernelDir;   // read the .cl files from here (else $NNWB_KERNEL_DIR, else embedded)
    std::string cacheDir;    // program binary cache directory (else the default, see
                             // OpenClProgramCache)
    bool noCache = false;    // no binary cache (also NNWB_NO_KERNEL_CACHE=1)
    // Tests only: run every product with this gemm kernel ("gemm_small", "gemm_tiled",
    // "gemm_tiled_32", "gemm_tiled_16") and, for the tiled ones, this many K splits.
    std::string gemmKernel;
    int gemmSplits = 0;
};

class OpenClBackend final : public Backend {
public:
    // id is "opencl:P:D"; throws ComputeError naming the id if it does not exist, or with the
    // device name and build log if the kernels do not build.
    static std::unique_ptr<OpenClBackend> create(const std::string& id);
    static std::unique_ptr<OpenClBackend> create(const std::string& id, const OpenClOptions& opt);
    // Every device of every platform; empty when no OpenCL runtime is installed. Never throws.
    static std::vector<DeviceInfo> enumerate();
    // The embedded kernel files as (file name, source) pairs.
    static std::vector<std::pair<std::string, std::string>> embeddedKernelSources();
    ~OpenClBackend() override;

    DeviceInfo info() const override;
    Buffer alloc(size_t count) override;
    void upload(BufRef dst, const float* src, size_t count) override;
    void download(BufRef src, float* dst, size_t count) override;
    void synchronize() override;

    void fill(BufRef x, size_t n, float value) override;
    void copy(BufRef src, BufRef dst, size_t n) override;
    void copy2d(BufRef src, int srcLd, BufRef dst, int dstLd, int rows, int cols) override;
    void axpy(size_t n, float alpha, BufRef x, BufRef y) override;
    void add(size_t n, BufRef a, BufRef b, BufRef out) override;
    void gemm(const GemmArgs& g) override;
    void gemmBiasActivation(const GemmArgs& g, BufRef bias, Activation act, BufRef y) override;
    void biasActivation(int rows, int cols, BufRef x, BufRef bias, BufRef z, BufRef y,
                        Activation act) override;
    void activationBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy, BufRef dz,
                            Activation act) override;
    void biasGradient(int rows, int cols, BufRef dz, BufRef db) override;
    void activationBiasBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy, BufRef dz,
                                Activation act, BufRef db) override;
    void softmaxForward(const SoftmaxArgs& s, BufRef x, BufRef y) override;
    void softmaxBackward(const SoftmaxArgs& s, BufRef y, BufRef dy, BufRef dx) override;
    void normForward(int rows, int cols, float eps, BufRef x, BufRef y, BufRef rstd) override;
    void normBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy, BufRef dx) override;
    void addNormForward(int rows, int cols, float eps, BufRef a, BufRef b, BufRef sum, BufRef y,
                        BufRef rstd) override;
    void addNormBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy, BufRef dy2,
                         BufRef dx) override;
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
                          bool softmaxTaps, BufRef x, BufRef weight, BufRef wsm, BufRef y) override;
    void lightConvBackward(int batch, int units, int channels, int heads, int k, int padL,
                           bool softmaxTaps, BufRef x, BufRef weight, BufRef wsm, BufRef dy,
                           BufRef dx, BufRef dw) override;

    // ---- diagnostics ----
    bool profiling() const;
    // Accumulated device time per kernel name in milliseconds, largest first (waits for the
    // queued kernels). Empty unless profiling is on.
    std::vector<std::pair<std::string, double>> kernelTimes();
    void resetKernelTimes();
    // Programs of this backend that were loaded from the binary cache instead of compiled.
    int programsFromCache() const;
    int programsBuilt() const;
    // Kernel launches, uploads and downloads enqueued so far (what NNWB_CL_FAIL_AFTER counts).
    uint64_t enqueueCount() const;
    // The main gemm tiling, e.g. "TSM=64 TSN=64 TSK=16 WPTM=4 WPTN=4".
    std::string gemmConfig() const;
    // The gemm kernels this device has, e.g. {"gemm_small", "gemm_tiled", "gemm_tiled_16"}.
    std::vector<std::string> gemmKernels() const;

protected:
    void release(void* handle) noexcept override;

private:
    struct Impl;
    struct Epilogue;
    void gemmWith(const GemmArgs& g, const Epilogue* epi);
    // bias_gradient, computing dz from (z, y, dy) first when act is element-wise.
    void biasGradientWith(int rows, int cols, BufRef dz, BufRef db, const Activation* act,
                          BufRef z, BufRef y, BufRef dy);
    explicit OpenClBackend(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> d_;
};

}  // namespace nnwb
