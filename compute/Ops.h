// Every op of the compute layer, declared once: its argument struct (fields in the order a call
// gives them: `be.fill({x, n, 0.0f})`), its argument checks (extents, buffers of the calling
// backend, aliasing) and its entry in NNWB_OPS, from which Backend's validating entries and the
// backends' dispatch are generated. docs/ARCHITECTURE.md lists the places an op touches.
// Plain values; used on the thread that owns the backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "compute/Buffer.h"
#include "compute/ComputeError.h"
#include "compute/TensorView.h"

namespace nnwb {

class Backend;

// The activations, with the constant each has in the kernels (NNWB_ACT_<NAME>, passed to the
// OpenCL compiler as -D defines generated from this list: see kernelDefines()).
#define NNWB_ACTIVATIONS(X)  \
    X(None, NONE)            \
    X(Tanh, TANH)            \
    X(Sigmoid, SIGMOID)      \
    X(Relu, RELU)            \
    X(LeakyRelu, LEAKY_RELU) \
    X(Swish, SWISH)          \
    X(Softmax, SOFTMAX)

#define NNWB_ACTIVATION_ENUM(name, NAME) name,
enum class Activation { NNWB_ACTIVATIONS(NNWB_ACTIVATION_ENUM) };
#undef NNWB_ACTIVATION_ENUM

// The checks every op entry runs before a backend sees its arguments; each failure throws a
// ComputeError that starts with the op's name and says which argument and why.
class OpCheck {
public:
    OpCheck(const Backend* backend, const char* op) : backend_(backend), op_(op) {}
    // A buffer the op accesses `n` values of: present, of this backend, large enough.
    // Nothing is checked when n == 0 (nothing is accessed).
    void buf(BufRef r, size_t n, const char* what) const;
    // The same when r is not empty (an optional argument).
    void optional(BufRef r, size_t n, const char* what) const;
    // Sizes that must not be negative, as (name, value) pairs.
    void sizes(std::initializer_list<std::pair<const char*, long long>> named) const;
    // rows and cols not negative, then buf(r, rows * cols, name) for each (r, name) in order.
    void matrices(int rows, int cols,
                  std::initializer_list<std::pair<BufRef, const char*>> named) const;
    // The ranges [a, a + na) and [b, b + nb) must not overlap when both are in one buffer.
    void disjoint(BufRef a, size_t na, const char* aName, BufRef b, size_t nb,
                  const char* bName) const;
    void require(bool ok, const std::string& why) const;
    // A population split: models >= 1 and `count` (rows or values, named `what`) divisible by it.
    void models(int models, long long count, const char* what) const;
    [[noreturn]] void fail(const std::string& why) const;
    const char* op() const { return op_; }

private:
    const Backend* backend_;
    const char* op_;
};

// rows * cols as a count, 0 for negative sizes (rejected by OpCheck::sizes first).
inline size_t elems(long long a, long long b = 1, long long c = 1) {
    return a <= 0 || b <= 0 || c <= 0 ? 0 : size_t(a) * size_t(b) * size_t(c);
}

// The extent of a per-model operand: `models` copies of `n` values, `stride` apart.
inline size_t perModelExtent(int models, size_t stride, size_t n) {
    return n == 0 || models <= 0 ? 0 : size_t(models - 1) * stride + n;
}

// A 64-bit value stored exactly in 4 floats of 16 bits each (low limb first): how a per-model
// dropout key base travels in a float buffer (exact in float and double storage).
inline void splitKeyLimbs(uint64_t key, float out[4]) {
    for (int i = 0; i < 4; ++i) out[i] = float((key >> (16 * i)) & 0xFFFFu);
}
template <typename T>
inline uint64_t joinKeyLimbs(const T* limbs) {
    uint64_t k = 0;
    for (int i = 0; i < 4; ++i) k |= uint64_t(limbs[i]) << (16 * i);
    return k;
}

// ---- element-wise and copies ----
struct FillArgs {  // x[0, n) = value
    BufRef x;
    size_t n = 0;
    float value = 0.0f;
    void check(const OpCheck& c) const { c.buf(x, n, "x"); }
};
struct CopyArgs {  // dst[0, n) = src[0, n) (memmove semantics)
    BufRef src, dst;
    size_t n = 0;
    void check(const OpCheck& c) const {
        c.buf(src, n, "src");
        c.buf(dst, n, "dst");
    }
};
struct Copy2dArgs {  // `rows` rows of `cols` values between strided layouts (may overlap)
    BufRef src;
    int srcLd = 0;
    BufRef dst;
    int dstLd = 0;
    int rows = 0, cols = 0;
    void check(const OpCheck& c) const {
        c.sizes({{"rows", rows}, {"cols", cols}, {"srcLd", srcLd}, {"dstLd", dstLd}});
        if (rows <= 0 || cols <= 0) return;
        c.buf(src, size_t(rows - 1) * size_t(srcLd) + size_t(cols), "src");
        c.buf(dst, size_t(rows - 1) * size_t(dstLd) + size_t(cols), "dst");
    }
};
struct AxpyArgs {  // y += alpha * x
    size_t n = 0;
    float alpha = 1.0f;
    BufRef x, y;
    void check(const OpCheck& c) const {
        c.buf(x, n, "x");
        c.buf(y, n, "y");
    }
};
struct AddArgs {  // out = a + b (out may alias a or b)
    size_t n = 0;
    BufRef a, b, out;
    void check(const OpCheck& c) const {
        c.buf(a, n, "a");
        c.buf(b, n, "b");
        c.buf(out, n, "out");
    }
};

// ---- matrix products ----
// C[i] = alpha * op(A[i]) * op(B[i]) + beta * C[i] for every batch index i = (i0, i1);
// the matrix of batch (i0, i1) starts at off + i0 * stride0 + i1 * stride1 (in floats).
// Row-major; op(A) is M x K, op(B) is K x N, C is M x N. C must not overlap A or B.
// Layers build it with product() from TensorViews; the fields are what the kernels take.
struct GemmArgs {
    bool transA = false, transB = false;
    int m = 0, n = 0, k = 0;
    float alpha = 1.0f, beta = 0.0f;
    BufRef a, b, c;
    int lda = 0, ldb = 0, ldc = 0;
    int batch0 = 1, batch1 = 1;
    size_t strideA0 = 0, strideB0 = 0, strideC0 = 0;
    size_t strideA1 = 0, strideB1 = 0, strideC1 = 0;

