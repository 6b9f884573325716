// Parity of the attention family across devices: forward output, input gradient and every
// parameter gradient of each layer type with odd sizes (units 1, 7, 20, 33; heads 1, 3, 8; key
// sizes 1, 4, 17) on every device of listDevices() (the float CPU backend and each OpenCL
// device) against the double-precision CPU reference, with guard values around dx.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "common/LayerParity.h"
#include "common/LayerRun.h"
#include "common/ParamName.h"
#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "compute/OpenClBackend.h"
#include "parity/ParityHarness.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

struct Case {
    const char* name;
    nlohmann::json layer;
    Shape in;
    int primeSteps = 0;  // gpt stream: forward steps before the compared one
};

nlohmann::json attn(const char* type, int heads, int key, bool causal, const char* norm) {
    nlohmann::json j{{"type", type}, {"key_size", key}, {"causal", causal}, {"norm", norm}};
    if (std::string(type) != "attention") j["heads"] = heads;
    if (std::string(type) == "attention_stack") {
        j["layers"] = 2;
        j["ff_activation"] = "sigmoid";
    }
    return j;
}

nlohmann::json gpt(int heads, int key, const char* mode) {
    return {{"type", "gpt"}, {"key_size", key}, {"heads", heads}, {"layers", 2}, {"mode", mode}};
}

nlohmann::json lightconv(int heads, int k, const char* pad, bool sm) {
    return {{"type", "lightconv"},
            {"heads", heads},
            {"kernel_size", k},
            {"padding_l", pad},
            {"softmax_taps", sm}};
}

std::vector<Case> cases() {
    return {
        {"attention u1 k1", attn("attention", 1, 1, false, "element"), {1, 5}},
        {"attention u7 k4 causal", attn("attention", 1, 4, true, "element"), {7, 9}},
        {"attention u20 k17 seq", attn("attention", 1, 17, false, "sequence"), {20, 12}},
        {"attention u33 k4 causal seq", attn("attention", 1, 4, true, "sequence"), {33, 7}},
        {"multihead u1 h1 k1", attn("multihead_attention", 1, 1, true, "element"), {1, 5}},
        {"multihead u7 h3 k4", attn("multihead_attention", 3, 4, false, "element"), {7, 9}},
        {"multihead u20 h8 k17 causal",
         attn("multihead_attention", 8, 17, true, "sequence"),
         {20, 12}},
        {"multihead u33 h3 k1 seq", attn("multihead_attention", 3, 1, false, "sequence"), {33, 6}},
        {"stack u1 h3 k4", attn("attention_stack", 3, 4, false, "element"), {1, 6}},
        {"stack u7 h1 k17 causal", attn("attention_stack", 1, 17, true, "element"), {7, 5}},
        {"stack u20 h3 k1 seq", attn("attention_stack", 3, 1, false, "sequence"), {20, 12}},
        {"stack u33 h8 k4 causal seq", attn("attention_stack", 8, 4, true, "sequence"), {33, 9}},
        {"gpt u1 h3 k4", gpt(3, 4, "sequence"), {1, 6}},
        {"gpt u7 h8 k1", gpt(8, 1, "sequence"), {7, 5}},
        {"gpt u20 h3 k17", gpt(3, 17, "sequence"), {20, 12}},
        {"gpt u33 h1 k4", gpt(1, 4, "sequence"), {33, 9}},
        {"gpt stream u7 h3 k4", gpt(3, 4, "stream"), {7, 6}, 3},
        {"gpt stream u7 h8 k17 wrapped", gpt(8, 17, "stream"), {7, 5}, 9},
        {"lightconv u1 h1 k3", lightconv(1, 3, "causal", true), {1, 5}},
        {"lightconv u7 h3 k5", lightconv(3, 5, "centred", false), {7, 9}},
        {"lightconv u20 h4 k31", lightconv(4, 31, "causal", false), {20, 12}},
        {"lightconv u33 h2 k15", lightconv(2, 15, "centred", true), {33, 6}},
        {"lightconv u33 h7 k7", lightconv(7, 7, "causal", true), {33, 7}},
    };
}

LayerResult runCase(std::unique_ptr<Backend> be, const Case& c) {
    const int batch = 3;
    LayerRun r(std::move(be), makeLayer(c.layer), c.in, batch, 17);
    for (int k = 0; k < c.primeSteps; ++k) {
        r.setInput(randomDoubles(r.inCount(), 300 + k));
        r.forward(false);
    }
    r.setInput(randomDoubles(r.inCount(), 71));
    std::vector<double> y = r.forward();
    return layerResult(r, std::move(y), r.backward(randomDoubles(r.outCount(), 72)));
}

// One row per device of listDevices() and case. Under NNWB_PARITY_MAX_VALUES (oclgrind): the
// 1-unit case of every layer type (every attention kernel runs) and the 7-unit single-block ones
// (masks and softmax rows longer than one); the stacks and GPT at 7 units take minutes in the
// simulator.
std::vector<LayerRow> layerRows() {
    std::vector<LayerRow> rows;
    const auto all = cases();
    const bool small = parityCheckingDevice();
    auto smallCase = [](const Case& c) {
        const std::string type = c.layer["type"];
        return c.in.units == 1 ||
               (c.in.units == 7 &&
                (type == "attention" || type == "multihead_attention" || type == "lightconv"));
    };
    for (const auto& id : testDeviceIds())
        for (size_t i = 0; i < all.size(); ++i)
            if (!small || smallCase(all[i])) rows.push_back({id + " " + all[i].name, id, i});
    return rows;
}

}  // namespace

class ParityAttentionLayer : public ::testing::TestWithParam<LayerRow> {};

TEST(ParityAttention, openclDevicesPresent) {
    if (openClDeviceIds().empty())
        GTEST_SKIP() << "no OpenCL device: only the float CPU backend is compared";
}

// An attention block whose feed-forward output has no activation passes dF on as dZ2 (f' = 1):
// on OpenCL's per-op path that saves the activation_backward launch of each layer's FF2.
TEST(ParityAttention, linearFeedForwardOutputTakesNoActivationBackward) {
    for (const std::string& id : openClDeviceIds()) {
        auto launches = [&](const char* ffOut) {
            OpenClOptions o;
            o.fused = "off";
            o.gemmKernel = "gemm_tiled";
            const nlohmann::json j = {{"type", "attention_stack"},
                                      {"key_size", 2},
                                      {"heads", 2},
                                      {"layers", 2},
                                      {"ff_activation", ffOut}};
            auto run = LayerRun::fromJson(OpenClBackend::create(id, o), j, Shape{5, 4}, 2);
            auto* cl = dynamic_cast<OpenClBackend*>(run->be.get());
            run->setInput(randomDoubles(run->inCount(), 3));
            run->forward();
            const uint64_t n0 = cl->enqueueCount();
            run->backward(randomDoubles(run->outCount(), 4), false);
            return cl->enqueueCount() - n0;
        };
        const uint64_t none = launches("none"), tanh = launches("tanh");
        EXPECT_EQ(tanh - none, 2u)
            << id << ": " << none << " launches without the activation, " << tanh << " with tanh";
    }
}

TEST_P(ParityAttentionLayer, layer) {
    const Case c = cases()[GetParam().index];
    const LayerResult ref = runCase(std::make_unique<CpuBackend>(Precision::Double, 1), c);
    const LayerResult got = runCase(createBackend(GetParam().device), c);
    const std::string e = compareLayerResults(got, ref);
    ASSERT_TRUE(e.empty()) << e;
}

INSTANTIATE_TEST_SUITE_P(, ParityAttentionLayer, ::testing::ValuesIn(layerRows()), RowName());
