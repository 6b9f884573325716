// The compute interface every device implements: device buffers, transfers and the primitive
// ops (each a forward/backward pair where one is needed) that layers are written in.
// A Backend and its buffers belong to the one thread that created them (the training worker,
// the CLI, a test); nothing here is thread-safe across callers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compute/Buffer.h"
#include "compute/ComputeError.h"

namespace nnwb {

enum class Activation { None, Tanh, Sigmoid, Relu, LeakyRelu, Swish, Softmax };

// C[i] = alpha * op(A[i]) * op(B[i]) + beta * C[i] for every batch index i = (i0, i1);
// the matrix of batch (i0, i1) starts at off + i0 * stride0 + i1 * stride1 (in floats).
// Row-major; op(A) is M x K, op(B) is K x N, C is M x N.
struct GemmArgs {
    bool transA = false, transB = false;
    int m = 0, n = 0, k = 0;
    float alpha = 1.0f, beta = 0.0f;
    BufRef a, b, c;
    int lda = 0, ldb = 0, ldc = 0;
    int batch0 = 1, batch1 = 1;
    size_t strideA0 = 0, strideB0 = 0, strideC0 = 0;
    size_t strideA1 = 0, strideB1 = 0, strideC1 = 0;
};

// Row-wise softmax over `cols` values with a scale applied first, as used by attention:
// y = softmax(scale * x). With `causal`, row r is query (r % queries) and columns past it
// are masked out (probability 0). Rows are contiguous with leading dimension `cols`.
struct SoftmaxArgs {
    int rows = 0, cols = 0;
    float scale = 1.0f;
    bool causal = false;
    int queries = 0;  // rows per (sample, head) block, needed when causal
};

struct DeviceInfo {
    std::string id;       // "cpu" or "opencl:P:D"
    std::string name;     // device name
    std::string vendor;
    std::string platform;
    std::string version;  // e.g. "OpenCL 3.0 PoCL ..." or "native C++"
    std::string type;     // "CPU", "GPU", "accelerator"
    int computeUnits = 0;
    uint64_t globalMemory = 0;  // bytes
    uint64_t maxAlloc = 0;      // bytes
};

class Backend {
public:
    virtual ~Backend() = default;
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    virtual DeviceInfo info() const = 0;

    // Buffers hold `count` float32 values (the CPU backend may keep double internally).
    virtual Buffer alloc(size_t count) = 0;
    virtual void upload(BufRef dst, const float* src, size_t count) = 0;
    virtual void download(BufRef src, float* dst, size_t count) = 0;
    // Double-precision transfers; exact only on a backend that stores doubles.
    virtual void uploadF64(BufRef dst, const double* src, size_t count);
    virtual void downloadF64(BufRef src, double* dst, size_t count);
    virtual void synchronize() = 0;

    // ---- element-wise and copies ----
    virtual void fill(BufRef x, size_t n, float value) = 0;
    virtual void copy(BufRef src, BufRef dst, size_t n) = 0;
    // Copies `rows` rows of `cols` values between strided layouts.
    virtual void copy2d(BufRef src, int srcLd, BufRef dst, int dstLd, int rows, int cols) = 0;
    virtual void axpy(size_t n, float alpha, BufRef x, BufRef y) = 0;  // y += alpha * x
    virtual void add(size_t n, BufRef a, BufRef b, BufRef out) = 0;    // out = a + b

    // ---- matrix products ----
    virtual void gemm(const GemmArgs& g) = 0;
    // A projection: z = gemm result into g.c (one product: batch0 == batch1 == 1), then
    // z += bias per column (bias may be empty) and y = f(z), y laid out like z (ld g.ldc).
    // The default is gemm then biasActivation; a backend may fuse them.
    virtual void gemmBiasActivation(const GemmArgs& g, BufRef bias, Activation act, BufRef y);

