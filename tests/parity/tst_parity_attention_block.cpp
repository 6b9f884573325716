// Parity of the fused attention block (kernels/attention_block.cl, Backend::attentionBlockForward
// and attentionBlockBackward) on every OpenCL device against the same block composed from the
// other ops on that device (OpenClOptions::fused "off") and against the double-precision CPU
// reference: the block output, the input gradient and every parameter gradient, at odd sizes
// (units 5, window 7 or 9, heads 3, key size 2, value size 3), causal and not, each norm, with
// and without W0, each activation, batch 1 and 3, a population of 1 and 2 models, the backward
// with one work-group per sample and spread over several (OpenClOptions::blockSpread); the same
// for the split block (kernels/attention_block_split.cl, OpenClOptions::blockSplit), forced and
// where auto picks it (the 12x12 shape in NVIDIA's 48 KiB). Also the number of launches of a
// fused block step.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "common/LayerParity.h"
#include "common/LayerRun.h"
#include "common/TestUtil.h"
#include "compute/CpuBackend.h"
#include "compute/OpenClBackend.h"
#include "model/Rng.h"
#include "model/layers/AttentionBlock.h"
#include "parity/ParityHarness.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

struct BlockRow {
    std::string name;
    AttentionBlock::Config cfg;
    int samples = 1;  // per model
    int models = 1;
    int headGroup = 0;      // OpenClOptions::blockHeadGroup of the fused run
    int spread = 1;         // OpenClOptions::blockSpread of the fused run (1: one group a sample)
    bool needs64K = false;  // fits only 64 KiB of local memory or more (12x12: its QKV weights)
    // OpenClOptions::blockSplit of the fused run ("0" the whole-block kernels, "1" split; empty:
    // NNWB_CL_BLOCK_SPLIT, else auto) and whether it must run split
    std::string split = "0";
    bool expectSplit = false;
    size_t localMemory = 0;  // OpenClOptions::blockLocalMemory of the fused run
};
void PrintTo(const BlockRow& r, std::ostream* os) {
    *os << r.name;
}

AttentionBlock::Config blockConfig(bool w0, bool causal, NormMode norm, Activation hidden,
                                   Activation ffOut) {
    AttentionBlock::Config c;
    c.units = 5;
    c.heads = 3;
    c.keySize = 2;
    c.valueSize = 3;
    c.window = w0 ? 7 : 9;  // without W0 the context (3 heads x 3) is the window
    c.w0 = w0;
    c.causal = causal;
    c.norm = norm;
    c.hidden = hidden;
    c.ffOut = ffOut;
    return c;
}

