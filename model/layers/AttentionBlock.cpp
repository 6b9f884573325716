#include "model/layers/AttentionBlock.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/layers/LinearOps.h"

namespace nnwb {

namespace {
constexpr float kNormEps = 1e-5f;

using M = TensorView;

// The dropout of one site: its key, or a population's per-model key bases and step.
DropoutForwardArgs siteDropout(size_t n, float rate, const BlockDropoutKeys& k, uint64_t key,
                               BufRef bases, BufRef x, BufRef mask, BufRef y) {
    DropoutForwardArgs a{n, rate, key, x, mask, y};
    if (k.models > 1) {
        a.key = 0;
        a.models = k.models;
        a.bases = bases;
        a.step = k.step;
    }
    return a;
}
}  // namespace

const std::vector<std::string>& normModeNames() {
    static const std::vector<std::string> n{"element", "sequence"};
    return n;
}

std::string normModeName(NormMode m) {
    return normModeNames()[static_cast<int>(m)];
}

NormMode normModeFromName(const std::string& name) {
    if (name == "element") return NormMode::Element;
    if (name == "sequence") return NormMode::Sequence;
    throw std::invalid_argument("unknown norm mode '" + name + "' (element or sequence)");
}

size_t AttentionBlock::Config::parameterCount() const {
    const size_t w = size_t(window), q = size_t(qkvWidth()), c = size_t(ctxWidth()),
                 f = size_t(ffWidth());
    size_t n = q * w + q;
    if (w0) n += w * c + w;
    n += f * w + f + w * f + w;
    return n;
}

void AttentionBlock::Scratch::allocate(Backend& be, const Config& c, size_t rows, size_t scores) {
    const size_t w = size_t(c.window);
    s = be.alloc(scores);
    dp = be.alloc(scores);
    attn = be.alloc(rows * w);
    r = be.alloc(rows * w);
    dr2 = be.alloc(rows * std::max(w, size_t(c.ctxWidth())));
    dz2 = be.alloc(rows * w);
    dh1 = be.alloc(rows * size_t(c.ffWidth()));
    dx1 = be.alloc(rows * w);
    dr1 = be.alloc(rows * w);
    dctx = be.alloc(rows * size_t(c.ctxWidth()));
    dqkv = be.alloc(rows * size_t(c.qkvWidth()));
}

AttentionBlock::AttentionBlock(const Config& config, std::string prefix)
    : cfg_(config), prefix_(std::move(prefix)) {
    if (!cfg_.w0 && cfg_.ctxWidth() != cfg_.window)
        throw std::invalid_argument(
            "attention block without W0 needs heads * value size == window");
}

void AttentionBlock::allocActs(Acts& a, size_t rows, size_t scores) {
    Backend& be = *be_;
    const size_t w = size_t(cfg_.window), f = size_t(cfg_.ffWidth());
    a.qkv = be.alloc(rows * size_t(cfg_.qkvWidth()));
    a.p = be.alloc(scores);
    a.ctx = be.alloc(rows * size_t(cfg_.ctxWidth()));
    a.x1 = be.alloc(rows * w);
    a.rstd1 = be.alloc(rows);
    a.z1 = be.alloc(rows * f);
    a.h1 = be.alloc(rows * f);
    a.z2 = be.alloc(rows * w);
    a.f = be.alloc(rows * w);
    a.out = be.alloc(rows * w);
    a.rstd2 = be.alloc(rows);
    if (cfg_.scoreDropout > 0.0f) {
        a.pd = be.alloc(scores);
        a.pmask = be.alloc(scores);
    }
    if (cfg_.ffDropout > 0.0f) {
        a.fd = be.alloc(rows * w);
        a.fmask = be.alloc(rows * w);
    }
}

void AttentionBlock::build(Backend& be, int maxBatch, ParamArena* arena, int models) {
    be_ = &be;
    maxBatch_ = maxBatch;
    const int w = cfg_.window, q = cfg_.qkvWidth(), c = cfg_.ctxWidth(), f = cfg_.ffWidth();
    wqkv_ = makeParam(be, arena, prefix_ + "qkv.weight", {q, w}, models);
    bqkv_ = makeParam(be, arena, prefix_ + "qkv.bias", {q}, models);
    if (cfg_.w0) {
        w0_ = makeParam(be, arena, prefix_ + "w0.weight", {w, c}, models);
        b0_ = makeParam(be, arena, prefix_ + "w0.bias", {w}, models);
    }
    w1_ = makeParam(be, arena, prefix_ + "ff1.weight", {f, w}, models);
    b1_ = makeParam(be, arena, prefix_ + "ff1.bias", {f}, models);
    w2_ = makeParam(be, arena, prefix_ + "ff2.weight", {w, f}, models);
    b2_ = makeParam(be, arena, prefix_ + "ff2.bias", {w}, models);
    const size_t u = size_t(cfg_.units);
    allocActs(acts_, size_t(maxBatch) * u, size_t(maxBatch) * cfg_.heads * u * u);
}

void AttentionBlock::buildRow(int maxBatch) {
    allocActs(row_, size_t(maxBatch), size_t(maxBatch) * cfg_.heads * size_t(cfg_.units));
}

void AttentionBlock::initWeights(Rng& rng) {
    const double w = cfg_.window, q = cfg_.qkvWidth(), c = cfg_.ctxWidth(), f = cfg_.ffWidth();
    auto uniform = [&](Param& p, double limit) {
        std::vector<float> host(p.count());
        for (int m = 0; m < p.models; ++m) {
            for (auto& v : host) v = static_cast<float>(rng.uniform(-limit, limit));
            be_->upload(p.value + m * p.modelStride, host.data(), host.size());
        }
    };
    auto zero = [&](Param& p) {
        for (int m = 0; m < p.models; ++m)
            be_->fill({p.value + m * p.modelStride, p.count(), 0.0f});
    };
    uniform(wqkv_, std::sqrt(6.0 / (w + q)));
    zero(bqkv_);
    if (cfg_.w0) {
        uniform(w0_, std::sqrt(6.0 / (c + w)));
        zero(b0_);
    }
    uniform(w1_, std::sqrt(6.0 / (w + f)));
    zero(b1_);
    uniform(w2_, std::sqrt(6.0 / (f + w)));
    zero(b2_);
}

std::vector<Param*> AttentionBlock::params() {
    if (cfg_.w0) return {&wqkv_, &bqkv_, &w0_, &b0_, &w1_, &b1_, &w2_, &b2_};
    return {&wqkv_, &bqkv_, &w1_, &b1_, &w2_, &b2_};
}

// The attention softmax of `rows` rows of `cols` scores (causal when the block is), scaled by
// 1 / sqrt(keySize) as the fused core is.
SoftmaxShape AttentionBlock::scoreShape(int rows, int cols) const {
    return {rows, cols, coreShape(0).scale, cfg_.causal, /*queries=*/cols};
}

// The attention core's shape for `batch` samples of the whole sequence.
AttentionShape AttentionBlock::coreShape(int batch) const {
    return {batch,
            cfg_.heads,
            cfg_.units,
            cfg_.keySize,
            cfg_.valueSize,
            /*ldQkv=*/cfg_.qkvWidth(),
            /*ldCtx=*/cfg_.ctxWidth(),
            1.0f / std::sqrt(float(cfg_.keySize)),
            cfg_.causal};
}

AttentionBlockShape AttentionBlock::blockShape(int batch) const {
    AttentionBlockShape b;
    b.batch = batch;
    b.models = wqkv_.models;
    b.units = cfg_.units;
    b.window = cfg_.window;
    b.heads = cfg_.heads;
    b.keySize = cfg_.keySize;
    b.valueSize = cfg_.valueSize;
    b.w0 = cfg_.w0;
    b.causal = cfg_.causal;
    b.sequenceNorm = cfg_.norm == NormMode::Sequence;
    b.hidden = cfg_.hidden;
    b.ffOut = cfg_.ffOut;
    b.eps = kNormEps;
    return b;
}

BlockParams AttentionBlock::blockParams(bool grads) const {
    BlockParams p;
    const Param* all[kBlockParams] = {&wqkv_, &bqkv_, &w0_, &b0_, &w1_, &b1_, &w2_, &b2_};
    for (int i = 0; i < kBlockParams; ++i) {
        if (!cfg_.w0 && (i == kBlockW0W || i == kBlockW0B)) continue;
        p.p[i] = grads ? all[i]->grad : all[i]->value;
        p.stride[i] = all[i]->modelStride;
    }
    return p;
}

BlockActs AttentionBlock::blockActs() const {
    const Acts& a = acts_;
    return {a.qkv, a.p, a.ctx, a.x1, a.rstd1, a.z1, a.h1, a.z2, a.f, a.out, a.rstd2};
}

// QKV = X Wqkv^T + b, straight into a.qkv (no activation: z and y are one buffer, stored once).
void AttentionBlock::project(BufRef x, int rows, Acts& a, Scratch&) {
    linearForward(*be_, x, rows, cfg_.window, cfg_.qkvWidth(), wqkv_, bqkv_, a.qkv, a.qkv,
                  Activation::None);
}

// From the context a.ctx to the block output a.out.
void AttentionBlock::tailForward(BufRef x, int rows, int normRows, Acts& a, Scratch& s,
                                 const DropoutKeys& dropout) {
    Backend& be = *be_;
    const int w = cfg_.window, c = cfg_.ctxWidth(), f = cfg_.ffWidth();
    const size_t n = size_t(rows) * w;
    const int normCols = int(n / size_t(normRows));
    BufRef attn = a.ctx;
    if (cfg_.w0) {
        linearForward(be, a.ctx, rows, c, w, w0_, b0_, s.attn, s.attn, Activation::None);
        attn = s.attn;
    }
    be.addNormForward({normRows, normCols, kNormEps, x, attn, s.r, a.x1, a.rstd1});
    linearForward(be, a.x1, rows, w, f, w1_, b1_, a.z1, a.h1, cfg_.hidden);
    linearForward(be, a.h1, rows, f, w, w2_, b2_, a.z2, a.f, cfg_.ffOut);
    a.ffMasked = dropout.active && cfg_.ffDropout > 0.0f;
    BufRef ff = a.f;
    if (a.ffMasked) {
        be.dropoutForward(siteDropout(n, cfg_.ffDropout, dropout, dropout.ff, dropout.ffBases, a.f,
                                      a.fmask, a.fd));
        ff = a.fd;
    }
    be.addNormForward({normRows, normCols, kNormEps, a.x1, ff, s.r, a.out, a.rstd2});
}

BufRef AttentionBlock::tailBackward(BufRef dy, BufRef dx, int rows, int normRows, Acts& a,
                                    Scratch& s) {
    Backend& be = *be_;
    const int w = cfg_.window, c = cfg_.ctxWidth(), f = cfg_.ffWidth();
    const size_t n = size_t(rows) * w;
    const int normCols = int(n / size_t(normRows));
    be.normBackward({normRows, normCols, a.out, a.rstd2, dy, s.dr2});
    BufRef df = s.dr2;  // the gradient w.r.t. F (the residual branch keeps s.dr2)
    if (a.ffMasked) {
        be.dropoutBackward({n, a.fmask, s.dr2, s.dz2});
        df = s.dz2;
    }
    // dZ2 = dF f'(Z2), dW2 += dZ2^T H1, db2 += column sums of dZ2. Without an ffOut activation
    // dZ2 is dF itself (f' = 1): no activation backward, a copy of dF, of its own.
    const bool linearOut = cfg_.ffOut == Activation::None;
    const BufRef dz2 = linearOut ? df : BufRef(s.dz2);
    linearParamGradients(be, a.h1, dz2, rows, f, w, w2_, b2_, cfg_.ffOut, a.z2, a.f,
                         linearOut ? BufRef() : df);
    linearInputGradient(be, dz2, rows, f, w, w2_, s.dh1, 0.0f);  // dH1 = dZ2 W2
    // dZ1 = dH1 f'(Z1) in place, dW1 += dZ1^T X1, db1
    linearParamGradients(be, a.x1, s.dh1, rows, w, f, w1_, b1_, cfg_.hidden, a.z1, a.h1, s.dh1);
    linearInputGradient(be, s.dh1, rows, w, f, w1_, s.dx1, 0.0f);  // dX1 = dZ1 W1
    // dR1 straight into dx when there is one: projectBackward then adds dQKV Wqkv to it in its
    // product (beta 1) instead of an axpy of its own. dy is not read after normBackward, so dx
    // may even be dy's buffer.
    const BufRef dr1 = dx.empty() ? BufRef(s.dr1) : dx;
    be.addNormBackward({normRows, normCols, a.x1, a.rstd1, s.dx1, s.dr2, dr1});  // + residual
    if (!cfg_.w0) return dr1;
    linearParamGradients(be, a.ctx, dr1, rows, c, w, w0_, b0_);   // dW0 += dA^T C, db0
    linearInputGradient(be, dr1, rows, c, w, w0_, s.dctx, 0.0f);  // dC = dA W0
    return s.dctx;
}

void AttentionBlock::projectBackward(BufRef x, BufRef dx, int rows, Scratch& s) {
    Backend& be = *be_;
    const int w = cfg_.window, q = cfg_.qkvWidth();
    linearParamGradients(be, x, s.dqkv, rows, w, q, wqkv_, bqkv_);  // dWqkv += dQKV^T X, dbqkv
    if (dx.empty()) return;
    linearInputGradient(be, s.dqkv, rows, w, q, wqkv_, dx, 1.0f);  // dX = dR1 + dQKV Wqkv
}

// Per (sample, head) views of the attention buffers: Q, K, V are column blocks of the fused
// QKV rows (width q), scores are u x u (or 1 x n for one row) per head.
AttentionBlock::QkvHeads AttentionBlock::qkvHeads(BufRef qkv, int batch) const {
    const int u = cfg_.units, h = cfg_.heads, d = cfg_.keySize, dv = cfg_.valueSize;
    const int q = cfg_.qkvWidth();
    const size_t perQkv = size_t(u) * q;
    return {M::perHead(qkv, batch, h, u, d, q, perQkv, size_t(d)),
            M::perHead(qkv + size_t(h * d), batch, h, u, d, q, perQkv, size_t(d)),
            M::perHead(qkv + size_t(2 * h * d), batch, h, u, dv, q, perQkv, size_t(dv))};
}

TensorView AttentionBlock::scoreHeads(BufRef scores, int batch) const {
    const int u = cfg_.units;
    const size_t uu = size_t(u) * u;
    return M::perHead(scores, batch, cfg_.heads, u, u, u, size_t(cfg_.heads) * uu, uu);
}

TensorView AttentionBlock::ctxHeads(BufRef ctx, int batch) const {  // C_h at column h * dv
    const int u = cfg_.units, dv = cfg_.valueSize, c = cfg_.ctxWidth();
    return M::perHead(ctx, batch, cfg_.heads, u, dv, c, size_t(u) * c, size_t(dv));
}

void AttentionBlock::forward(BufRef x, int batch, Scratch& s, const DropoutKeys& dropout) {
    Backend& be = *be_;
    const int u = cfg_.units, h = cfg_.heads, rows = batch * u;
    lastBatch_ = batch;
    acts_.scoreMasked = dropout.active && cfg_.scoreDropout > 0.0f;
    // The whole block in one launch where the backend fuses it (never with dropout masks).
    const bool anyMask = acts_.scoreMasked || (dropout.active && cfg_.ffDropout > 0.0f);
    if (!anyMask && be.fusesAttentionBlock(blockShape(batch))) {
        acts_.ffMasked = false;
        be.attentionBlockForward({blockShape(batch), x, blockParams(false), blockActs()});
        return;
    }
    project(x, rows, acts_, s);
    if (!acts_.scoreMasked) {  // the fused core: S = Q K^T, P = softmax, C = P V
        be.attentionForward({coreShape(batch), acts_.qkv, acts_.p, acts_.ctx, s.s});
    } else {  // the dropped P between the softmax and the context
        const QkvHeads in = qkvHeads(acts_.qkv, batch);
        be.gemm(GemmArgs::product(in.q, in.k.t(), scoreHeads(s.s, batch)));  // S = Q K^T
        be.softmaxForward({scoreShape(batch * h * u, u), s.s, acts_.p});
        be.dropoutForward(siteDropout(size_t(batch) * h * u * u, cfg_.scoreDropout, dropout,
                                      dropout.score, dropout.scoreBases, acts_.p, acts_.pmask,
                                      acts_.pd));
        be.gemm(GemmArgs::product(scoreHeads(acts_.pd, batch), in.v,
                                  ctxHeads(acts_.ctx, batch)));  // C_h = P_h V_h
    }
    const int normRows = cfg_.norm == NormMode::Element ? rows : batch;
    tailForward(x, rows, normRows, acts_, s, dropout);
}

void AttentionBlock::backward(BufRef x, BufRef dy, BufRef dx, int batch, Scratch& s) {
    Backend& be = *be_;
    const int u = cfg_.units, h = cfg_.heads, rows = batch * u;
    if (!acts_.scoreMasked && !acts_.ffMasked && be.fusesAttentionBlock(blockShape(batch))) {
        be.attentionBlockBackward(
            {blockShape(batch), x, dy, dx, blockParams(false), blockParams(true), blockActs()});
        return;
    }
    const int normRows = cfg_.norm == NormMode::Element ? rows : batch;
    const BufRef dctx = tailBackward(dy, dx, rows, normRows, acts_, s);
    if (!acts_.scoreMasked) {
        be.attentionBackward({coreShape(batch), acts_.qkv, acts_.p, dctx, s.dqkv, s.dp, s.s});
        projectBackward(x, dx, rows, s);
        return;
    }
    const M dC = ctxHeads(dctx, batch);
    // P as used by the context (the dropped one when the forward applied the mask)
    const M P = scoreHeads(acts_.pd, batch);
    const QkvHeads in = qkvHeads(acts_.qkv, batch), d = qkvHeads(s.dqkv, batch);
    const M dP = scoreHeads(s.dp, batch), dS = scoreHeads(s.s, batch);
    be.gemm(GemmArgs::product(dC, in.v.t(), dP));  // dP = dC V^T
    be.gemm(GemmArgs::product(P.t(), dC, d.v));    // dV = P^T dC
    // dP of the softmax output = dP of the dropped P times the mask
    be.dropoutBackward({size_t(batch) * h * u * u, acts_.pmask, s.dp, s.dp});
    be.softmaxBackward({scoreShape(batch * h * u, u), acts_.p, s.dp, s.s});  // dS (scaled)
    be.gemm(GemmArgs::product(dS, in.k, d.q));                               // dQ = dS K
    be.gemm(GemmArgs::product(dS.t(), in.q, d.k));                           // dK = dS^T Q
    projectBackward(x, dx, rows, s);
}

std::vector<float> AttentionBlock::readScores(int sample) {
    const size_t per = size_t(cfg_.heads) * cfg_.units * cfg_.units;
    std::vector<float> out(per);
    if (sample < 0 || sample >= lastBatch_) return {};
    be_->download(BufRef(acts_.p) + size_t(sample) * per, out.data(), per);
    return out;
}

void AttentionBlock::forwardRow(BufRef x, int batch, int slot, int n, Scratch& s) {
    Backend& be = *be_;
    const int u = cfg_.units, h = cfg_.heads, d = cfg_.keySize, dv = cfg_.valueSize;
    const int q = cfg_.qkvWidth(), c = cfg_.ctxWidth(), hd = h * d;
    if (slot < 0 || slot >= n || n > u) throw std::logic_error("forwardRow: bad slot/count");
    rowSlot_ = slot;
    rowN_ = n;
    project(x, batch, row_, s);
    // The new element's Q, K, V become row `slot` of the cache.
    const size_t perQkv = size_t(u) * q, perP = size_t(h) * n;
    be.copy2d({row_.qkv, q, BufRef(acts_.qkv) + size_t(slot) * q, int(perQkv), batch, q});
    auto heads = [&](BufRef r, int m, int cols, int ld, size_t perSample, size_t perHead) {
        return M::perHead(r, batch, h, m, cols, ld, perSample, perHead);
    };
    const M Qr = heads(row_.qkv, 1, d, q, size_t(q), size_t(d));
    const M Kc = heads(BufRef(acts_.qkv) + size_t(hd), n, d, q, perQkv, size_t(d));
    const M Vc = heads(BufRef(acts_.qkv) + size_t(2 * hd), n, dv, q, perQkv, size_t(dv));
    const M Sr = heads(s.s, 1, n, n, perP, size_t(n)), Pr = heads(row_.p, 1, n, n, perP, size_t(n));
    const M Cr = heads(row_.ctx, 1, dv, c, size_t(c), size_t(dv));
    be.gemm(GemmArgs::product(Qr, Kc.t(), Sr));  // scores of the new element over the cache
    SoftmaxShape sm = scoreShape(batch * h, n);
    sm.causal = false;
    be.softmaxForward({sm, s.s, row_.p});
    be.gemm(GemmArgs::product(Pr, Vc, Cr));
    tailForward(x, batch, batch, row_, s);
}

void AttentionBlock::backwardRow(BufRef x, BufRef dy, BufRef dx, int batch, Scratch& s) {
    Backend& be = *be_;
    const int u = cfg_.units, h = cfg_.heads, d = cfg_.keySize, dv = cfg_.valueSize;
    const int q = cfg_.qkvWidth(), c = cfg_.ctxWidth(), hd = h * d;
    const int n = rowN_, slot = rowSlot_;
    const size_t perQkv = size_t(u) * q, perP = size_t(h) * n;
    auto heads = [&](BufRef r, int m, int cols, int ld, size_t perSample, size_t perHead) {
        return M::perHead(r, batch, h, m, cols, ld, perSample, perHead);
    };
    const BufRef dctx = tailBackward(dy, dx, batch, batch, row_, s);
    const M dC = heads(dctx, 1, dv, c, size_t(c), size_t(dv));
    const M Kc = heads(BufRef(acts_.qkv) + size_t(hd), n, d, q, perQkv, size_t(d));
    const M Vc = heads(BufRef(acts_.qkv) + size_t(2 * hd), n, dv, q, perQkv, size_t(dv));
    const M dP = heads(s.dp, 1, n, n, perP, size_t(n)), dS = heads(s.s, 1, n, n, perP, size_t(n));
    const M pSlot = heads(BufRef(row_.p) + size_t(slot), 1, 1, 1, perP, size_t(n));
    const M dsSlot = heads(BufRef(s.s) + size_t(slot), 1, 1, 1, perP, size_t(n));
    const M qRow = heads(row_.qkv, 1, d, q, size_t(q), size_t(d));
    const M dQ = heads(s.dqkv, 1, d, q, size_t(q), size_t(d));
    const M dK = heads(BufRef(s.dqkv) + size_t(hd), 1, d, q, size_t(q), size_t(d));
    const M dV = heads(BufRef(s.dqkv) + size_t(2 * hd), 1, dv, q, size_t(q), size_t(dv));
    be.gemm(GemmArgs::product(dC, Vc.t(), dP));  // dP = dC V^T over the cache
    be.gemm(GemmArgs::product(pSlot, dC, dV));   // dV of the new element only: P[slot] dC
    SoftmaxShape sm = scoreShape(batch * h, n);
    sm.causal = false;
    be.softmaxBackward({sm, row_.p, s.dp, s.s});
    be.gemm(GemmArgs::product(dS, Kc, dQ));        // dQ = dS K over the cache
    be.gemm(GemmArgs::product(dsSlot, qRow, dK));  // dK of the new element only: dS[slot] q
    projectBackward(x, dx, batch, s);
}

}  // namespace nnwb
