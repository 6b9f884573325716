// Parity of the fused attention core (Backend::attentionForward / attentionBackward, kernels
// attention_forward and attention_backward): every OpenCL device, fused and composed from gemm
// and softmax (OpenClOptions::composedAttention), against the CpuBackend reference, on odd
// sizes with guard values, causal and not, Q/K/V and context rows wider than the heads' columns
// (the extra columns must stay as they were). The CPU reference itself is checked against the
// core composed from the public gemm and softmax ops.
#include <gtest/gtest.h>

#include "compute/OpenClBackend.h"
#include "parity/ParityHarness.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

const ParityTolerance kTol{};  // the element-wise ops' tolerance

struct Case {
    int batch, heads, units, dk, dv, extraQkv, extraCtx;
    bool causal;
};
// From one value per head up to the transformer-64 shape (64 units, 32 per key and value),
// the seed presets' (20 units, 8 and 12 heads of 4 and 8) and odd sizes of every dimension.
// Units past 64 give the kernels more 4x4 tiles than work-items (66 also under oclgrind).
const Case kCases[] = {
    {1, 1, 1, 1, 1, 0, 0, false},    {2, 3, 7, 3, 5, 2, 1, true},     {3, 8, 20, 4, 4, 0, 0, true},
    {2, 12, 20, 8, 8, 0, 0, true},   {2, 2, 33, 8, 3, 1, 3, false},   {1, 2, 65, 5, 9, 1, 0, true},
    {2, 1, 64, 32, 32, 0, 0, false}, {1, 3, 5, 17, 2, 0, 2, false},   {1, 1, 130, 4, 4, 0, 0, true},
    {2, 2, 64, 32, 32, 3, 2, true},  {2, 2, 68, 16, 12, 0, 1, false}, {1, 1, 66, 3, 2, 1, 1, true},
};

AttentionShape shapeOf(const Case& c) {
    AttentionShape s;
    s.batch = c.batch;
    s.heads = c.heads;
    s.units = c.units;
    s.keySize = c.dk;
    s.valueSize = c.dv;
    s.ldQkv = c.heads * (2 * c.dk + c.dv) + c.extraQkv;
    s.ldCtx = c.heads * c.dv + c.extraCtx;
    s.scale = 1.0f / std::sqrt(float(c.dk));
    s.causal = c.causal;
    return s;
}

std::string nameOf(const Case& c) {
    char b[160];
    std::snprintf(b, sizeof b, "attention core b%d h%d u%d dk%d dv%d +%d/+%d%s", c.batch, c.heads,
                  c.units, c.dk, c.dv, c.extraQkv, c.extraCtx, c.causal ? " causal" : "");
    return b;
}

// Softmax rows: positive, summing to 1 over the visible keys, 0 past them when causal.
std::vector<float> probabilities(const AttentionShape& s, uint32_t seed) {
    std::vector<float> p = randomVector(s.scoreCount(), seed, 0.05f, 1.0f);
    const size_t u = size_t(s.units);
    for (size_t r = 0; r < p.size() / u; ++r) {
        const size_t valid = s.causal ? r % u + 1 : u;
        float sum = 0.0f;
        for (size_t j = 0; j < valid; ++j) sum += p[r * u + j];
        for (size_t j = 0; j < u; ++j) p[r * u + j] = j < valid ? p[r * u + j] / sum : 0.0f;
    }
    return p;
}

void forwardOp(OpRun& r, const AttentionShape& s) {
    BufRef qkv = r.in("qkv", randomVector(s.qkvCount(), 11, -1.5f, 1.5f));
    BufRef p = r.out("p", randomVector(s.scoreCount(), 12));
    BufRef ctx = r.out("ctx", randomVector(s.ctxCount(), 13));
    BufRef scores = r.scratch("scores", s.scoreCount());
    r.be.attentionForward({s, qkv, p, ctx, scores});
}

void backwardOp(OpRun& r, const AttentionShape& s) {
    BufRef qkv = r.in("qkv", randomVector(s.qkvCount(), 21, -1.5f, 1.5f));
    BufRef p = r.in("p", probabilities(s, 22));
    BufRef dctx = r.in("dctx", randomVector(s.ctxCount(), 23));
    BufRef dqkv = r.out("dqkv", randomVector(s.qkvCount(), 24));
    BufRef dp = r.scratch("dp", s.scoreCount());
    BufRef ds = r.scratch("ds", s.scoreCount());
    r.be.attentionBackward({s, qkv, p, dctx, dqkv, dp, ds});
}