std::vector<BlockRow> blockRows() {
    struct Variant {
        const char* name;
        bool w0, causal;
        NormMode norm;
        Activation hidden, ffOut;
    };
    const Variant variants[] = {
        {"w0 element", true, false, NormMode::Element, Activation::LeakyRelu, Activation::None},
        {"w0 causal element", true, true, NormMode::Element, Activation::Relu, Activation::Sigmoid},
        {"w0 sequence", true, false, NormMode::Sequence, Activation::Swish, Activation::Tanh},
        {"w0 causal sequence", true, true, NormMode::Sequence, Activation::LeakyRelu,
         Activation::Sigmoid},
        {"no-w0 causal element", false, true, NormMode::Element, Activation::Tanh,
         Activation::Swish},
        {"no-w0 sequence", false, false, NormMode::Sequence, Activation::Sigmoid, Activation::Relu},
    };
    std::vector<BlockRow> rows;
    for (const Variant& v : variants)
        for (int samples : {1, 3})
            for (int models : {1, 2}) {
                BlockRow r;
                r.name = std::string(v.name) + " b" + std::to_string(samples) + " p" +
                         std::to_string(models);
                for (char& ch : r.name)
                    if (ch == ' ' || ch == '-') ch = '_';
                r.cfg = blockConfig(v.w0, v.causal, v.norm, v.hidden, v.ffOut);
                r.samples = samples;
                r.models = models;
                rows.push_back(r);
            }
    // the block shapes of the presets mql5-fractal-5x8 and -12x12 (units 20, window 24)
    for (const auto& [name, heads, key] :
         {std::tuple{"fractal_5x8_shape", 8, 4}, std::tuple{"fractal_12x12_shape", 12, 8}}) {
        BlockRow r;
        r.name = std::string(name) + "_b3";
        r.cfg =
            blockConfig(true, true, NormMode::Sequence, Activation::LeakyRelu, Activation::Sigmoid);
        r.cfg.units = 20;
        r.cfg.window = 24;
        r.cfg.heads = heads;
        r.cfg.keySize = r.cfg.valueSize = key;
        r.samples = 3;
        r.needs64K = heads == 12;
        rows.push_back(r);
    }
    // the heads in groups (of 2: the last group has one head), as where local memory is short
    for (BlockRow r : {rows[2], rows[12], rows[23]}) {
        r.name += "_groups2";
        r.headGroup = 2;
        rows.push_back(r);
    }
    // a context wider than the feed-forward (3 heads x value 5 against 4 x window 2): the
    // backward stages C's rows, the largest tile of this shape (oclgrind saw them overrun the
    // staging area when it was sized without them)
    BlockRow wide = rows[8];
    wide.name = "wide_context_groups2";
    wide.cfg.window = 2;
    wide.cfg.keySize = 1;
    wide.cfg.valueSize = 5;
    wide.headGroup = 2;
    rows.push_back(wide);
    // the backward spread over work-groups: one per head (5x8's shape: 8, its shape rule's
    // choice at batch 1 on the H200), and 2 groups of 3 heads (one and two heads each, the
    // second in a group of 2), with direct and reduced gradients, W0 and not
    for (BlockRow r : {rows[0], rows[4], rows[15], rows[23], rows[24], rows[27], wide}) {
        r.name += "_spread";
        r.spread = r.headGroup == 2 ? 2 : r.cfg.heads;
        rows.push_back(r);
    }
    // the split block, forced: both norms, causal and not, W0 and not, batch 1 and 3, population
    // 1 and 2, the wide context, the presets' shapes (12x12: what NVIDIA runs), and one head (dX
    // without the heads' parts)
    BlockRow oneHead = rows[7];
    oneHead.name = "one_head_b3_p2";
    oneHead.cfg.heads = 1;
    for (BlockRow r : {rows[0], rows[3], rows[5], rows[6], rows[9], rows[14], rows[16], rows[23],
                       wide, rows[24], rows[25], oneHead}) {
        r.name += "_split";
        r.split = "1";
        r.expectSplit = true;
        r.headGroup = 0;
        r.needs64K = false;
        rows.push_back(r);
    }
    // the 12x12 shape where the device gives a work-group 48 KiB (NVIDIA's OpenCL): auto splits
    // (NNWB_CL_BLOCK_SPLIT=0 takes it back to per op, and this row fails)
    BlockRow nvidia = rows[25];
    nvidia.name = "fractal_12x12_shape_b3_48k_auto";
    nvidia.split = "";
    nvidia.expectSplit = true;
    nvidia.needs64K = false;
    nvidia.localMemory = 49152;
    rows.push_back(nvidia);
    return rows;
}

// One forward and backward of a block: the output, the input gradient and every parameter
// gradient (every model's), in the order of params().
struct BlockResult {
    std::vector<double> out, dx;
    std::vector<std::vector<double>> grads;
    bool fused = false, split = false;
    uint64_t forwardLaunches = 0, backwardLaunches = 0;
};

