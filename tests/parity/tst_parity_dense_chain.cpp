// Parity of the dense chain ops (Backend::denseChainForward / denseChainBackward, kernels/
// dense_chain.cl): every OpenCL device as it chooses (auto: fused up to 64 rows in all and
// 2^26 weight reads, composed past that and for softmax) and forced fused at any batch
// (OpenClOptions::fused "on"), against the CpuBackend reference (the layers op by op), with guard
// values: the seed presets' head (480 -> 200 -> 200 -> 3), odd widths, every element-wise
// activation, softmax (never fused), one layer, a population of models with parameters a stride
// apart, no dx, and more rows than the auto mode fuses.
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>

#include "compute/OpenClBackend.h"
#include "parity/ParityHarness.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

// Sums over up to 480 products: a little more room than the element-wise ops'.
const ParityTolerance kTol{{1e-4, 1e-4}, {}};

struct Case {
    const char* name;
    int batch, models;
    std::vector<int> widths;  // input width, then each layer's output width
    std::vector<Activation> acts;
    bool dx = true;
};
using A = Activation;
const Case kCases[] = {
    {"5x8 head b1", 1, 1, {480, 200, 200, 3}, {A::Tanh, A::Tanh, A::Sigmoid}},
    {"odd b3", 3, 1, {7, 5, 3, 2}, {A::Relu, A::LeakyRelu, A::None}},
    {"four layers swish", 2, 1, {9, 6, 11, 4, 2}, {A::Swish, A::Tanh, A::Sigmoid, A::None}},
    {"population of 3", 2, 3, {6, 5, 4}, {A::Tanh, A::Sigmoid}},
    {"softmax last", 2, 1, {5, 4, 3}, {A::Tanh, A::Softmax}},
    {"one layer, no dx", 3, 1, {6, 4}, {A::LeakyRelu}, false},
    {"70 rows", 70, 1, {8, 6, 3}, {A::Tanh, A::Sigmoid}},
};

std::string nameOf(const Case& c, const char* what) {
    return std::string("dense chain ") + c.name + " " + what;
}

// The chain of case c over buffers of `r`: all parameters in one buffer (as in a ParamArena),
// model m's a stride apart with a gap, every layer's z, y, dz of their own.
struct Chain {
    DenseChainArgs a;
    Chain(OpRun& r, const Case& c, bool backward) {
        const int layers = int(c.acts.size());
        a.rows = c.batch * c.models;
        a.models = c.models;
        a.layers = layers;
        size_t per = 0;  // one model's parameters
        for (int i = 0; i < layers; ++i) per += size_t(c.widths[i + 1]) * (c.widths[i] + 1);
        const size_t stride = per + 3;
        const size_t all = stride * size_t(c.models);
        BufRef w = r.in("params", randomVector(all, 41, -0.4f, 0.4f));
        BufRef g = backward ? r.out("grads", randomVector(all, 42)) : BufRef();
        a.x = r.in("x", randomVector(size_t(a.rows) * c.widths[0], 43, -1.5f, 1.5f));
        size_t off = 0;
        for (int i = 0; i < layers; ++i) {
            DenseChainLayer& l = a.l[i];
            l.in = c.widths[i];
            l.out = c.widths[i + 1];
            l.act = c.acts[i];
            l.stride = c.models > 1 ? stride : 0;
            l.w = w + off;
            l.b = w + off + size_t(l.out) * l.in;
            if (backward) {
                l.dw = g + off;
                l.db = g + off + size_t(l.out) * l.in;
            }
            off += size_t(l.out) * (l.in + 1);
            const size_t n = size_t(a.rows) * l.out;
            const std::string at = std::to_string(i);
            l.z = r.out("z" + at, randomVector(n, 50 + i));
            l.y = r.out("y" + at, randomVector(n, 60 + i));
            if (backward) l.dz = r.out("dz" + at, randomVector(n, 70 + i));
        }
        if (!backward) return;
        a.dy = r.in("dy", randomVector(size_t(a.rows) * c.widths.back(), 44));
        if (c.dx) a.dx = r.out("dx", randomVector(size_t(a.rows) * c.widths[0], 45));
    }
};

void forwardOp(OpRun& r, const Case& c) {
    r.be.denseChainForward({Chain(r, c, false).a});
}

void backwardOp(OpRun& r, const Case& c) {
    const Chain ch(r, c, true);
    r.be.denseChainForward({ch.a});
    r.be.denseChainBackward({ch.a});
}

}  // namespace