// The forward composed from the public ops on `be` (what Backend's default does).
void composedForward(Backend& be, const AttentionShape& s, BufRef qkv, BufRef p, BufRef ctx,
                     BufRef scores) {
    const int u = s.units, h = s.heads, d = s.keySize, dv = s.valueSize, hd = h * d;
    const size_t perQkv = size_t(u) * s.ldQkv, uu = size_t(u) * u, perP = size_t(h) * uu;
    using V = TensorView;
    const V Q = V::perHead(qkv, s.batch, h, u, d, s.ldQkv, perQkv, size_t(d));
    const V K = V::perHead(qkv + size_t(hd), s.batch, h, u, d, s.ldQkv, perQkv, size_t(d));
    const V Vv = V::perHead(qkv + size_t(2 * hd), s.batch, h, u, dv, s.ldQkv, perQkv, size_t(dv));
    const V S = V::perHead(scores, s.batch, h, u, u, u, perP, uu);
    const V P = V::perHead(p, s.batch, h, u, u, u, perP, uu);
    const V C = V::perHead(ctx, s.batch, h, u, dv, s.ldCtx, size_t(u) * s.ldCtx, size_t(dv));
    be.gemm(GemmArgs::product(Q, K.t(), S));
    be.softmaxForward({{s.batch * h * u, u, s.scale, s.causal, u}, scores, p});
    be.gemm(GemmArgs::product(P, Vv, C));
}

}  // namespace

// The parity devices, and each OpenCL device once more with the attention composed from gemm
// and softmax.
class ParityAttentionCore : public ParitySuite {
public:
    static void SetUpTestSuite() {
        ParitySuite::SetUpTestSuite();
        composed_ =
            openClVariants("composed", [](const std::string& id) -> std::unique_ptr<Backend> {
                OpenClOptions o;
                o.composedAttention = true;
                return OpenClBackend::create(id, o);
            });
    }
    static void TearDownTestSuite() {
        composed_.clear();
        ParitySuite::TearDownTestSuite();
    }

protected:
    static std::vector<std::pair<std::string, std::unique_ptr<Backend>>> composed_;
};
std::vector<std::pair<std::string, std::unique_ptr<Backend>>> ParityAttentionCore::composed_;

// The CPU reference against gemm + softmax + gemm on the CPU.
TEST_F(ParityAttentionCore, cpuAgainstComposition) {
    for (const Case& c : kCases) {
        const AttentionShape s = shapeOf(c);
        CpuBackend& be = parityDevices().cpu;
        auto upload = [&](const std::vector<float>& v) {
            Buffer b = be.alloc(v.size());
            be.upload(b, v.data(), v.size());
            return b;
        };
        Buffer qkv = upload(randomVector(s.qkvCount(), 31, -1.5f, 1.5f));
        Buffer p1 = be.alloc(s.scoreCount()), p2 = be.alloc(s.scoreCount());
        Buffer c1 = upload(std::vector<float>(s.ctxCount(), 7.0f));
        Buffer c2 = upload(std::vector<float>(s.ctxCount(), 7.0f));
        Buffer sc = be.alloc(s.scoreCount());
        be.attentionForward({s, qkv, p1, c1, sc});
        composedForward(be, s, qkv, p2, c2, sc);
        auto read = [&](const Buffer& b) {
            std::vector<float> v(b.size());
            be.download(b, v.data(), v.size());
            return v;
        };
        const std::string mp = compareNear(read(p1), read(p2), kTol.def);
        ASSERT_TRUE(mp.empty()) << nameOf(c) << " P: " << mp;
        const std::string mc = compareNear(read(c1), read(c2), kTol.def);
        ASSERT_TRUE(mc.empty()) << nameOf(c) << " C: " << mc;
    }
}

TEST_F(ParityAttentionCore, forward) {
    for (const Case& c : kCases) {
        const AttentionShape s = shapeOf(c);
        const auto op = [&](OpRun& r) { forwardOp(r, s); };
        NNWB_PARITY(op, kTol, nameOf(c) + " forward");
        for (auto& [id, be] : composed_) {
            const std::string m = runParity(id, *be, op, kTol, nameOf(c) + " forward");
            ASSERT_TRUE(m.empty()) << m;
        }
    }
}

TEST_F(ParityAttentionCore, backward) {
    for (const Case& c : kCases) {
        const AttentionShape s = shapeOf(c);
        const auto op = [&](OpRun& r) { backwardOp(r, s); };
        NNWB_PARITY(op, kTol, nameOf(c) + " backward");
        for (auto& [id, be] : composed_) {
            const std::string m = runParity(id, *be, op, kTol, nameOf(c) + " backward");
            ASSERT_TRUE(m.empty()) << m;
        }
    }
}

// The entries reject what the layout cannot hold.
TEST_F(ParityAttentionCore, rejectsBadShapes) {
    CpuBackend& be = parityDevices().cpu;
    AttentionShape s = shapeOf(kCases[1]);
    Buffer big = be.alloc(4096), p = be.alloc(4096), ctx = be.alloc(4096), sc = be.alloc(4096);
    s.ldQkv -= 3;  // narrower than the Q, K and V columns
    try {
        be.attentionForward({s, big, p, ctx, sc});
        FAIL() << "a narrow ldQkv was accepted";
    } catch (const ComputeError& e) {
        ASSERT_TRUE(std::string(e.what()).find("attentionForward: ldQkv") == 0) << e.what();
    }
    s = shapeOf(kCases[1]);
    try {
        be.attentionForward({s, big, big, ctx, sc});  // p overlaps qkv
        FAIL() << "p overlapping qkv was accepted";
    } catch (const ComputeError& e) {
        ASSERT_TRUE(std::string(e.what()).find("overlap") != std::string::npos) << e.what();
    }
}