BlockResult runBlock(Backend& be, const BlockRow& row) {
    const AttentionBlock::Config& c = row.cfg;
    const int batch = row.samples * row.models;
    AttentionBlock block(c, "");
    block.build(be, batch, nullptr, row.models);
    Rng rng(23);
    block.initWeights(rng);
    // non-zero biases, so that a bias read at a wrong offset shows
    for (Param* p : block.params())
        if (p->shape.size() == 1)
            for (int m = 0; m < p->models; ++m) {
                const auto v = randomVector(p->count(), uint32_t(40 + m + p->count()), -0.3f, 0.3f);
                be.upload(p->value + m * p->modelStride, v.data(), v.size());
            }
    const size_t rows = size_t(batch) * c.units, n = rows * c.window;
    AttentionBlock::Scratch scratch;
    scratch.allocate(be, c, rows, size_t(batch) * c.heads * c.units * c.units);
    Buffer x = be.alloc(n), dy = be.alloc(n), dx = be.alloc(n);
    const auto xv = randomVector(n, 5, -1.5f, 1.5f), dyv = randomVector(n, 6);
    be.upload(x, xv.data(), n);
    be.upload(dy, dyv.data(), n);

    BlockResult r;
    OpenClBackend* cl = dynamic_cast<OpenClBackend*>(&be);
    uint64_t n0 = cl ? cl->enqueueCount() : 0;
    block.forward(x, batch, scratch);
    uint64_t n1 = cl ? cl->enqueueCount() : 0;
    block.backward(x, dy, dx, batch, scratch);
    uint64_t n2 = cl ? cl->enqueueCount() : 0;
    r.forwardLaunches = n1 - n0;
    r.backwardLaunches = n2 - n1;
    AttentionBlockShape s;
    s.batch = batch;
    s.models = row.models;
    s.units = c.units;
    s.window = c.window;
    s.heads = c.heads;
    s.keySize = c.keySize;
    s.valueSize = c.valueSize;
    s.w0 = c.w0;
    s.causal = c.causal;
    s.sequenceNorm = c.norm == NormMode::Sequence;
    s.hidden = c.hidden;
    s.ffOut = c.ffOut;
    r.fused = be.fusesAttentionBlock(s);
    r.split = cl && cl->splitsAttentionBlock(s);

    r.out.resize(n);
    be.downloadF64(block.output(), r.out.data(), n);
    r.dx.resize(n);
    be.downloadF64(dx, r.dx.data(), n);
    for (Param* p : block.params()) {
        std::vector<double> g(p->count() * size_t(p->models));
        for (int m = 0; m < p->models; ++m)
            be.downloadF64(p->grad + m * p->modelStride, g.data() + m * p->count(), p->count());
        r.grads.push_back(std::move(g));
    }
    return r;
}

std::string compareAll(const BlockResult& got, const BlockResult& want) {
    std::string e = compareScaled("out", got.out, want.out);
    if (e.empty()) e = compareScaled("dx", got.dx, want.dx);
    for (size_t i = 0; e.empty() && i < got.grads.size(); ++i)
        e = compareScaled("grad " + std::to_string(i), got.grads[i], want.grads[i]);
    return e;
}

class FusedBlock : public ::testing::TestWithParam<BlockRow> {};

// Under a checking device (oclgrind, NNWB_PARITY_MAX_VALUES set) one fused backend serves every
// row and nothing else opens a context: oclgrind 21.10 starts its --log file afresh with each
// context, which would drop the reports of the fused kernels' context (seen here). Its heads
// go in groups of 2, so the rows run the grouped loops too.
Backend& checkedFusedBackend(const std::string& id) {
    static std::unique_ptr<OpenClBackend> be;
    if (!be) {
        OpenClOptions opt;
        opt.fused = "on";
        opt.blockHeadGroup = 2;
        be = OpenClBackend::create(id, opt);
    }
    return *be;
}

// A row's fused run on be with its spread (be keeps it: checkedFusedBackend serves every row).
BlockResult runFused(OpenClBackend& be, const BlockRow& row) {
    be.setBlockSpread(row.spread);
    if (!row.split.empty()) be.setBlockSplit(row.split);
    return runBlock(be, row);
}

