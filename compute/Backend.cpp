#include "compute/Backend.h"

#include <type_traits>
#include <utility>
#include <vector>

namespace nnwb {

void Buffer::reset() noexcept {
    if (owner_ && handle_) owner_->release(handle_);
    owner_ = nullptr;
    handle_ = nullptr;
    count_ = 0;
}

const char* matmulPrecisionName(MatmulPrecision p) {
    return p == MatmulPrecision::High ? "high" : "highest";
}

bool matmulPrecisionFromName(const std::string& name, MatmulPrecision& out) {
    if (name != "highest" && name != "high") return false;
    out = name == "high" ? MatmulPrecision::High : MatmulPrecision::Highest;
    return true;
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

// The public entries: check once, then the backend's implementation.
#define NNWB_OP_ENTRY(Name, name)                \
    void Backend::name(const Name##Args& args) { \
        args.check(OpCheck(this, #name));        \
        name##Impl(args);                        \
    }
NNWB_OPS(NNWB_OP_ENTRY)
#undef NNWB_OP_ENTRY

void Backend::unsupported(OpId op) const {
    throw ComputeError(std::string(opName(op)) + ": not supported on " + info().name);
}

// The defaults. A composite op runs its parts (Composer::run below); every other op is not
// supported, so a new op needs no line here.
namespace {
struct Composer {
    Backend& be;
    void run(const GemmBiasActivationArgs& a) {
        be.gemm(a.gemm);
        const int models = a.gemm.batch0;  // one product per model, C dense (checked)
        be.biasActivation({a.gemm.m * models, a.gemm.n, a.gemm.c, a.bias, a.gemm.c, a.y, a.act,
                           models, a.biasStride});
    }
    void run(const ActivationBiasBackwardArgs& a) {
        be.activationBackward({a.rows, a.cols, a.z, a.y, a.dy, a.dz, a.act});
        be.biasGradient({a.rows, a.cols, a.dz, a.db, a.models, a.dbStride});
    }
    void run(const ProjectionGradientArgs& a) {
        const int models = a.gemm.batch0, rows = a.gemm.k * models, cols = a.gemm.m;
        if (a.dy.empty())
            be.biasGradient({rows, cols, a.gemm.a, a.db, models, a.dbStride});
        else
            be.activationBiasBackward(
                {rows, cols, a.z, a.y, a.dy, a.gemm.a, a.act, a.db, models, a.dbStride});
        be.gemm(a.gemm);
    }
    // The chain's layers one by one, as model/layers/LinearOps does for one dense layer.
    void run(const DenseChainForwardArgs& a) {
        for (int i = 0; i < a.layers; ++i) {
            const DenseChainLayer& l = a.l[i];
            const GemmArgs g = GemmArgs::product(
                TensorView::modelRows(a.input(i), a.models, a.rows, l.in),
                TensorView::modelMatrices(l.w, a.models, l.stride, l.out, l.in).t(),
                TensorView::modelRows(l.z, a.models, a.rows, l.out));
            be.gemmBiasActivation({g, l.b, l.act, l.y, a.models > 1 ? l.stride : 0});
        }
    }
    // Last layer first: dz = dy * f'(z) with db, dW += dz^T input, and the input gradient
    // dz W into the previous layer's dz (or dx), which its activation backward then scales in
    // place.
    void run(const DenseChainBackwardArgs& a) {
        for (int i = a.layers; i-- > 0;) {
            const DenseChainLayer& l = a.l[i];
            const BufRef dy = i == a.layers - 1 ? a.dy : l.dz;
            be.activationBiasBackward({a.rows, l.out, l.z, l.y, dy, l.dz, l.act, l.db, a.models,
                                       a.models > 1 ? l.stride : 0});
            const TensorView dz = TensorView::modelRows(l.dz, a.models, a.rows, l.out);
            be.gemm(GemmArgs::product(
                dz.t(), TensorView::modelRows(a.input(i), a.models, a.rows, l.in),
                TensorView::modelMatrices(l.dw, a.models, l.stride, l.out, l.in), 1.0f));
            const BufRef dx = i > 0 ? a.l[i - 1].dz : a.dx;
            if (dx.empty()) continue;
            be.gemm(GemmArgs::product(
                dz, TensorView::modelMatrices(l.w, a.models, l.stride, l.out, l.in),
                TensorView::modelRows(dx, a.models, a.rows, l.in), 0.0f));
        }
    }
    void run(const AddNormForwardArgs& a) {
        be.add({elems(a.rows, a.cols), a.a, a.b, a.sum});
        be.normForward({a.rows, a.cols, a.eps, a.sum, a.y, a.rstd});
    }
    void run(const AddNormBackwardArgs& a) {
        be.axpy({elems(a.rows, a.cols), 1.0f, a.dy2, a.dy});
        be.normBackward({a.rows, a.cols, a.y, a.rstd, a.dy, a.dx});
    }

    // The attention core from per-(sample, head) products and the row softmax.
    struct HeadViews {
        TensorView q, k, v, c;
        HeadViews(const AttentionShape& s, BufRef qkv, BufRef ctx) {
            const int u = s.units, h = s.heads, d = s.keySize, dv = s.valueSize, hd = h * d;
            const size_t perQkv = size_t(u) * s.ldQkv, perCtx = size_t(u) * s.ldCtx;
            q = TensorView::perHead(qkv, s.batch, h, u, d, s.ldQkv, perQkv, size_t(d));
            k = TensorView::perHead(qkv + size_t(hd), s.batch, h, u, d, s.ldQkv, perQkv, size_t(d));
            v = TensorView::perHead(qkv + size_t(2 * hd), s.batch, h, u, dv, s.ldQkv, perQkv,
                                    size_t(dv));
            c = TensorView::perHead(ctx, s.batch, h, u, dv, s.ldCtx, perCtx, size_t(dv));
        }
        static TensorView square(const AttentionShape& s, BufRef r) {
            const size_t uu = size_t(s.units) * s.units;
            return TensorView::perHead(r, s.batch, s.heads, s.units, s.units, s.units,
                                       size_t(s.heads) * uu, uu);
        }
    };
    static SoftmaxShape softmaxOf(const AttentionShape& s) {
        return {s.batch * s.heads * s.units, s.units, s.scale, s.causal, s.units};
    }
    void run(const AttentionForwardArgs& a) {
        if (a.s.batch == 0) return;
        const HeadViews x(a.s, a.qkv, a.ctx);
        be.gemm(GemmArgs::product(x.q, x.k.t(), HeadViews::square(a.s, a.scores)));  // S = Q K^T
        be.softmaxForward({softmaxOf(a.s), a.scores, a.p});
        be.gemm(GemmArgs::product(HeadViews::square(a.s, a.p), x.v, x.c));  // C = P V
    }
    void run(const AttentionBackwardArgs& a) {
        if (a.s.batch == 0) return;
        const HeadViews x(a.s, a.qkv, a.dctx), dx(a.s, a.dqkv, a.dctx);
        const TensorView P = HeadViews::square(a.s, a.p), dP = HeadViews::square(a.s, a.dp),
                         dS = HeadViews::square(a.s, a.ds);
        be.gemm(GemmArgs::product(x.c, x.v.t(), dP));  // dP = dC V^T
        be.gemm(GemmArgs::product(P.t(), x.c, dx.v));  // dV = P^T dC
        be.softmaxBackward({softmaxOf(a.s), a.p, a.dp, a.ds});
        be.gemm(GemmArgs::product(dS, x.k, dx.q));      // dQ = dS K
        be.gemm(GemmArgs::product(dS.t(), x.q, dx.k));  // dK = dS^T Q
    }
};
template <class A, class = void>
struct Composes : std::false_type {};
template <class A>
struct Composes<A, std::void_t<decltype(std::declval<Composer&>().run(std::declval<const A&>()))>>
    : std::true_type {};

// Composer's run for a composite op, else `otherwise` (the op is not supported).
template <class A, class F>
void composeOr(Backend& be, const A& args, F otherwise) {
    if constexpr (Composes<A>::value)
        Composer{be}.run(args);
    else
        otherwise();
}
}  // namespace

#define NNWB_OP_DEFAULT(Name, name)                                  \
    void Backend::name##Impl(const Name##Args& args) {               \
        composeOr(*this, args, [this] { unsupported(OpId::Name); }); \
    }
NNWB_OPS(NNWB_OP_DEFAULT)
#undef NNWB_OP_DEFAULT

}  // namespace nnwb
