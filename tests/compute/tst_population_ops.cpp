// The population ops on the CPU (docs/decisions/population.md): every scenario of
// tests/common/PopulationScenarios.h run over 3 models in one call equals the same 3 models run
// one by one through the single-model op, bit for bit, in float and double storage; and the
// optimizer steps over slices that span several of the CPU's parallel blocks; large buffers in
// huge pages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

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

// The optimizer steps of a population whose models' slices span several parallel blocks (the
// CPU splits a slice into blocks of 16,384 values, here 3 per model, none a multiple of a vector):
// each block must take its own model's hyper-parameters and skip flag, and the vectorized Adam
// loop must not run across a model's edge. Mixing models in the batching fails this.
TEST(PopulationOps, optimizerBlocksKeepTheirModelBitForBit) {
    const size_t slice = 2 * 16384 + 37;
    for (Precision precision : {Precision::Float, Precision::Double})
        for (const PopulationScenario& s :
             {popdetail::adam(slice), popdetail::sgd(slice), popdetail::clip(slice, 1.0f)}) {
            CpuBackend be(precision, 2);
            const std::vector<float> together = s.run(be, true), apart = s.run(be, false);
            ASSERT_EQ(together.size(), apart.size()) << s.name;
            EXPECT_EQ(std::memcmp(together.data(), apart.data(), together.size() * sizeof(float)),
                      0)
                << s.name << (precision == Precision::Double ? " (double)" : " (float)");
        }
}

// Whether the mapping that holds `p` may take transparent huge pages (/proc/self/smaps'
// THPeligible); -1 when this system does not say.
int hugePageEligible(const void* p) {
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<uintptr_t>(p);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        unsigned long long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx ", &lo, &hi) == 2) {  // a mapping's first line
            inside = at >= lo && at < hi;
            continue;
        }
        if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
    }
    return -1;
}

// A population's arrays (megabytes: parameters, gradients, Adam moments, passed over several
// times a step) go to huge pages: a CpuBackend buffer of 4 MiB or more is 2 MiB aligned, zeroed
// and, where the kernel has transparent huge pages, advised for them (in THP's "madvise" mode
// only the advice makes them eligible). Smaller ones stay as they were.
TEST(PopulationOps, largeBuffersGoToHugePages) {
    for (Precision precision : {Precision::Float, Precision::Double}) {
        CpuBackend be(precision, 1);
        const size_t bytesPerValue = precision == Precision::Double ? 8 : 4;
        const size_t count = (size_t(4) << 20) / bytesPerValue + 3;
        Buffer big = be.alloc(count), small = be.alloc(1000);
        std::vector<float> back(count, 1.0f);
        be.download(big, back.data(), count);
        EXPECT_EQ(std::count(back.begin(), back.end(), 0.0f), ptrdiff_t(count));
        EXPECT_EQ(reinterpret_cast<uintptr_t>(big.handle()) % (size_t(2) << 20), 0u);
        std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
        std::string modes;
        std::getline(mode, modes);
        const int eligible = hugePageEligible(big.handle());
        std::ifstream status("/proc/self/status");  // "THP_enabled: 0": disabled by prctl
        bool prctlOff = false;
        for (std::string line; std::getline(status, line);)
            prctlOff = prctlOff || line.rfind("THP_enabled:\t0", 0) == 0;
        const bool thpOn = !prctlOff && (modes.find("[madvise]") != std::string::npos ||
                                         modes.find("[always]") != std::string::npos);
        if (thpOn && eligible >= 0) {  // a system that says THP is on and reports eligibility
            EXPECT_EQ(eligible, 1) << "THP modes: " << modes;
        }
        back.assign(1000, 1.0f);
        be.download(small, back.data(), 1000);
        EXPECT_EQ(std::count(back.begin(), back.end(), 0.0f), 1000);
    }
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