TEST_P(FusedBlock, matchesComposedAndCpu) {
    const auto ids = openClDeviceIds();
    if (ids.empty()) GTEST_SKIP() << "no OpenCL device";
    const BlockRow& row = GetParam();
    CpuBackend cpu(Precision::Double, 1);
    const BlockResult ref = runBlock(cpu, row);
    for (const std::string& id : ids) {
        SCOPED_TRACE(id);
        if (parityCheckingDevice()) {  // the fused kernels against the CPU only
            const BlockResult fused =
                runFused(static_cast<OpenClBackend&>(checkedFusedBackend(id)), row);
            if (!fused.fused && row.needs64K) continue;  // oclgrind has 32 KiB
            ASSERT_TRUE(fused.fused) << "the fused block does not apply on " << id;
            EXPECT_EQ(fused.split, row.expectSplit);
            const std::string vsCpu = compareAll(fused, ref);
            EXPECT_TRUE(vsCpu.empty()) << "fused vs CPU: " << vsCpu;
            continue;
        }
        OpenClOptions fusedOpt;
        fusedOpt.fused = "on";
        fusedOpt.blockHeadGroup = row.headGroup;
        fusedOpt.blockLocalMemory = row.localMemory;
        auto fusedBe = OpenClBackend::create(id, fusedOpt);
        const BlockResult fused = runFused(*fusedBe, row);
        if (!fused.fused && row.needs64K && fusedBe->info().localMemory < 65536) {
            std::cout << "[  NOTE    ] " << row.name << " does not fit the local memory of " << id
                      << " (" << fusedBe->info().localMemory << " bytes): per op there\n";
            continue;
        }
        ASSERT_TRUE(fused.fused) << "the fused block does not apply on " << id;
        ASSERT_EQ(fused.split, row.expectSplit);
        // one launch (split: two), plus the reduction when a model has several samples
        EXPECT_EQ(fused.forwardLaunches, row.expectSplit ? 2u : 1u);
        EXPECT_EQ(fused.backwardLaunches, (row.expectSplit ? 2u : 1u) + (row.samples == 1 ? 0 : 1));
        OpenClOptions opt;
        opt.fused = "off";
        auto composedBe = OpenClBackend::create(id, opt);
        const BlockResult composed = runBlock(*composedBe, row);
        ASSERT_FALSE(composed.fused);
        EXPECT_GT(composed.forwardLaunches, 4u);
        EXPECT_GT(composed.backwardLaunches, 8u);
        const std::string vsCpu = compareAll(fused, ref), vsComposed = compareAll(fused, composed);
        EXPECT_TRUE(vsCpu.empty()) << "fused vs CPU: " << vsCpu;
        EXPECT_TRUE(vsComposed.empty()) << "fused vs composed: " << vsComposed;
    }
}

std::vector<BlockRow> rowsForDevice() {
    // under oclgrind (NNWB_PARITY_MAX_VALUES set): two rows that run every kernel and branch
    // (both norms, causal and not, W0 and not, direct and reduced gradients; heads in groups),
    // and the wide context, whose largest staged tile is C's rows; the same two rows split
    auto all = blockRows();
    if (!parityCheckingDevice()) return all;
    std::vector<BlockRow> few;
    for (const BlockRow& r : all)
        if (r.name == "w0_causal_element_b1_p2" || r.name == "no_w0_sequence_b3_p2" ||
            r.name == "wide_context_groups2" || r.name == "wide_context_groups2_spread" ||
            r.name == "w0_causal_element_b1_p2_split" || r.name == "no_w0_sequence_b3_p2_split")
            few.push_back(r);
    return few;
}

INSTANTIATE_TEST_SUITE_P(block, FusedBlock, ::testing::ValuesIn(rowsForDevice()),
                         [](const auto& info) { return info.param.name; });

}  // namespace

namespace {
// A deep stack at the block shape of mql5-fractal-12x12 (12 blocks): the fused path against the
// per-op path on the same device, output, input gradient and every parameter gradient.
TEST(FusedBlockStack, deepStackMatchesComposed) {
    const auto ids = openClDeviceIds();
    if (ids.empty()) GTEST_SKIP() << "no OpenCL device";
    if (parityCheckingDevice()) GTEST_SKIP() << "too slow under a checking device";
    const nlohmann::json j{{"type", "attention_stack"},
                           {"key_size", 8},
                           {"heads", 12},
                           {"layers", 12},
                           {"causal", true},
                           {"norm", "sequence"},
                           {"activation", "leaky_relu"},
                           {"ff_activation", "sigmoid"}};
    const Shape in{20, 24};
    for (const std::string& id : ids) {
        SCOPED_TRACE(id);
        auto result = [&](bool composed) {
            OpenClOptions opt;
            opt.fused = composed ? "off" : "on";
            LayerRun r(OpenClBackend::create(id, opt), makeLayer(j), in, 3, 9);
            r.setInput(randomDoubles(r.inCount(), 3, -2.0, 2.0));
            BlockResult out;
            out.out = r.forward();
            out.dx = r.backward(randomDoubles(r.outCount(), 4));
            for (Param* p : r.layer->params()) out.grads.push_back(r.grad(p));
            return out;
        };
        const BlockResult fused = result(false), composed = result(true);
        const std::string e = compareAll(fused, composed);
        EXPECT_TRUE(e.empty()) << e;
    }
}
}  // namespace