    // c = alpha * a b + beta * c over the batch of the views (a, b and c have the same batch
    // dimensions; a transposed view, t(), becomes transA / transB). Throws ComputeError when
    // the shapes do not fit or a view is strided along both of its matrix dimensions.
    static GemmArgs product(const TensorView& a, const TensorView& b, const TensorView& c,
                            float beta = 0.0f, float alpha = 1.0f);
    void check(const OpCheck& c) const;
};
// A projection: z = the product into gemm.c (one product, or one per model of a population:
// batch0 == models products with batch1 == 1, ldc == n and strideC0 == m * n, so z is dense),
// then z += bias per column (bias may be empty; product p adds bias + p * biasStride) and
// y = f(z), y laid out like z. The default is gemm then biasActivation; a backend may fuse them.
struct GemmBiasActivationArgs {
    GemmArgs gemm;
    BufRef bias;
    Activation act = Activation::None;
    BufRef y;
    size_t biasStride = 0;
    void check(const OpCheck& c) const;
};

// ---- bias and activation: z = x + bias (per column), y = f(z) ----
// `bias` may be empty. For Softmax, f is a softmax over each row of `cols`. z may alias x,
// y may alias z. A population: the rows are `models` equal blocks, block p adds the bias at
// bias + p * biasStride (docs/decisions/population.md).
struct BiasActivationArgs {
    int rows = 0, cols = 0;
    BufRef x, bias, z, y;
    Activation act = Activation::None;
    int models = 1;
    size_t biasStride = 0;
    void check(const OpCheck& c) const {
        c.sizes({{"rows", rows}, {"cols", cols}});
        c.models(models, rows, "rows");
        c.matrices(rows, cols, {{x, "x"}, {z, "z"}, {y, "y"}});
        if (elems(rows, cols) > 0)
            c.optional(bias, perModelExtent(models, biasStride, size_t(cols)), "bias");
    }
};
// dz = dy * f'(z); z and y are the forward values. dz may alias dy.
struct ActivationBackwardArgs {
    int rows = 0, cols = 0;
    BufRef z, y, dy, dz;
    Activation act = Activation::None;
    void check(const OpCheck& c) const {
        c.matrices(rows, cols, {{z, "z"}, {y, "y"}, {dy, "dy"}, {dz, "dz"}});
    }
};
// db += column sums of dz (rows x cols). A population: the rows are `models` equal blocks,
// block p sums into db + p * dbStride.
struct BiasGradientArgs {
    int rows = 0, cols = 0;
    BufRef dz, db;
    int models = 1;
    size_t dbStride = 0;
    void check(const OpCheck& c) const {
        c.sizes({{"rows", rows}, {"cols", cols}});
        c.models(models, rows, "rows");
        c.buf(dz, elems(rows, cols), "dz");
        c.buf(db, perModelExtent(models, dbStride, elems(cols)), "db");
        if (models > 1 && cols > 0)
            c.require(dbStride >= size_t(cols), "dbStride " + std::to_string(dbStride) +
                                                    " is shorter than cols " +
                                                    std::to_string(cols));
    }
};
// activationBackward then biasGradient of its dz; the default runs the two, a backend may
// fuse them. `models` and `dbStride` as for biasGradient.
struct ActivationBiasBackwardArgs {
    int rows = 0, cols = 0;
    BufRef z, y, dy, dz;
    Activation act = Activation::None;
    BufRef db;
    int models = 1;
    size_t dbStride = 0;
    void check(const OpCheck& c) const {
        ActivationBackwardArgs{rows, cols, z, y, dy, dz, act}.check(c);
        BiasGradientArgs{rows, cols, dz, db, models, dbStride}.check(c);
    }
};

// The parameter gradients of a projection z = x W^T + b, y = f(z) (W [out][in]): unless dy is
// empty, dz = dy * f'(z) first (dz may alias dy; else dz holds the gradient already); then
// db += the column sums of dz and dW += dz^T x through `gemm`: its A is dz transposed (transA,
// lda == m: dz [k][m]), B is x, C is dW; one product, or one per model of a population
// (batch0 == models, batch1 == 1, strideA0 == k * m), model p's sums into db + p * dbStride.
// The default runs activationBiasBackward (or biasGradient) then gemm; a backend may fold the
// column sums into the product (OpenCL: the row sums of op(A) in gemm_tiled, no launch of their
// own).
struct ProjectionGradientArgs {
    GemmArgs gemm;
    BufRef db;
    size_t dbStride = 0;
    Activation act = Activation::None;
    BufRef z, y, dy;
    void check(const OpCheck& c) const;
};

// ---- a chain of dense layers: y_l = f_l(y_{l-1} W_l^T + b_l), y_{-1} = x ----
// Up to kMaxDenseChain layers, layer l's input width the previous layer's output width.
// Rows over all models of a population (model-major blocks of rows / models); layer l's W, b
// (and dW, db) of model m at + m * stride. The default runs the layers' products, bias and
// activation ops one by one (the reference); a backend may fuse the chain (OpenCL: one launch
// forward, two backward at small widths; docs/performance.md).
inline constexpr int kMaxDenseChain = 4;
struct DenseChainLayer {
    int in = 0, out = 0;
    Activation act = Activation::None;
    BufRef w, b, dw, db;  // [out][in], [out] per model
    size_t stride = 0;    // between models' w (and b, dw, db): 0 for one model
    BufRef z, y, dz;      // [rows][out]
};
struct DenseChainArgs {
    int rows = 0, models = 1, layers = 0;
    DenseChainLayer l[kMaxDenseChain]{};
    BufRef x;   // [rows][l[0].in]
    BufRef dy;  // backward: the gradient w.r.t. the last layer's y
    BufRef dx;  // backward: written with the gradient w.r.t. x unless empty
    BufRef input(int i) const { return i == 0 ? x : l[i - 1].y; }
    void checkChain(const OpCheck& c, bool backward) const;
};
// z and y of every layer written.
struct DenseChainForwardArgs : DenseChainArgs {
    void check(const OpCheck& c) const { checkChain(c, false); }
};
// From the forward's z and y: dz of every layer written, dW and db ADDED, dx written unless
// empty. The layers' dz buffers also carry the intermediate input gradients.
struct DenseChainBackwardArgs : DenseChainArgs {
    void check(const OpCheck& c) const { checkChain(c, true); }
};

// ---- attention softmax ----
// Row-wise softmax over `cols` values with a scale applied first, as used by attention:
// y = softmax(scale * x). With `causal`, row r is query (r % queries) and columns past it
// are masked out (probability 0). Rows are contiguous with leading dimension `cols`.
struct SoftmaxShape {
    int rows = 0, cols = 0;
    float scale = 1.0f;
    bool causal = false;
    int queries = 0;  // rows per (sample, head) block, needed when causal
    void check(const OpCheck& c) const {
        c.sizes({{"rows", rows}, {"cols", cols}});
        if (causal)
            c.require(queries > 0,
                      "causal mask needs queries > 0 (got " + std::to_string(queries) + ")");
    }
};
struct SoftmaxForwardArgs {
    SoftmaxShape s;
    BufRef x, y;
    void check(const OpCheck& c) const {
        s.check(c);
        c.matrices(s.rows, s.cols, {{x, "x"}, {y, "y"}});
    }
};
// dx = scale * y * (dy - sum(dy * y)) per row.
struct SoftmaxBackwardArgs {
    SoftmaxShape s;
    BufRef y, dy, dx;
    void check(const OpCheck& c) const {
        s.check(c);
        c.matrices(s.rows, s.cols, {{y, "y"}, {dy, "dy"}, {dx, "dx"}});
    }
};

// ---- the attention core, fused per (sample, head) ----
// For sample b and head h: S = Q K^T (units x units), P = softmax(scale * S) per row (with
// `causal`, query i sees keys 0..i only and P is 0 past it), C = P V. Q, K and V are column
// blocks of the QKV rows (`units` rows of `ldQkv` floats per sample): Q_h at column
// h * keySize, K_h at heads * keySize + h * keySize, V_h at 2 * heads * keySize +
// h * valueSize. C_h goes to column h * valueSize of the context rows (`ldCtx` floats each);
// P is kept (batch x heads x units x units) for backward and the score views.
struct AttentionShape {
    int batch = 0, heads = 0, units = 0, keySize = 0, valueSize = 0;
    int ldQkv = 0, ldCtx = 0;
    float scale = 1.0f;
    bool causal = false;
    size_t qkvCount() const { return elems(batch, units, ldQkv); }
    size_t ctxCount() const { return elems(batch, units, ldCtx); }
    size_t scoreCount() const { return elems(batch, heads) * elems(units, units); }
    void check(const OpCheck& c) const {
        c.sizes({{"batch", batch}, {"ldQkv", ldQkv}, {"ldCtx", ldCtx}});
        c.require(heads > 0 && units > 0 && keySize > 0 && valueSize > 0,
                  "heads, units, keySize and valueSize must be positive (got " +
                      std::to_string(heads) + ", " + std::to_string(units) + ", " +
                      std::to_string(keySize) + ", " + std::to_string(valueSize) + ")");
        c.require(ldQkv >= heads * (2 * keySize + valueSize),
                  "ldQkv " + std::to_string(ldQkv) + " is narrower than the Q, K and V columns (" +
                      std::to_string(heads * (2 * keySize + valueSize)) + ")");
        c.require(ldCtx >= heads * valueSize, "ldCtx " + std::to_string(ldCtx) +
                                                  " is narrower than the context columns (" +
                                                  std::to_string(heads * valueSize) + ")");
    }
};
// `scores` is scratch of scoreCount() floats for a backend that composes the core from gemm and
// softmax (the fused kernels do not touch it).
struct AttentionForwardArgs {
    AttentionShape s;
    BufRef qkv, p, ctx, scores;
    void check(const OpCheck& c) const {
        s.check(c);
        const size_t nq = s.qkvCount(), nc = s.ctxCount(), np = s.scoreCount();
        c.buf(qkv, nq, "qkv");
        c.buf(p, np, "p");
        c.buf(ctx, nc, "ctx");
        c.buf(scores, np, "scores");
        c.disjoint(qkv, nq, "qkv", ctx, nc, "ctx");
        c.disjoint(qkv, nq, "qkv", p, np, "p");
        c.disjoint(p, np, "p", ctx, nc, "ctx");
        c.disjoint(scores, np, "scores", p, np, "p");
        c.disjoint(scores, np, "scores", qkv, nq, "qkv");
        c.disjoint(scores, np, "scores", ctx, nc, "ctx");
    }
};
// From dC (the context's gradient, laid out like C) to dQ, dK and dV, written (overwritten) to
// the Q, K and V columns of dqkv. `dp` and `ds` are scratch of scoreCount() floats each for a
// composing backend.
struct AttentionBackwardArgs {
    AttentionShape s;
    BufRef qkv, p, dctx, dqkv, dp, ds;
    void check(const OpCheck& c) const {
        s.check(c);
        const size_t nq = s.qkvCount(), nc = s.ctxCount(), np = s.scoreCount();
        c.buf(qkv, nq, "qkv");
        c.buf(p, np, "p");
        c.buf(dctx, nc, "dctx");
        c.buf(dqkv, nq, "dqkv");
        c.buf(dp, np, "dp");
        c.buf(ds, np, "ds");
        c.disjoint(dqkv, nq, "dqkv", qkv, nq, "qkv");
        c.disjoint(dqkv, nq, "dqkv", p, np, "p");
        c.disjoint(dqkv, nq, "dqkv", dctx, nc, "dctx");
        for (const auto& [r, name] : {std::pair{dp, "dp"}, std::pair{ds, "ds"}}) {
            c.disjoint(r, np, name, qkv, nq, "qkv");
            c.disjoint(r, np, name, p, np, "p");
            c.disjoint(r, np, name, dctx, nc, "dctx");
            c.disjoint(r, np, name, dqkv, nq, "dqkv");
        }
        c.disjoint(dp, np, "dp", ds, np, "ds");
    }
};

// ---- normalization over `cols` values per row (no learned gain) ----
// y = (x - mean) * rstd, rstd = 1/sqrt(var + eps); keeps rstd[rows] for backward.
struct NormForwardArgs {
    int rows = 0, cols = 0;
    float eps = 1e-5f;
    BufRef x, y, rstd;
    void check(const OpCheck& c) const {
        c.matrices(rows, cols, {{x, "x"}, {y, "y"}});
        c.buf(rstd, elems(rows), "rstd");
    }
};
// dx = rstd * (dy - mean(dy) - y * mean(dy * y)).
struct NormBackwardArgs {
    int rows = 0, cols = 0;
    BufRef y, rstd, dy, dx;
    void check(const OpCheck& c) const {
        c.matrices(rows, cols, {{y, "y"}, {dy, "dy"}, {dx, "dx"}});
        c.buf(rstd, elems(rows), "rstd");
    }
};
// The residual connection before a norm: sum = a + b, then normForward of sum.
// The default is add then normForward; a backend may fuse them.
struct AddNormForwardArgs {
    int rows = 0, cols = 0;
    float eps = 1e-5f;
    BufRef a, b, sum, y, rstd;
    void check(const OpCheck& c) const {
        c.matrices(rows, cols, {{a, "a"}, {b, "b"}, {sum, "sum"}, {y, "y"}});
        c.buf(rstd, elems(rows), "rstd");
    }
};
// dy += dy2 (dy keeps the sum), then normBackward of dy into dx (dx must not alias dy).
struct AddNormBackwardArgs {
    int rows = 0, cols = 0;
    BufRef y, rstd, dy, dy2, dx;
    void check(const OpCheck& c) const {
        c.matrices(rows, cols, {{y, "y"}, {dy, "dy"}, {dy2, "dy2"}, {dx, "dx"}});
        c.buf(rstd, elems(rows), "rstd");
        c.disjoint(dx, elems(rows, cols), "dx", dy, elems(rows, cols), "dy");
    }
};

// ---- one attention block, fused (a backend that fuses it: Backend::fusesAttentionBlock) ----
// The sequence path of model/layers/AttentionBlock.h (its header has the math) for `batch`
// samples over all models: QKV projection, scores, softmax (optionally causal), context, W0
// (optional), add & norm, feed-forward (hidden and ffOut element-wise activations), add & norm.
// A population: the samples are `models` equal blocks, model m's parameters at
// BlockParams::p[i] + m * stride[i]. The activations keep AttentionBlock's layouts, so the per-op
// backward may follow a fused forward and the other way round. No default: a backend that
// does not fuse the block says so in fusesAttentionBlock and the op is not supported there.
enum BlockParam {
    kBlockQkvW,
    kBlockQkvB,
    kBlockW0W,
    kBlockW0B,
    kBlockFf1W,
    kBlockFf1B,
    kBlockFf2W,
    kBlockFf2B,
    kBlockParams
};
struct AttentionBlockShape {
    int batch = 0, models = 1;
    int units = 0, window = 0, heads = 0, keySize = 0, valueSize = 0;
    bool w0 = true, causal = false;
    bool sequenceNorm = false;  // one norm over each sample's units x window (else per row)
    Activation hidden = Activation::LeakyRelu, ffOut = Activation::None;
    float eps = 1e-5f;
    int qkvWidth() const { return heads * (2 * keySize + valueSize); }
    int ctxWidth() const { return heads * valueSize; }
    int ffWidth() const { return 4 * window; }
    size_t rows() const { return elems(batch, units); }
    size_t normRows() const { return sequenceNorm ? elems(batch) : rows(); }
    // Values of parameter i (BlockParam) of one model; 0 for W0's without w0.
    size_t paramCount(int i) const {
        const size_t w = size_t(window), q = size_t(qkvWidth()), c = size_t(ctxWidth()),
                     f = size_t(ffWidth());
        const size_t n[kBlockParams] = {q * w, q, w0 ? w * c : 0, w0 ? w : 0, f * w, f, w * f, w};
        return n[i];
    }
    void check(const OpCheck& c) const;
};
// The parameters (values or gradients) of a block: model m's parameter i at p[i] + m * stride[i].
struct BlockParams {
    BufRef p[kBlockParams];
    size_t stride[kBlockParams] = {};
    void check(const OpCheck& c, const AttentionBlockShape& s, const char* what) const;
};
// What forward keeps for backward (AttentionBlock::Acts): qkv [rows][qkvWidth], p
// [batch][heads][units][units], ctx [rows][ctxWidth], x1, z2, f, out [rows][window], z1, h1
// [rows][ffWidth], rstd1 and rstd2 [normRows].
struct BlockActs {
    BufRef qkv, p, ctx, x1, rstd1, z1, h1, z2, f, out, rstd2;
    void check(const OpCheck& c, const AttentionBlockShape& s) const;
};
struct AttentionBlockForwardArgs {
    AttentionBlockShape s;
    BufRef x;  // [rows][window]
    BlockParams w;
    BlockActs a;  // written
    void check(const OpCheck& c) const;
};
// ADDS the parameter gradients to g (strides as w's); WRITES dx unless it is empty (dx may be
// dy's buffer: dy is read before dx is written, sample by sample).
struct AttentionBlockBackwardArgs {
    AttentionBlockShape s;
    BufRef x, dy, dx;
    BlockParams w, g;
    BlockActs a;
    void check(const OpCheck& c) const;
};

// ---- sliding windows (the MQL5 convolution) ----
// For each of `batch` samples of `len` values: cols[p][w] = x[p * step + w], p < positions.
struct UnfoldArgs {
    int batch = 0, len = 0, window = 0, step = 1, positions = 0;
    BufRef x, cols;
    void check(const OpCheck& c) const {
        checkWindows(c, batch, len, window, step, positions);
        c.buf(x, elems(batch, len), "x");
        c.buf(cols, elems(batch, positions, window), "cols");
        c.disjoint(x, elems(batch, len), "x", cols, elems(batch, positions, window), "cols");
    }
    static void checkWindows(const OpCheck& c, int batch, int len, int window, int step,
                             int positions) {
        if (batch < 0 || len < 0 || window < 0 || positions < 0 || step < 1)
            c.fail("invalid sizes (batch " + std::to_string(batch) + ", len " +
                   std::to_string(len) + ", window " + std::to_string(window) + ", step " +
                   std::to_string(step) + ", positions " + std::to_string(positions) + ")");
    }
};
// dx[i] = sum of dcols over every (p, w) with p * step + w == i (overwrites dx).
struct FoldArgs {
    int batch = 0, len = 0, window = 0, step = 1, positions = 0;
    BufRef dcols, dx;
    void check(const OpCheck& c) const {
        UnfoldArgs::checkWindows(c, batch, len, window, step, positions);
        c.buf(dx, elems(batch, len), "dx");
        c.buf(dcols, elems(batch, positions, window), "dcols");
        c.disjoint(dx, elems(batch, len), "dx", dcols, elems(batch, positions, window), "dcols");
    }
};

// ---- losses: per-row loss value into loss[rows], gradient into dy ----
// MSE: loss = mean over cols of (y - t)^2; dy = 2 (y - t) / cols * gradScale.
struct MseLossArgs {
    int rows = 0, cols = 0;
    BufRef y, target, dy, loss;
    float gradScale = 1.0f;
    void check(const OpCheck& c) const {
        c.matrices(rows, cols, {{y, "y"}, {target, "target"}, {dy, "dy"}});
        c.buf(loss, elems(rows), "loss");
    }
};
// Softmax cross-entropy on logits: p = softmax(y); loss = -sum t log p;
// dy = (p - t) * gradScale; probabilities into prob.
struct SoftmaxCrossEntropyArgs {
    int rows = 0, cols = 0;
    BufRef logits, target, prob, dy, loss;
    float gradScale = 1.0f;
    void check(const OpCheck& c) const {
        c.matrices(rows, cols,
                   {{logits, "logits"}, {target, "target"}, {prob, "prob"}, {dy, "dy"}});
        c.buf(loss, elems(rows), "loss");
    }
};

// ---- optimizers (weight decay is decoupled for Adam, i.e. AdamW when non-zero) ----
// `skip`, when not empty, is a divergence flag (see RecordOutcomesArgs): the step does nothing
// once skip[0] >= 0, so the weights stay those of the last finite batch.
// A population (docs/decisions/population.md): `hyper` not empty; the n values are `models`
// equal slices, slice p updated with row p of `hyper` (models x kSgdHyper / kAdamHyper values,
// the scalar settings above are then ignored) and skipped once skip[p] >= 0 (skip, when given,
// has `models` flags): a stopped model is masked out of the updates.
constexpr int kSgdHyper = 3;   // lr, momentum, weightDecay
constexpr int kAdamHyper = 7;  // lr, beta1, beta2, eps, weightDecay, bc1, bc2
// The n values of each (buffer, name) in `state`, then the population's hyper table and skip flags.
inline void checkOptimizer(const OpCheck& c, size_t n,
                           std::initializer_list<std::pair<BufRef, const char*>> state, int models,
                           BufRef hyper, int perModel, BufRef skip) {
    for (const auto& [r, name] : state) c.buf(r, n, name);
    c.models(models, (long long)n, "n");
    if (hyper.empty()) {
        c.require(models == 1, "a population of " + std::to_string(models) +
                                   " models needs the per-model hyper table");
        c.optional(skip, 1, "skip flag");
        return;
    }
    c.buf(hyper, elems(models, perModel), "hyper");
    c.optional(skip, elems(models), "skip flag");
}
struct SgdStepArgs {
    size_t n = 0;
    BufRef w, g, velocity;
    float lr = 0.0f, momentum = 0.0f, weightDecay = 0.0f;
    BufRef skip;
    int models = 1;
    BufRef hyper{};
    void check(const OpCheck& c) const {
        checkOptimizer(c, n, {{w, "w"}, {g, "g"}, {velocity, "velocity"}}, models, hyper, kSgdHyper,
                       skip);
    }
};
// Adam with bias correction as PyTorch's AdamW: w -= lr * wd * w; m, v updated;
// w -= (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps), with bc1 = 1 - b1^t, bc2 = 1 - b2^t.
struct AdamStepArgs {
    size_t n = 0;
    BufRef w, g, m, v;
    float lr = 0.0f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weightDecay = 0.0f;
    float bc1 = 1.0f, bc2 = 1.0f;
    BufRef skip;
    int models = 1;
    BufRef hyper{};
    void check(const OpCheck& c) const {
        checkOptimizer(c, n, {{w, "w"}, {g, "g"}, {m, "m"}, {v, "v"}}, models, hyper, kAdamHyper,
                       skip);
    }
};

// ---- gradient clipping and per-sample loss weights ----
// The global L2 norm of n values: norm[0] = sqrt(sum g[i]^2) (one reduction); then, when
// maxNorm > 0 and norm[0] > maxNorm, g *= maxNorm / norm[0] (one scale; the factor is read
// on the device). A non-finite norm scales nothing. A population: the n values are `models`
// equal slices, each with its own norm (norm has `models` values) and its own clip.
struct ClipByGlobalNormArgs {
    size_t n = 0;
    BufRef g;
    float maxNorm = 0.0f;
    BufRef norm;
    int models = 1;
    void check(const OpCheck& c) const {
        c.models(models, (long long)n, "n");
        c.buf(g, n, "g");
        c.buf(norm, elems(models), "norm");
        c.disjoint(g, n, "g", norm, elems(models), "norm");
    }
};
// x[r][c] *= scale[r] for rows x cols values (class weights on the loss gradient).
struct ScaleRowsArgs {
    int rows = 0, cols = 0;
    BufRef scale, x;
    void check(const OpCheck& c) const {
        c.sizes({{"rows", rows}, {"cols", cols}});
        c.buf(scale, elems(rows), "scale");
        c.matrices(rows, cols, {{x, "x"}});
    }
};

// ---- dropout (training only; compute/DropoutMask.h draws the mask) ----
// Inverted dropout of n values, 0 <= rate < 1: element i is kept when
// dropoutBits(key, i) >= dropoutThreshold(rate); mask[i] = dropoutScale(rate) when kept,
// else 0; y = x * mask. The same key gives the same mask on every device. y may alias x.
// A population: `bases` not empty (models x 4 floats, splitKeyLimbs of each model's key base);
// the n values are `models` equal slices and slice p draws the mask of key
// dropoutKey(base_p, step) from its own index 0 (`key` is then ignored): the mask model p draws
// alone.
struct DropoutForwardArgs {
    size_t n = 0;
    float rate = 0.0f;
    uint64_t key = 0;
    BufRef x, mask, y;
    int models = 1;
    BufRef bases{};
    uint64_t step = 0;
    void check(const OpCheck& c) const {
        c.require(rate >= 0.0f && rate < 1.0f,
                  "rate " + std::to_string(rate) + " is outside 0 <= rate < 1");
        c.models(models, (long long)n, "n");
        if (models > 1) c.require(!bases.empty(), "a population needs per-model key bases");
        c.optional(bases, 4 * elems(models), "bases");
        c.buf(x, n, "x");
        c.buf(mask, n, "mask");
        c.buf(y, n, "y");
        c.disjoint(mask, n, "mask", x, n, "x");
        c.disjoint(mask, n, "mask", y, n, "y");
    }
};
// dx = dy * mask (the mask of the forward pass); dx may alias dy.
struct DropoutBackwardArgs {
    size_t n = 0;
    BufRef mask, dy, dx;
    void check(const OpCheck& c) const {
        c.buf(mask, n, "mask");
        c.buf(dy, n, "dy");
        c.buf(dx, n, "dx");
        c.disjoint(mask, n, "mask", dx, n, "dx");
    }
};

// ---- metrics without host round trips ----
// Per-sample outcome log of a batch of `rows` samples: log[2r] = loss[r] and
// log[2r + 1] = argmax of pred row r (ties to the first) plus, when codeWeights (cols values)
// is given, the sum of codeWeights[j] over the columns j with target[r][j] > 0.5: the task's
// encoding of the true class, chosen by model/ (see model/Metrics.h). When a loss value is not
// finite and flag[0] < 0, flag[0] = batchIndex (the first diverging batch of a run).
// A population: the rows are `models` equal blocks and flag has one value per model (block p
// sets flag[p]).
struct RecordOutcomesArgs {
    int rows = 0, cols = 0;
    BufRef pred, target, loss, log, flag;
    float batchIndex = 0.0f;
    BufRef codeWeights;
    int models = 1;
    void check(const OpCheck& c) const {
        c.sizes({{"rows", rows}, {"cols", cols}});
        c.models(models, rows, "rows");
        c.matrices(rows, cols, {{pred, "pred"}, {target, "target"}});
        c.buf(loss, elems(rows), "loss");
        c.buf(log, 2 * elems(rows), "log");
        c.buf(flag, elems(models), "flag");
        c.optional(codeWeights, elems(cols), "codeWeights");
    }
};

// ---- lightweight convolution (depthwise over the sequence) ----
// x, y: [batch][units][channels]; weight: [heads][k]; channel c uses head c / (channels/heads).
// y[b][t][c] = sum_j w'[h][j] * x[b][t + j - padL][c] (zero outside), where w' is the
// weight or its softmax over taps when `softmaxTaps`; wsm receives w' for backward.
// A population (models > 1): `batch` counts every model's samples, model m's are the m-th of
// `models` equal blocks and use the taps at weight + m * weightStride (the gradient at
// dw + m * weightStride); wsm holds models x heads x k values (model after model).
struct LightConvForwardArgs {
    int batch = 0, units = 0, channels = 0, heads = 1, k = 1, padL = 0;
    bool softmaxTaps = false;
    BufRef x, weight, wsm, y;
    int models = 1;
    size_t weightStride = 0;
    void check(const OpCheck& c) const {
        checkShape(c, batch, units, channels, heads, k, models, weightStride);
        const size_t n = elems(batch, units, channels);
        c.buf(x, n, "x");
        c.buf(y, n, "y");
        c.buf(weight, perModelExtent(models, weightStride, elems(heads, k)), "weight");
        c.buf(wsm, elems(models, heads, k), "wsm");
        c.disjoint(x, n, "x", y, n, "y");
    }
    static void checkShape(const OpCheck& c, int batch, int units, int channels, int heads, int k,
                           int models, size_t weightStride) {
        c.sizes({{"batch", batch}, {"units", units}, {"channels", channels}});
        if (heads <= 0 || channels % heads != 0)
            c.fail("channels " + std::to_string(channels) + " not divisible by heads " +
                   std::to_string(heads));
        if (k <= 0) c.fail("kernel size must be positive");
        c.models(models, batch, "batch");
        if (models > 1 && heads > 0 && k > 0)
            c.require(weightStride >= size_t(heads) * size_t(k),
                      "weightStride " + std::to_string(weightStride) + " is shorter than the " +
                          std::to_string(heads * k) + " taps");
    }
};
// dx (overwritten; skipped when empty) and dw (accumulated, w.r.t. the raw weight) from dy.
struct LightConvBackwardArgs {
    int batch = 0, units = 0, channels = 0, heads = 1, k = 1, padL = 0;
    bool softmaxTaps = false;
    BufRef x, weight, wsm, dy, dx, dw;
    int models = 1;
    size_t weightStride = 0;
    void check(const OpCheck& c) const {
        LightConvForwardArgs::checkShape(c, batch, units, channels, heads, k, models, weightStride);
        const size_t n = elems(batch, units, channels);
        const size_t taps = perModelExtent(models, weightStride, elems(heads, k));
        c.buf(x, n, "x");
        c.buf(dy, n, "dy");
        c.optional(dx, n, "dx");
        c.buf(dw, taps, "dw");
        c.buf(weight, taps, "weight");
        c.buf(wsm, elems(models, heads, k), "wsm");
        if (!dx.empty()) c.disjoint(dx, n, "dx", dy, n, "dy");
    }
};

// Every op: X(ArgsStructPrefix, entryName). Backend gets a public entry `entryName(args)` and a
// protected virtual `entryNameImpl(args)` per line (see Backend.h).
#define NNWB_OPS(X)                                   \
    X(Fill, fill)                                     \
    X(Copy, copy)                                     \
    X(Copy2d, copy2d)                                 \
    X(Axpy, axpy)                                     \
    X(Add, add)                                       \
    X(Gemm, gemm)                                     \
    X(GemmBiasActivation, gemmBiasActivation)         \
    X(BiasActivation, biasActivation)                 \
    X(ActivationBackward, activationBackward)         \
    X(BiasGradient, biasGradient)                     \
    X(ActivationBiasBackward, activationBiasBackward) \
    X(ProjectionGradient, projectionGradient)         \
    X(DenseChainForward, denseChainForward)           \
    X(DenseChainBackward, denseChainBackward)         \
    X(SoftmaxForward, softmaxForward)                 \
    X(SoftmaxBackward, softmaxBackward)               \
    X(AttentionForward, attentionForward)             \
    X(AttentionBackward, attentionBackward)           \
    X(NormForward, normForward)                       \
    X(NormBackward, normBackward)                     \
    X(AddNormForward, addNormForward)                 \
    X(AddNormBackward, addNormBackward)               \
    X(Unfold, unfold)                                 \
    X(Fold, fold)                                     \
    X(MseLoss, mseLoss)                               \
    X(SoftmaxCrossEntropy, softmaxCrossEntropy)       \
    X(SgdStep, sgdStep)                               \
    X(AdamStep, adamStep)                             \
    X(ClipByGlobalNorm, clipByGlobalNorm)             \
    X(ScaleRows, scaleRows)                           \
    X(DropoutForward, dropoutForward)                 \
    X(DropoutBackward, dropoutBackward)               \
    X(RecordOutcomes, recordOutcomes)                 \
    X(LightConvForward, lightConvForward)             \
    X(LightConvBackward, lightConvBackward)           \
    X(AttentionBlockForward, attentionBlockForward)   \
    X(AttentionBlockBackward, attentionBlockBackward)

#define NNWB_OP_ENUM(Name, name) Name,
enum class OpId { NNWB_OPS(NNWB_OP_ENUM) };
#undef NNWB_OP_ENUM

// The entry name of an op ("fill", "gemm", ...), as errors and "unsupported" reports say it.
const char* opName(OpId op);
#define NNWB_OP_ID(Name, name) OpId::Name,
inline constexpr OpId kAllOps[] = {NNWB_OPS(NNWB_OP_ID)};  // every op, in NNWB_OPS order
#undef NNWB_OP_ID

// -D defines that carry the C++ constants the kernels use (the activation codes
// NNWB_ACT_<NAME>, NNWB_ACTIVATION_COUNT), for every OpenCL program build.
std::string kernelDefines();

}  // namespace nnwb
