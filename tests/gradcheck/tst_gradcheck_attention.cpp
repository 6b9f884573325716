// Central finite-difference gradient checks of every parameter tensor and the input of the
// attention family (attention, multihead_attention, attention_stack, gpt, lightconv) on the
// double-precision CPU backend, in both norm modes, with and without the causal mask.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "common/GradCheck.h"
#include "common/ParamName.h"
#include "model/layers/GptLayer.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

std::unique_ptr<Backend> doubleBackend() {
    return std::make_unique<CpuBackend>(Precision::Double, 1);
}

void check(const nlohmann::json& j, const Shape& in, int batch = 2) {
    auto run = LayerRun::fromJson(doubleBackend(), j, in, batch, 5);
    size_t checked = 0;
    const std::string err = gradCheck(*run, GradCheckSettings{}, &checked);
    ASSERT_TRUE(err.empty()) << j.dump() << ": " << err;
    ASSERT_GT(checked, size_t(0));
}

// The rows of attention, multihead and stack: norm mode, causal mask, feed-forward output.
struct NormRow {
    const char* name;
    std::string norm;
    bool causal;
    std::string ffOut;
};
void PrintTo(const NormRow& r, std::ostream* os) {
    *os << r.name;
}
const NormRow kNormRows[] = {
    {"element", "element", false, "none"},
    {"element causal", "element", true, "sigmoid"},
    {"sequence", "sequence", false, "tanh"},
    {"sequence causal", "sequence", true, "none"},
};

struct GptStreamRow {
    const char* name;
    int primeSteps;
};
void PrintTo(const GptStreamRow& r, std::ostream* os) {
    *os << r.name;
}
const GptStreamRow kGptStreamRows[] = {
    {"partly filled ring", 2},
    {"full ring", 3},
    {"wrapped ring", 6},
};

struct LightconvRow {
    const char* name;
    int heads, k;
    std::string padding;
    bool softmax;
};
void PrintTo(const LightconvRow& r, std::ostream* os) {
    *os << r.name;
}
const LightconvRow kLightconvRows[] = {
    {"k3 causal softmax", 2, 3, "causal", true},
    {"k3 centred raw", 3, 3, "centred", false},
    {"k5 centred softmax", 1, 5, "centred", true},
    {"k7 causal raw", 6, 7, "causal", false},
};

}  // namespace

class GradcheckAttentionNorm : public ::testing::TestWithParam<NormRow> {};
class GradcheckAttentionGpt : public ::testing::TestWithParam<GptStreamRow> {};
class GradcheckAttentionLightconv : public ::testing::TestWithParam<LightconvRow> {};

TEST_P(GradcheckAttentionNorm, attention) {
    const NormRow& r = GetParam();
    check({{"type", "attention"},
           {"key_size", 3},
           {"causal", r.causal},
           {"norm", r.norm},
           {"ff_activation", r.ffOut}},
          Shape{5, 6});
}

TEST_P(GradcheckAttentionNorm, multihead) {
    const NormRow& r = GetParam();
    check({{"type", "multihead_attention"},
           {"key_size", 2},
           {"heads", 3},
           {"causal", r.causal},
           {"norm", r.norm},
           {"activation", "tanh"},
           {"ff_activation", r.ffOut}},
          Shape{5, 6});
}

TEST_P(GradcheckAttentionNorm, stack) {
    const NormRow& r = GetParam();
    check({{"type", "attention_stack"},
           {"key_size", 3},
           {"heads", 2},
           {"layers", 2},
           {"causal", r.causal},
           {"norm", r.norm},
           {"ff_activation", r.ffOut}},
          Shape{4, 6});
}

INSTANTIATE_TEST_SUITE_P(, GradcheckAttentionNorm, ::testing::ValuesIn(kNormRows), RowName());

TEST(GradcheckAttention, stackSingleElement) {
    check({{"type", "attention_stack"}, {"key_size", 2}, {"heads", 2}, {"layers", 2}}, Shape{1, 5},
          3);
}

// GPT: gradients flow only through the new element with the cached keys/values fixed.
// Stream mode makes that function explicit: prime the ring, then repeat the same step.
TEST_P(GradcheckAttentionGpt, gptStream) {
    const int primeSteps = GetParam().primeSteps;
    const Shape in{4, 6};
    auto run = LayerRun::fromJson(doubleBackend(),
                                  {{"type", "gpt"},
                                   {"key_size", 3},
                                   {"heads", 2},
                                   {"layers", 2},
                                   {"ff_activation", "sigmoid"},
                                   {"mode", "stream"}},
                                  in, 2, 9);
    auto& gpt = dynamic_cast<GptLayer&>(*run->layer);
    for (int k = 0; k < primeSteps; ++k) {
        run->setInput(randomDoubles(run->inCount(), 500 + k));
        run->forward(false);
    }
    const long long step = gpt.streamStep();
    run->beforeForward = [step](Layer& l) { dynamic_cast<GptLayer&>(l).setStreamStep(step); };
    size_t checked = 0;
    const std::string err = gradCheck(*run, GradCheckSettings{}, &checked);
    ASSERT_TRUE(err.empty()) << err;
}

INSTANTIATE_TEST_SUITE_P(, GradcheckAttentionGpt, ::testing::ValuesIn(kGptStreamRows), RowName());

TEST_P(GradcheckAttentionLightconv, lightconv) {
    const LightconvRow& r = GetParam();
    check({{"type", "lightconv"},
           {"heads", r.heads},
           {"kernel_size", r.k},
           {"padding_l", r.padding},
           {"softmax_taps", r.softmax}},
          Shape{7, 6}, 3);
}

INSTANTIATE_TEST_SUITE_P(, GradcheckAttentionLightconv, ::testing::ValuesIn(kLightconvRows),
                         RowName());
