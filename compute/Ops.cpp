#include "compute/Ops.h"

#include <algorithm>

#include "compute/Backend.h"

namespace nnwb {

void OpCheck::fail(const std::string& why) const {
    throw ComputeError(std::string(op_) + ": " + why);
}

void OpCheck::require(bool ok, const std::string& why) const {
    if (!ok) fail(why);
}

void OpCheck::models(int models, long long count, const char* what) const {
    if (models < 1) fail("models must be at least 1 (got " + std::to_string(models) + ")");
    if (count % models != 0)
        fail(std::string(what) + " " + std::to_string(count) + " is not divisible by models " +
             std::to_string(models));
}

void OpCheck::buf(BufRef r, size_t n, const char* what) const {
    if (n == 0) return;
    // The passing check first: every op entry runs it per buffer, and the message below (two
    // strings on the heap) cost about 7 % of a 5x8 b1 training step on the CPU (perf).
    if (!r.empty() && r.buf->backend() == backend_ && r.offset <= r.buf->size() &&
        n <= r.buf->size() - r.offset)
        return;
    // "<op> <argument>: <why>", e.g. "gemm C: access of 9 values at offset 0 overruns ..."
    const std::string where = std::string(op_) + " " + what + ": ";
    if (r.empty()) throw ComputeError(where + "missing buffer");
    if (r.buf->backend() != backend_)
        throw ComputeError(where + "buffer belongs to another backend");
    if (r.offset > r.buf->size() || n > r.buf->size() - r.offset)
        throw ComputeError(where + "access of " + std::to_string(n) + " values at offset " +
                           std::to_string(r.offset) + " overruns a buffer of " +
                           std::to_string(r.buf->size()));
}

void OpCheck::optional(BufRef r, size_t n, const char* what) const {
    if (!r.empty()) buf(r, n, what);
}

void OpCheck::sizes(std::initializer_list<std::pair<const char*, long long>> named) const {
    for (const auto& [name, value] : named)
        if (value < 0) fail(std::string("invalid size ") + name + " " + std::to_string(value));
}

void OpCheck::matrices(int rows, int cols,
                       std::initializer_list<std::pair<BufRef, const char*>> named) const {
    sizes({{"rows", rows}, {"cols", cols}});
    for (const auto& [r, name] : named) buf(r, elems(rows, cols), name);
}

void OpCheck::disjoint(BufRef a, size_t na, const char* aName, BufRef b, size_t nb,
                       const char* bName) const {
    if (na == 0 || nb == 0 || a.empty() || b.empty() || a.buf != b.buf) return;
    if (a.offset < b.offset + nb && b.offset < a.offset + na)
        fail(std::string(aName) + " [" + std::to_string(a.offset) + ", " +
             std::to_string(a.offset + na) + ") overlaps " + bName + " [" +
             std::to_string(b.offset) + ", " + std::to_string(b.offset + nb) + ") in one buffer");
}

namespace {
// One operand of a product as (transposed, leading dimension), from its view's strides.
struct Operand {
    bool trans;
    int ld;
};
Operand operand(const TensorView& v, const char* name) {
    const int rows = v.rows(), cols = v.cols();
    if (v.strides[3] == 1)  // row-major: rows ld apart (any ld when there is one row)
        return {false, rows <= 1 ? std::max(int(v.strides[2]), cols) : int(v.strides[2])};
    if (v.strides[2] == 1)  // a transposed view: columns ld apart
        return {true, cols <= 1 ? std::max(int(v.strides[3]), rows) : int(v.strides[3])};
    throw ComputeError(std::string("gemm: operand ") + name +
                       " is strided along both matrix dimensions");
}
}  // namespace

GemmArgs GemmArgs::product(const TensorView& a, const TensorView& b, const TensorView& c,
                           float beta, float alpha) {
    if (a.rows() != c.rows() || b.cols() != c.cols() || a.cols() != b.rows() ||
        a.dims[0] != c.dims[0] || b.dims[0] != c.dims[0] || a.dims[1] != c.dims[1] ||
        b.dims[1] != c.dims[1])
        throw ComputeError("gemm: shapes do not fit: A " + std::to_string(a.dims[0]) + "x" +
                           std::to_string(a.dims[1]) + "x" + std::to_string(a.rows()) + "x" +
                           std::to_string(a.cols()) + ", B " + std::to_string(b.dims[0]) + "x" +
                           std::to_string(b.dims[1]) + "x" + std::to_string(b.rows()) + "x" +
                           std::to_string(b.cols()) + ", C " + std::to_string(c.dims[0]) + "x" +
                           std::to_string(c.dims[1]) + "x" + std::to_string(c.rows()) + "x" +
                           std::to_string(c.cols()));
    const Operand oa = operand(a, "A"), ob = operand(b, "B"), oc = operand(c, "C");
    if (oc.trans) throw ComputeError("gemm: the result C cannot be a transposed view");
    GemmArgs g;
    g.transA = oa.trans;
    g.transB = ob.trans;
    g.m = c.rows();
    g.n = c.cols();
    g.k = a.cols();
    g.alpha = alpha;
    g.beta = beta;
    g.a = a.ref;
    g.b = b.ref;
    g.c = c.ref;
    g.lda = oa.ld;
    g.ldb = ob.ld;
    g.ldc = oc.ld;
    g.batch0 = c.dims[0];
    g.batch1 = c.dims[1];
    g.strideA0 = a.strides[0];
    g.strideB0 = b.strides[0];
    g.strideC0 = c.strides[0];
    g.strideA1 = a.strides[1];
    g.strideB1 = b.strides[1];
    g.strideC1 = c.strides[1];
    return g;
}

void GemmArgs::check(const OpCheck& c) const {
    c.sizes({{"m", m},
             {"n", n},
             {"k", k},
             {"lda", lda},
             {"ldb", ldb},
             {"ldc", ldc},
             {"batch0", batch0},
             {"batch1", batch1}});
    if (m == 0 || n == 0 || batch0 == 0 || batch1 == 0) return;
    // rows x cols of op(X); storage is (trans ? cols x rows : rows x cols)
    auto extent = [](bool trans, int rows, int cols, int ld) {
        const int sr = trans ? cols : rows, sc = trans ? rows : cols;
        return size_t(sr - 1) * size_t(ld) + size_t(sc);
    };
    const size_t lastA = size_t(batch0 - 1) * strideA0 + size_t(batch1 - 1) * strideA1;
    const size_t lastB = size_t(batch0 - 1) * strideB0 + size_t(batch1 - 1) * strideB1;
    const size_t lastC = size_t(batch0 - 1) * strideC0 + size_t(batch1 - 1) * strideC1;
    const size_t extC = lastC + extent(false, m, n, ldc);
    c.buf(this->c, extC, "C");
    if (k == 0) return;
    const size_t extA = lastA + extent(transA, m, k, lda);
    const size_t extB = lastB + extent(transB, k, n, ldb);
    c.buf(a, extA, "A");
    c.buf(b, extB, "B");
    c.disjoint(this->c, extC, "C", a, extA, "A");
    c.disjoint(this->c, extC, "C", b, extB, "B");
}

void GemmBiasActivationArgs::check(const OpCheck& c) const {
    const bool dense = gemm.batch0 == 1 || gemm.strideC0 == elems(gemm.m, gemm.n);
    if (gemm.batch0 < 1 || gemm.batch1 != 1 || gemm.ldc != gemm.n || !dense)
        c.fail("needs one product per model with ldc == n and strideC0 == m * n (got " +
               std::to_string(gemm.batch0) + "x" + std::to_string(gemm.batch1) + " products, ldc " +
               std::to_string(gemm.ldc) + ", n " + std::to_string(gemm.n) + ", strideC0 " +
               std::to_string(gemm.strideC0) + ")");
    gemm.check(c);
    const size_t n = elems(gemm.batch0, gemm.m, gemm.n);
    c.buf(y, n, "y");
    if (n > 0) c.optional(bias, perModelExtent(gemm.batch0, biasStride, elems(gemm.n)), "bias");
}

void ProjectionGradientArgs::check(const OpCheck& c) const {
    const int models = gemm.batch0;
    const bool dense = models == 1 || gemm.strideA0 == elems(gemm.k, gemm.m);
    if (!gemm.transA || models < 1 || gemm.batch1 != 1 || gemm.lda != gemm.m || !dense)
        c.fail(
            "needs A = dz transposed, one product per model (transA, lda == m, strideA0 == k * "
            "m; got transA " +
            std::to_string(gemm.transA) + ", " + std::to_string(models) + "x" +
            std::to_string(gemm.batch1) + " products, lda " + std::to_string(gemm.lda) + ", m " +
            std::to_string(gemm.m) + ", strideA0 " + std::to_string(gemm.strideA0) + ")");
    gemm.check(c);
    const int rows = gemm.k * models;
    if (dy.empty())
        BiasGradientArgs{rows, gemm.m, gemm.a, db, models, dbStride}.check(c);
    else
        ActivationBiasBackwardArgs{rows, gemm.m, z, y, dy, gemm.a, act, db, models, dbStride}.check(
            c);
}

void DenseChainArgs::checkChain(const OpCheck& c, bool backward) const {
    c.sizes({{"rows", rows}, {"layers", layers}});
    c.require(layers >= 1 && layers <= kMaxDenseChain,
              "needs 1 to " + std::to_string(kMaxDenseChain) + " layers (got " +
                  std::to_string(layers) + ")");
    c.models(models, rows, "rows");
    for (int i = 0; i < layers; ++i) {
        const DenseChainLayer& a = l[i];
        const std::string at = "layer " + std::to_string(i) + ": ";
        c.require(a.in > 0 && a.out > 0, at + "needs in > 0 and out > 0 (got " +
                                             std::to_string(a.in) + ", " + std::to_string(a.out) +
                                             ")");
        if (i > 0)
            c.require(a.in == l[i - 1].out, at + "input width " + std::to_string(a.in) +
                                                " is not the previous output width " +
                                                std::to_string(l[i - 1].out));
        c.require(models == 1 || a.stride >= elems(a.out, a.in),
                  at + "model stride " + std::to_string(a.stride) + " under one model's " +
                      std::to_string(elems(a.out, a.in)) + " weights");
        const size_t n = elems(rows, a.out);
        c.buf(a.w, perModelExtent(models, a.stride, elems(a.out, a.in)), "w");
        c.buf(a.b, perModelExtent(models, a.stride, elems(a.out)), "b");
        c.buf(a.z, n, "z");
        c.buf(a.y, n, "y");
        if (!backward) continue;
        c.buf(a.dw, perModelExtent(models, a.stride, elems(a.out, a.in)), "dw");
        c.buf(a.db, perModelExtent(models, a.stride, elems(a.out)), "db");
        c.buf(a.dz, n, "dz");
    }
    if (rows == 0) return;
    c.buf(x, elems(rows, l[0].in), "x");
    if (!backward) return;
    c.buf(dy, elems(rows, l[layers - 1].out), "dy");
    c.optional(dx, elems(rows, l[0].in), "dx");
}

void AttentionBlockShape::check(const OpCheck& c) const {
    c.sizes({{"batch", batch}});
    c.models(models, batch, "batch");
    c.require(units > 0 && window > 0 && heads > 0 && keySize > 0 && valueSize > 0,
              "units, window, heads, keySize and valueSize must be positive");
    c.require(w0 || ctxWidth() == window, "without W0, heads * valueSize (" +
                                              std::to_string(ctxWidth()) + ") must equal window (" +
                                              std::to_string(window) + ")");
    c.require(hidden != Activation::Softmax && ffOut != Activation::Softmax,
              "the fused block takes element-wise activations only (not softmax)");
}

void BlockParams::check(const OpCheck& c, const AttentionBlockShape& s, const char* what) const {
    static const char* const names[kBlockParams] = {"qkv.weight", "qkv.bias",   "w0.weight",
                                                    "w0.bias",    "ff1.weight", "ff1.bias",
                                                    "ff2.weight", "ff2.bias"};
    for (int i = 0; i < kBlockParams; ++i) {
        const size_t n = s.paramCount(i);
        const std::string name = std::string(what) + " " + names[i];
        c.buf(p[i], perModelExtent(s.models, stride[i], n), name.c_str());
        if (s.models > 1 && n > 0)
            c.require(stride[i] >= n, name + ": stride " + std::to_string(stride[i]) +
                                          " is shorter than its " + std::to_string(n) + " values");
    }
}

void BlockActs::check(const OpCheck& c, const AttentionBlockShape& s) const {
    const size_t r = s.rows(), w = size_t(s.window), fw = size_t(s.ffWidth());
    c.buf(qkv, r * size_t(s.qkvWidth()), "qkv");
    c.buf(p, elems(s.batch, s.heads) * elems(s.units, s.units), "p");
    c.buf(ctx, r * size_t(s.ctxWidth()), "ctx");
    c.buf(x1, r * w, "x1");
    c.buf(rstd1, s.normRows(), "rstd1");
    c.buf(z1, r * fw, "z1");
    c.buf(h1, r * fw, "h1");
    c.buf(z2, r * w, "z2");
    c.buf(f, r * w, "f");
    c.buf(out, r * w, "out");
    c.buf(rstd2, s.normRows(), "rstd2");
}

void AttentionBlockForwardArgs::check(const OpCheck& c) const {
    s.check(c);
    const size_t n = s.rows() * size_t(s.window);
    c.buf(x, n, "x");
    w.check(c, s, "weight");
    a.check(c, s);
    c.disjoint(x, n, "x", a.out, n, "out");
    c.disjoint(x, n, "x", a.x1, n, "x1");
}

void AttentionBlockBackwardArgs::check(const OpCheck& c) const {
    s.check(c);
    const size_t n = s.rows() * size_t(s.window);
    c.buf(x, n, "x");
    c.buf(dy, n, "dy");
    c.optional(dx, n, "dx");
    w.check(c, s, "weight");
    g.check(c, s, "gradient");
    a.check(c, s);
    if (!dx.empty()) c.disjoint(x, n, "x", dx, n, "dx");
}

const char* opName(OpId op) {
    switch (op) {
#define NNWB_OP_NAME(Name, name) \
    case OpId::Name:             \
        return #name;
        NNWB_OPS(NNWB_OP_NAME)
#undef NNWB_OP_NAME
    }
    return "?";
}

std::string kernelDefines() {
    std::string d;
#define NNWB_ACT_DEFINE(name, NAME) \
    d += " -DNNWB_ACT_" #NAME "=" + std::to_string(int(Activation::name));
    NNWB_ACTIVATIONS(NNWB_ACT_DEFINE)
#undef NNWB_ACT_DEFINE
#define NNWB_ACT_ONE(name, NAME) +1
    d += " -DNNWB_ACTIVATION_COUNT=" + std::to_string(0 NNWB_ACTIVATIONS(NNWB_ACT_ONE));
#undef NNWB_ACT_ONE
    return d.substr(1);
}

}  // namespace nnwb
