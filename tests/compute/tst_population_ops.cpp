// The population ops on the CPU (docs/decisions/population.md): every scenario of
// tests/common/PopulationScenarios.h run over 3 models in one call equals the same 3 models run
// one by one through the single-model op, bit for bit, in float and double storage.
#include <gtest/gtest.h>

#include <cstring>

#include "common/PopulationScenarios.h"
#include "compute/CpuBackend.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

void expectSameBits(Precision precision) {
    for (const PopulationScenario& s : populationScenarios()) {
        CpuBackend be(precision);
        const std::vector<float> together = s.run(be, true), apart = s.run(be, false);
        ASSERT_EQ(together.size(), apart.size()) << s.name;
        ASSERT_FALSE(together.empty()) << s.name;
        size_t first = together.size();
        for (size_t i = 0; i < together.size() && first == together.size(); ++i)
            if (std::memcmp(&together[i], &apart[i], sizeof(float)) != 0) first = i;
        EXPECT_EQ(first, together.size())
            << s.name << ": together and one by one differ first at value " << first << " ("
            << together[first] << " vs " << apart[first] << ")";
    }
}

TEST(PopulationOps, togetherEqualsOneByOneFloat) {
    expectSameBits(Precision::Float);
}
TEST(PopulationOps, togetherEqualsOneByOneDouble) {
    expectSameBits(Precision::Double);
}

// The population arguments are checked: a split that does not divide, a missing hyper table.
TEST(PopulationOps, badSplitsAreRejected) {
    CpuBackend be;
    Buffer x = be.alloc(12), bias = be.alloc(12), h = be.alloc(7);
    try {
        be.biasActivation({5, 2, x, bias, x, x, Activation::None, 2, 3});
        FAIL() << "5 rows split into 2 models were accepted";
    } catch (const ComputeError& e) {
        EXPECT_NE(std::string(e.what()).find("rows 5 is not divisible by models 2"),
                  std::string::npos)
            << e.what();
    }
    AdamStepArgs a;
    a.n = 12;
    a.w = a.g = a.m = a.v = x;
    a.models = 2;
    EXPECT_THROW(be.adamStep(a), ComputeError);  // no hyper table
    a.hyper = h;                                 // 7 values: one model's row only
    EXPECT_THROW(be.adamStep(a), ComputeError);
    ClipByGlobalNormArgs c{12, x, 1.0f, bias};
    c.models = 0;
    EXPECT_THROW(be.clipByGlobalNorm(c), ComputeError);
}

}  // namespace