    // ---- bias and activation: z = x + bias (per column), y = f(z) ----
    // `bias` may be empty. For Softmax, f is a softmax over each row of `cols`.
    // z and x may be the same buffer.
    virtual void biasActivation(int rows, int cols, BufRef x, BufRef bias, BufRef z, BufRef y,
                                Activation act) = 0;
    // dz = dy * f'(z); z and y are the forward values. dz may alias dy.
    virtual void activationBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy, BufRef dz,
                                    Activation act) = 0;
    // db += column sums of dz (rows x cols).
    virtual void biasGradient(int rows, int cols, BufRef dz, BufRef db) = 0;
    // activationBackward then biasGradient of its dz; the default runs the two, a backend may
    // fuse them.
    virtual void activationBiasBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy,
                                        BufRef dz, Activation act, BufRef db);

    // ---- attention softmax ----
    virtual void softmaxForward(const SoftmaxArgs& s, BufRef x, BufRef y) = 0;
    // dx = scale * y * (dy - sum(dy * y)) per row.
    virtual void softmaxBackward(const SoftmaxArgs& s, BufRef y, BufRef dy, BufRef dx) = 0;

    // ---- normalization over `cols` values per row (no learned gain) ----
    // y = (x - mean) * rstd, rstd = 1/sqrt(var + eps); keeps rstd[rows] for backward.
    virtual void normForward(int rows, int cols, float eps, BufRef x, BufRef y, BufRef rstd) = 0;
    // dx = rstd * (dy - mean(dy) - y * mean(dy * y)).
    virtual void normBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy,
                              BufRef dx) = 0;
    // The residual connection before a norm: sum = a + b, then normForward of sum.
    // The default is add then normForward; a backend may fuse them.
    virtual void addNormForward(int rows, int cols, float eps, BufRef a, BufRef b, BufRef sum,
                                BufRef y, BufRef rstd);
    // dy += dy2 (dy keeps the sum), then normBackward of dy into dx (dx must not alias dy).
    virtual void addNormBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy,
                                 BufRef dy2, BufRef dx);

    // ---- sliding windows (the MQL5 convolution) ----
    // For each of `batch` samples of `len` values: cols[p][w] = x[p * step + w], p < positions.
    virtual void unfold(int batch, int len, int window, int step, int positions, BufRef x,
                        BufRef cols) = 0;
    // dx[i] = sum of dcols over every (p, w) with p * step + w == i (overwrites dx).
    virtual void fold(int batch, int len, int window, int step, int positions, BufRef dcols,
                      BufRef dx) = 0;

    // ---- losses: per-row loss value into loss[rows], gradient into dy ----
    // MSE: loss = mean over cols of (y - t)^2; dy = 2 (y - t) / cols * gradScale.
    virtual void mseLoss(int rows, int cols, BufRef y, BufRef target, BufRef dy, BufRef loss,
                         float gradScale) = 0;
    // Softmax cross-entropy on logits: p = softmax(y); loss = -sum t log p;
    // dy = (p - t) * gradScale; probabilities into prob.
    virtual void softmaxCrossEntropy(int rows, int cols, BufRef logits, BufRef target,
                                     BufRef prob, BufRef dy, BufRef loss, float gradScale) = 0;

    // ---- optimizers (weight decay is decoupled for Adam, i.e. AdamW when non-zero) ----
    // `skip`, when not empty, is a divergence flag (see recordOutcomes): the step does nothing
    // once skip[0] >= 0, so the weights stay those of the last finite batch.
    virtual void sgdStep(size_t n, BufRef w, BufRef g, BufRef velocity, float lr, float momentum,
                         float weightDecay, BufRef skip) = 0;
    // Adam with bias correction as PyTorch's AdamW: w -= lr * wd * w; m, v updated;
    // w -= (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps), with bc1 = 1 - b1^t, bc2 = 1 - b2^t.
    virtual void adamStep(size_t n, BufRef w, BufRef g, BufRef m, BufRef v, float lr, float beta1,
                          float beta2, float eps, float weightDecay, float bc1, float bc2,
                          BufRef skip) = 0;

    // ---- gradient clipping and per-sample loss weights ----
    // The global L2 norm of n values: norm[0] = sqrt(sum g[i]^2) (one reduction); then, when
    // maxNorm > 0 and norm[0] > maxNorm, g *= maxNorm / norm[0] (one scale; the factor is read
    // on the device). A non-finite norm scales nothing.
    virtual void clipByGlobalNorm(size_t n, BufRef g, float maxNorm, BufRef norm) = 0;
    // x[r][c] *= scale[r] for rows x cols values (class weights on the loss gradient).
    virtual void scaleRows(int rows, int cols, BufRef scale, BufRef x) = 0;

    // ---- dropout (training only; compute/DropoutMask.h draws the mask) ----
    // Inverted dropout of n values, 0 <= rate < 1 (else ComputeError): element i is kept when
    // dropoutBits(key, i) >= dropoutThreshold(rate); mask[i] = dropoutScale(rate) when kept,
    // else 0; y = x * mask. The same key gives the same mask on every device. y may alias x.
    virtual void dropoutForward(size_t n, float rate, uint64_t key, BufRef x, BufRef mask,
                                BufRef y) = 0;
    // dx = dy * mask (the mask of the forward pass); dx may alias dy.
    virtual void dropoutBackward(size_t n, BufRef mask, BufRef dy, BufRef dx) = 0;

    // ---- metrics without host round trips ----
    // Per-sample outcome log of a batch of `rows` samples: log[2r] = loss[r] and
    // log[2r + 1] = argmax of pred row r (ties to the first), plus, when cols == 3,
    // 3 * (target[r][1] > 0.5) + 6 * (target[r][2] > 0.5). When a loss value is not finite
    // and flag[0] < 0, flag[0] = batchIndex (the first diverging batch of a run).
    virtual void recordOutcomes(int rows, int cols, BufRef pred, BufRef target, BufRef loss,
                                BufRef log, BufRef flag, float batchIndex) = 0;

    // ---- lightweight convolution (depthwise over the sequence) ----
    // x, y: [batch][units][channels]; weight: [heads][k]; channel c uses head c / (channels/heads).
    // y[b][t][c] = sum_j w'[h][j] * x[b][t + j - padL][c] (zero outside), where w' is the
    // weight or its softmax over taps when `softmaxTaps`; wsm receives w' for backward.
    virtual void lightConvForward(int batch, int units, int channels, int heads, int k, int padL,
                                  bool softmaxTaps, BufRef x, BufRef weight, BufRef wsm,
                                  BufRef y) = 0;
    // dx (overwritten) and dw (accumulated, w.r.t. the raw weight) from dy.
    virtual void lightConvBackward(int batch, int units, int channels, int heads, int k, int padL,
                                   bool softmaxTaps, BufRef x, BufRef weight, BufRef wsm,
                                   BufRef dy, BufRef dx, BufRef dw) = 0;

protected:
    Backend() = default;
    // gemmBiasActivation's precondition (one product, ldc == n); throws ComputeError.
    static void checkProjection(const GemmArgs& g);
    friend class Buffer;
    virtual void release(void* handle) noexcept = 0;
};

// Creates the backend for a device id from listDevices(): "cpu" or "opencl:P:D".
// Throws ComputeError naming the id when it does not exist or cannot be opened.
std::unique_ptr<Backend> createBackend(const std::string& id);
// "cpu" first, then every OpenCL device; OpenCL enumeration failures are skipped silently
// (a machine without an ICD has only the CPU device).
std::vector<DeviceInfo> listDevices();

}  // namespace nnwb