// The parity devices (auto), and each OpenCL device forced fused.
class ParityDenseChain : public ParitySuite {
public:
    static void SetUpTestSuite() {
        ParitySuite::SetUpTestSuite();
        fused_ = openClVariants("fused", [](const std::string& id) {
            OpenClOptions o;
            o.fused = "on";
            return OpenClBackend::create(id, o);
        });
    }
    static void TearDownTestSuite() {
        fused_.clear();
        ParitySuite::TearDownTestSuite();
    }

protected:
    // One case on every device, auto and fused (when it is in NNWB_PARITY_SLICE).
    void check(const OpFn& op, const std::string& context) {
        if (!parityNextCaseInSlice()) return;
        for (auto& dev : parityDevices().cl) {
            const std::string m = runParity(dev.first, *dev.second, op, kTol, context);
            ASSERT_TRUE(m.empty()) << m;
        }
        for (auto& [id, be] : fused_) {
            const std::string m = runParity(id, *be, op, kTol, context);
            ASSERT_TRUE(m.empty()) << m;
        }
    }
    static std::vector<std::pair<std::string, std::unique_ptr<OpenClBackend>>> fused_;
};
std::vector<std::pair<std::string, std::unique_ptr<OpenClBackend>>> ParityDenseChain::fused_;

TEST_F(ParityDenseChain, forward) {
    for (const Case& c : kCases) check([&](OpRun& r) { forwardOp(r, c); }, nameOf(c, "forward"));
}

TEST_F(ParityDenseChain, backward) {
    for (const Case& c : kCases) check([&](OpRun& r) { backwardOp(r, c); }, nameOf(c, "backward"));
}

// The fused kernels really run where they apply: one launch forward, two backward.
TEST_F(ParityDenseChain, fusedLaunches) {
    for (auto& [id, be] : fused_) {
        OpRun r(*be);
        const Chain ch(r, kCases[1], true);
        const uint64_t n0 = be->enqueueCount();
        be->denseChainForward({ch.a});
        const uint64_t n1 = be->enqueueCount();
        be->denseChainBackward({ch.a});
        const uint64_t n2 = be->enqueueCount();
        ASSERT_EQ(n1 - n0, 1u) << id;
        ASSERT_EQ(n2 - n1, 2u) << id;
    }
}

// The auto rule (OpenClOptions::fused auto) also bounds the weight reads, rows x one model's
// weights (every row's work-group reads them): 2^26. The 5x8 head (136,803 weights) at 64 rows
// (8.8M) and 12x12's (480 -> 1000 -> 1000 -> 3, 1,485,003 weights) at 32 rows (47.5M) run fused,
// one launch forward; 12x12's at 64 rows (95M) op by op, a launch a layer at least.
TEST_F(ParityDenseChain, autoFusesUpToTheWeightReadsBound) {
    if (parityCheckingDevice()) GTEST_SKIP() << "large heads: too slow under a checking device";
    using W = std::vector<int>;
    const std::vector<Activation> acts{A::Tanh, A::Tanh, A::Sigmoid};
    struct Row {
        Case c;
        bool fused;
    };
    const Row rows[] = {{{"5x8 head b64", 64, 1, W{480, 200, 200, 3}, acts}, true},
                        {{"12x12 head b32", 32, 1, W{480, 1000, 1000, 3}, acts}, true},
                        {{"12x12 head b64", 64, 1, W{480, 1000, 1000, 3}, acts}, false}};
    for (const std::string& id : openClDeviceIds()) {
        auto be = OpenClBackend::create(id, OpenClOptions{});  // fused auto
        for (const Row& row : rows) {
            OpRun r(*be);
            const Chain ch(r, row.c, false);
            const uint64_t n0 = be->enqueueCount();
            be->denseChainForward({ch.a});
            const uint64_t launches = be->enqueueCount() - n0;
            if (row.fused)
                EXPECT_EQ(launches, 1u) << id << " " << row.c.name;
            else
                EXPECT_GE(launches, 3u) << id << " " << row.c.name;
        }
    }
}

// The entries reject a chain whose widths do not meet.
TEST_F(ParityDenseChain, rejectsBadChains) {
    CpuBackend& be = parityDevices().cpu;
    OpRun r(be);
    Chain ch(r, kCases[1], true);
    DenseChainArgs a = ch.a;
    a.l[1].in = 6;
    try {
        be.denseChainForward({a});
        FAIL() << "a chain of mismatched widths was accepted";
    } catch (const ComputeError& e) {
        ASSERT_NE(std::string(e.what()).find("layer 1: input width 6 is not the previous output "
                                             "width 5"),
                  std::string::npos)
            << e.what();
    }
    a = ch.a;
    a.layers = kMaxDenseChain + 1;
    ASSERT_THROW(be.denseChainBackward({a}), ComputeError);
}
