#include "model/layers/AttentionBlock.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/layers/LinearOps.h"

namespace nnwb {

namespace {
constexpr float kNormEps = 1e-5f;

// One (sample, head) batched product: batch0 runs over samples, batch1 over heads.
struct Strided {
    BufRef ref;
    int ld;
    size_t perSample, perHead;
};

void batchedGemm(Backend& be, int batch, int heads, bool ta, bool tb, int m, int n, int k,
                 const Strided& a, const Strided& b, const Strided& c, float beta = 0.0f) {
    GemmArgs g;
    g.transA = ta;
    g.transB = tb;
    g.m = m;
    g.n = n;
    g.k = k;
    g.beta = beta;
    g.a = a.ref;
    g.b = b.ref;
    g.c = c.ref;
    g.lda = a.ld;
    g.ldb = b.ld;
    g.ldc = c.ld;
    g.batch0 = batch;
    g.batch1 = heads;
    g.strideA0 = a.perSample;
    g.strideB0 = b.perSample;
    g.strideC0 = c.perSample;
    g.strideA1 = a.perHead;
    g.strideB1 = b.perHead;
    g.strideC1 = c.perHead;
    be.gemm(g);
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

void AttentionBlock::build(Backend& be, int maxBatch, ParamArena* arena) {
    be_ = &be;
    maxBatch_ = maxBatch;
    const int w = cfg_.window, q = cfg_.qkvWidth(), c = cfg_.ctxWidth(), f = cfg_.ffWidth();
    wqkv_ = makeParam(be, arena, prefix_ + "qkv.weight", {q, w});
    bqkv_ = makeParam(be, arena, prefix_ + "qkv.bias", {q});
    if (cfg_.w0) {
        w0_ = makeParam(be, arena, prefix_ + "w0.weight", {w, c});
        b0_ = makeParam(be, arena, prefix_ + "w0.bias", {w});
    }
    w1_ = makeParam(be, arena, prefix_ + "ff1.weight", {f, w});
    b1_ = makeParam(be, arena, prefix_ + "ff1.bias", {f});
    w2_ = makeParam(be, arena, prefix_ + "ff2.weight", {w, f});
    b2_ = makeParam(be, arena, prefix_ + "ff2.bias", {w});
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
        for (auto& v : host) v = static_cast<float>(rng.uniform(-limit, limit));
        be_->upload(p.value, host.data(), host.size());
    };
    auto zero = [&](Param& p) { be_->fill(p.value, p.count(), 0.0f); };
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

void AttentionBlock::gemm(bool ta, bool tb, int m, int n, int k, BufRef a, int lda, BufRef b,
                          int ldb, BufRef c, int ldc, float beta) {
    GemmArgs g;
    g.transA = ta;
    g.transB = tb;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = a;
    g.lda = lda;
    g.b = b;
    g.ldb = ldb;
    g.c = c;
    g.ldc = ldc;
    g.beta = beta;
    be_->gemm(g);
}

// QKV = X Wqkv^T + b (the gemm result goes through s.dqkv, unused during forward).
void AttentionBlock::project(BufRef x, int rows, Acts& a, Scratch& s) {
    linearForward(*be_, x, rows, cfg_.window, cfg_.qkvWidth(), wqkv_, bqkv_, s.dqkv, a.qkv,
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
        linearForward(be, a.ctx, rows, c, w, w0_, b0_, s.dr2, s.attn, Activation::None);
        attn = s.attn;
    }
    be.addNormForward(normRows, normCols, kNormEps, x, attn, s.r, a.x1, a.rstd1);
    linearForward(be, a.x1, rows, w, f, w1_, b1_, a.z1, a.h1, cfg_.hidden);
    linearForward(be, a.h1, rows, f, w, w2_, b2_, a.z2, a.f, cfg_.ffOut);
    a.ffMasked = dropout.active && cfg_.ffDropout > 0.0f;
    BufRef ff = a.f;
    if (a.ffMasked) {
        be.dropoutForward(n, cfg_.ffDropout, dropout.ff, a.f, a.fmask, a.fd);
        ff = a.fd;
    }
    be.addNormForward(normRows, normCols, kNormEps, a.x1, ff, s.r, a.out, a.rstd2);
}

BufRef AttentionBlock::tailBackward(BufRef dy, int rows, int normRows, Acts& a, Scratch& s) {
    Backend& be = *be_;
    const int w = cfg_.window, c = cfg_.ctxWidth(), f = cfg_.ffWidth();
    const size_t n = size_t(rows) * w;
    const int normCols = int(n / size_t(normRows));
    be.normBackward(normRows, normCols, a.out, a.rstd2, dy, s.dr2);
    BufRef df = s.dr2;  // the gradient w.r.t. F (the residual branch keeps s.dr2)
    if (a.ffMasked) {
        be.dropoutBackward(n, a.fmask, s.dr2, s.dz2);
        df = s.dz2;
    }
    be.activationBiasBackward(rows, w, a.z2, a.f, df, s.dz2, cfg_.ffOut, b2_.grad);
    gemm(true, false, w, f, rows, s.dz2, w, a.h1, f, w2_.grad, f, 1.0f);  // dW2 += dZ2^T H1
    gemm(false, false, rows, f, w, s.dz2, w, w2_.value, f, s.dh1, f);  // dH1 = dZ2 W2
    be.activationBiasBackward(rows, f, a.z1, a.h1, s.dh1, s.dh1, cfg_.hidden, b1_.grad);
    gemm(true, false, f, w, rows, s.dh1, f, a.x1, w, w1_.grad, w, 1.0f);  // dW1 += dZ1^T X1
    gemm(false, false, rows, w, f, s.dh1, f, w1_.value, w, s.dx1, w);  // dX1 = dZ1 W1
    be.addNormBackward(normRows, normCols, a.x1, a.rstd1, s.dx1, s.dr2, s.dr1);  // + residual
    if (!cfg_.w0) return s.dr1;
    gemm(true, false, w, c, rows, s.dr1, w, a.ctx, c, w0_.grad, c, 1.0f);  // dW0 += dA^T C
    be.biasGradient(rows, w, s.dr1, b0_.grad);
    gemm(false, false, rows, c, w, s.dr1, w, w0_.value, c, s.dctx, c);  // dC = dA W0
    return s.dctx;
}

void AttentionBlock::projectBackward(BufRef x, BufRef dx, int rows, Scratch& s) {
    const int w = cfg_.window, q = cfg_.qkvWidth();
    gemm(true, false, q, w, rows, s.dqkv, q, x, w, wqkv_.grad, w, 1.0f);  // dWqkv += dQKV^T X
    be_->biasGradient(rows, q, s.dqkv, bqkv_.grad);
    if (dx.empty()) return;
    gemm(false, false, rows, w, q, s.dqkv, q, wqkv_.value, w, dx, w);  // dX = dQKV Wqkv
    be_->axpy(size_t(rows) * w, 1.0f, s.dr1, dx);                      // + residual
}

void AttentionBlock::forward(BufRef x, int batch, Scratch& s, const DropoutKeys& dropout) {
    Backend& be = *be_;
    const int u = cfg_.units, h = cfg_.heads, d = cfg_.keySize, dv = cfg_.valueSize;
    const int q = cfg_.qkvWidth(), c = cfg_.ctxWidth(), hd = h * d;
    const int rows = batch * u;
    const size_t perSampleQkv = size_t(u) * q, perSampleP = size_t(h) * u * u;
    lastBatch_ = batch;
    project(x, rows, acts_, s);
    // S = Q K^T per (sample, head)
    batchedGemm(be, batch, h, false, true, u, u, d, {acts_.qkv, q, perSampleQkv, size_t(d)},
                {BufRef(acts_.qkv) + size_t(hd), q, perSampleQkv, size_t(d)},
                {s.s, u, perSampleP, size_t(u) * u});
    SoftmaxArgs sm;
    sm.rows = batch * h * u;
    sm.cols = u;
    sm.scale = 1.0f / std::sqrt(float(d));
    sm.causal = cfg_.causal;
    sm.queries = u;
    be.softmaxForward(sm, s.s, acts_.p);
    acts_.scoreMasked = dropout.active && cfg_.scoreDropout > 0.0f;
    BufRef p = acts_.p;
    if (acts_.scoreMasked) {
        be.dropoutForward(size_t(batch) * perSampleP, cfg_.scoreDropout, dropout.score, acts_.p,
                          acts_.pmask, acts_.pd);
        p = acts_.pd;
    }
    // C_h = P_h V_h, written at column h*dv of the concatenated context
    batchedGemm(be, batch, h, false, false, u, dv, u, {p, u, perSampleP, size_t(u) * u},
                {BufRef(acts_.qkv) + size_t(2 * hd), q, perSampleQkv, size_t(dv)},
                {acts_.ctx, c, size_t(u) * c, size_t(dv)});
    const int normRows = cfg_.norm == NormMode::Element ? rows : batch;
    tailForward(x, rows, normRows, acts_, s, dropout);
}

void AttentionBlock::backward(BufRef x, BufRef dy, BufRef dx, int batch, Scratch& s) {
    Backend& be = *be_;
    const int u = cfg_.units, h = cfg_.heads, d = cfg_.keySize, dv = cfg_.valueSize;
    const int q = cfg_.qkvWidth(), c = cfg_.ctxWidth(), hd = h * d;
    const int rows = batch * u;
    const size_t perSampleQkv = size_t(u) * q, perSampleP = size_t(h) * u * u;
    const int normRows = cfg_.norm == NormMode::Element ? rows : batch;
    const BufRef dctx = tailBackward(dy, rows, normRows, acts_, s);
    const Strided dC{dctx, c, size_t(u) * c, size_t(dv)};
    // P as used by the context (the dropped one when the forward applied the mask)
    const Strided P{acts_.scoreMasked ? acts_.pd : acts_.p, u, perSampleP, size_t(u) * u};
    const Strided Q{acts_.qkv, q, perSampleQkv, size_t(d)};
    const Strided K{BufRef(acts_.qkv) + size_t(hd), q, perSampleQkv, size_t(d)};
    const Strided V{BufRef(acts_.qkv) + size_t(2 * hd), q, perSampleQkv, size_t(dv)};
    const Strided dQ{s.dqkv, q, perSampleQkv, size_t(d)};
    const Strided dK{BufRef(s.dqkv) + size_t(hd), q, perSampleQkv, size_t(d)};
    const Strided dV{BufRef(s.dqkv) + size_t(2 * hd), q, perSampleQkv, size_t(dv)};
    const Strided dP{s.dp, u, perSampleP, size_t(u) * u};
    const Strided dS{s.s, u, perSampleP, size_t(u) * u};
    batchedGemm(be, batch, h, false, true, u, u, dv, dC, V, dP);  // dP = dC V^T
    batchedGemm(be, batch, h, true, false, u, dv, u, P, dC, dV);  // dV = P^T dC
    if (acts_.scoreMasked)  // dP of the softmax output = dP of the dropped P times the mask
        be.dropoutBackward(size_t(batch) * perSampleP, acts_.pmask, s.dp, s.dp);
    SoftmaxArgs sm;
    sm.rows = batch * h * u;
    sm.cols = u;
    sm.scale = 1.0f / std::sqrt(float(d));
    sm.causal = cfg_.causal;
    sm.queries = u;
    be.softmaxBackward(sm, acts_.p, s.dp, s.s);                   // dS (scaled)
    batchedGemm(be, batch, h, false, false, u, d, u, dS, K, dQ);  // dQ = dS K
    batchedGemm(be, batch, h, true, false, u, d, u, dS, Q, dK);   // dK = dS^T Q
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
    const size_t perSampleQkv = size_t(u) * q;
    be.copy2d(row_.qkv, q, BufRef(acts_.qkv) + size_t(slot) * q, int(perSampleQkv), batch, q);
    batchedGemm(be, batch, h, false, true, 1, n, d, {row_.qkv, q, size_t(q), size_t(d)},
                {BufRef(acts_.qkv) + size_t(hd), q, perSampleQkv, size_t(d)},
                {s.s, n, size_t(h) * n, size_t(n)});
    SoftmaxArgs sm;
    sm.rows = batch * h;
    sm.cols = n;
    sm.scale = 1.0f / std::sqrt(float(d));
    be.softmaxForward(sm, s.s, row_.p);
    batchedGemm(be, batch, h, false, false, 1, dv, n, {row_.p, n, size_t(h) * n, size_t(n)},
                {BufRef(acts_.qkv) + size_t(2 * hd), q, perSampleQkv, size_t(dv)},
                {row_.ctx, c, size_t(c), size_t(dv)});
    tailForward(x, batch, batch, row_, s);
}

void AttentionBlock::backwardRow(BufRef x, BufRef dy, BufRef dx, int batch, Scratch& s) {
    Backend& be = *be_;
    const int u = cfg_.units, h = cfg_.heads, d = cfg_.keySize, dv = cfg_.valueSize;
    const int q = cfg_.qkvWidth(), c = cfg_.ctxWidth(), hd = h * d;
    const int n = rowN_, slot = rowSlot_;
    const size_t perSampleQkv = size_t(u) * q, perSampleP = size_t(h) * n;
    const BufRef dctx = tailBackward(dy, batch, batch, row_, s);
    const Strided dC{dctx, c, size_t(c), size_t(dv)};
    const Strided Kc{BufRef(acts_.qkv) + size_t(hd), q, perSampleQkv, size_t(d)};
    const Strided Vc{BufRef(acts_.qkv) + size_t(2 * hd), q, perSampleQkv, size_t(dv)};
    // dP = dC V^T over the cache
    batchedGemm(be, batch, h, false, true, 1, n, dv, dC, Vc, {s.dp, n, perSampleP, size_t(n)});
    // dV of the new element only: P[slot] * dC
    batchedGemm(be, batch, h, false, false, 1, dv, 1,
                {BufRef(row_.p) + size_t(slot), 1, perSampleP, size_t(n)},
                {dctx, c, size_t(c), size_t(dv)},
                {BufRef(s.dqkv) + size_t(2 * hd), q, size_t(q), size_t(dv)});
    SoftmaxArgs sm;
    sm.rows = batch * h;
    sm.cols = n;
    sm.scale = 1.0f / std::sqrt(float(d));
    be.softmaxBackward(sm, row_.p, s.dp, s.s);
    // dQ = dS K over the cache
    batchedGemm(be, batch, h, false, false, 1, d, n, {s.s, n, perSampleP, size_t(n)}, Kc,
                {s.dqkv, q, size_t(q), size_t(d)});
    // dK of the new element only: dS[slot] * q
    batchedGemm(be, batch, h, false, false, 1, d, 1,
                {BufRef(s.s) + size_t(slot), 1, perSampleP, size_t(n)},
                {row_.qkv, q, size_t(q), size_t(d)},
                {BufRef(s.dqkv) + size_t(hd), q, size_t(q), size_t(d)});
    projectBackward(x, dx, batch, s);
}

}  // namespace nnwb