namespace {
// One block step at the shape of mql5-fractal-12x12 and its batch (64) where a work-group has
// 48 KiB of local memory (NVIDIA's OpenCL), with the default choices: the split block, two
// launches forward and three backward (per op, as before the split path and with
// NNWB_CL_BLOCK_SPLIT=0, it takes 7 and 13 on PoCL).
TEST(FusedBlockSplit, fractal12x12StepLaunches) {
    const auto ids = openClDeviceIds();
    if (ids.empty()) GTEST_SKIP() << "no OpenCL device";
    if (parityCheckingDevice()) GTEST_SKIP() << "too slow under a checking device";
    BlockRow row;
    for (const BlockRow& r : blockRows())
        if (r.name == "fractal_12x12_shape_b3") row = r;
    ASSERT_EQ(row.cfg.heads, 12);
    row.samples = 64;
    for (const std::string& id : ids) {
        SCOPED_TRACE(id);
        OpenClOptions opt;
        opt.blockLocalMemory = 49152;
        auto be = OpenClBackend::create(id, opt);
        if (be->info().localMemory < 49152) {
            std::cout << "[  NOTE    ] " << id << " has less than 48 KiB of local memory\n";
            continue;
        }
        const BlockResult r = runBlock(*be, row);
        EXPECT_TRUE(r.split) << "the split block does not run on " << id;
        EXPECT_LE(r.forwardLaunches, 2u);
        EXPECT_LE(r.backwardLaunches, 3u);
    }
}
}  // namespace

namespace {
// Past 64 samples a launch (where fused auto leaves the whole-block kernels out) auto runs the
// split block, measured faster than per op on the H200 (5x8, 128 models of one sample); up to
// 64 the whole-block kernels (NNWB_CL_BLOCK_SPLIT=0: per op past 64, and this test fails).
TEST(FusedBlockSplit, pastSixtyFourSamplesAutoSplits) {
    const auto ids = openClDeviceIds();
    if (ids.empty()) GTEST_SKIP() << "no OpenCL device";
    if (parityCheckingDevice()) GTEST_SKIP() << "too slow under a checking device";
    BlockRow row;
    for (const BlockRow& r : blockRows())
        if (r.name == "fractal_5x8_shape_b3") row = r;
    ASSERT_EQ(row.cfg.heads, 8);
    for (const std::string& id : ids) {
        SCOPED_TRACE(id);
        auto be = OpenClBackend::create(id, OpenClOptions{});
        row.samples = 1;
        row.models = 128;
        BlockResult r = runBlock(*be, row);
        EXPECT_TRUE(r.fused && r.split) << "128 models: not split on " << id;
        EXPECT_EQ(r.forwardLaunches, 2u);
        EXPECT_EQ(r.backwardLaunches, 2u);  // one sample a model: no reduction
        row.models = 64;
        r = runBlock(*be, row);
        OpenClOptions never;
        never.blockSplit = "0";
        auto whole = OpenClBackend::create(id, never);
        if (!runBlock(*whole, row).fused) continue;  // the whole block does not fit this device
        EXPECT_TRUE(r.fused && !r.split) << "64 models: not the whole block on " << id;
    }
}
// Past 64 samples a model auto does not split: the split backward's per-sample gradients and
// their sum made one model at batch 256 slower than per op on the H200 (12x12: 57,787 against
// 67,644 samples/s; docs/decisions/fused-block-split.md). 128 models of one sample still split.
TEST(FusedBlockSplit, oneModelPastSixtyFourSamplesRunsPerOp) {
    const auto ids = openClDeviceIds();
    if (ids.empty()) GTEST_SKIP() << "no OpenCL device";
    if (parityCheckingDevice()) GTEST_SKIP() << "too slow under a checking device";
    BlockRow row;
    for (const BlockRow& r : blockRows())
        if (r.name == "fractal_12x12_shape_b3") row = r;
    ASSERT_EQ(row.cfg.heads, 12);
    row.samples = 65;  // 64 split: fractal12x12StepLaunches
    for (const std::string& id : ids) {
        SCOPED_TRACE(id);
        OpenClOptions opt;
        opt.blockLocalMemory = 49152;  // as NVIDIA's OpenCL: the whole 12x12 block does not fit
        auto be = OpenClBackend::create(id, opt);
        if (be->info().localMemory < 49152) continue;
        const BlockResult r = runBlock(*be, row);
        EXPECT_FALSE(r.split) << "65 samples of one model split on " << id;
        EXPECT_FALSE(r.fused) << "65 samples of one model fused on " << id;
    }
}
}  // namespace
