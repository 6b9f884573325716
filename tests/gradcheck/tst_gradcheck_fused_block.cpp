// Central finite-difference gradient check of the fused attention block's backward
// (kernels/attention_block.cl) on every OpenCL device: a two-block attention_stack (the fused
// path, asserted) in float32, every parameter tensor and the input, both norm modes, causal and
// not, one and three samples (the reduction launch); the whole-block kernels and the split block
// (kernels/attention_block_split.cl, forced by OpenClOptions::blockSplit, asserted). Float
// differences need a larger step and tolerance than the double-precision checks of
// tst_gradcheck_attention.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "common/GradCheck.h"
#include "common/TestUtil.h"
#include "compute/OpenClBackend.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

struct FusedRow {
    const char* name;
    std::string norm;
    bool causal;
    int batch;
    const char* split;  // OpenClOptions::blockSplit: "0" the whole-block kernels, "1" split
};
void PrintTo(const FusedRow& r, std::ostream* os) {
    *os << r.name;
}
const FusedRow kFusedRows[] = {
    {"element b1", "element", false, 1, "0"},
    {"element causal b3", "element", true, 3, "0"},
    {"sequence causal b1", "sequence", true, 1, "0"},
    {"sequence b3", "sequence", false, 3, "0"},
    {"split element causal b1", "element", true, 1, "1"},
    {"split sequence b3", "sequence", false, 3, "1"},
};

class GradcheckFusedBlock : public ::testing::TestWithParam<FusedRow> {};

TEST_P(GradcheckFusedBlock, stack) {
    const auto ids = openClDeviceIds();
    if (ids.empty()) GTEST_SKIP() << "no OpenCL device";
    const FusedRow& r = GetParam();
    const nlohmann::json j{{"type", "attention_stack"},
                           {"key_size", 2},
                           {"heads", 3},
                           {"layers", 2},
                           {"causal", r.causal},
                           {"norm", r.norm},
                           {"activation", "swish"},
                           {"ff_activation", "sigmoid"}};
    const Shape in{5, 7};
    for (const std::string& id : ids) {
        SCOPED_TRACE(id);
        OpenClOptions opt;
        opt.blockSplit = r.split;
        auto be = OpenClBackend::create(id, opt);
        AttentionBlockShape s;
        s.batch = r.batch;
        s.units = in.units;
        s.window = in.window;
        s.heads = 3;
        s.keySize = 2;
        s.valueSize = 2;
        s.causal = r.causal;
        s.sequenceNorm = r.norm == "sequence";
        s.hidden = Activation::Swish;
        s.ffOut = Activation::Sigmoid;
        ASSERT_TRUE(be->fusesAttentionBlock(s)) << "the fused block does not apply on " << id;
        ASSERT_EQ(be->splitsAttentionBlock(s), std::string(r.split) == "1") << id;
        auto run = LayerRun::fromJson(std::move(be), j, in, r.batch, 5);
        GradCheckSettings gs;
        gs.eps = 1e-2;
        gs.rel = 2e-2;
        gs.abs = 2e-3;
        gs.maxPerTensor = 12;
        size_t checked = 0;
        const std::string err = gradCheck(*run, gs, &checked);
        EXPECT_TRUE(err.empty()) << err;
        EXPECT_GT(checked, size_t(50));
    }
}

INSTANTIATE_TEST_SUITE_P(rows, GradcheckFusedBlock, ::testing::ValuesIn(kFusedRows),
                         [](const auto& info) {
                             std::string n = info.param.name;
                             for (char& c : n)
                                 if (c == ' ') c = '_';
                             return n;
                         });

}  // namespace
