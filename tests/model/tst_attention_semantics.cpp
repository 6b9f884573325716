// Semantics of the attention family: GPT block vs the causal stack (sequence and stream mode,
// outputs and gradients), lightweight convolution vs a direct loop, the causal mask, Score
// rows, JSON round trips and weight save/load of a stack.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/FuzzyCompare.h"
#include "common/LayerRun.h"
#include "common/ParamName.h"
#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "model/Network.h"
#include "model/NetworkWeights.h"
#include "model/layers/GptLayer.h"
#include "model/layers/LightConvLayer.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

std::unique_ptr<Backend> doubleBackend() {
    return std::make_unique<CpuBackend>(Precision::Double, 1);
}

double maxDiff(const std::vector<double>& a, const std::vector<double>& b) {
    double m = 0;
    for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
    return a.size() == b.size() ? m : 1e300;
}

nlohmann::json stackJson(int layers = 3) {
    return {{"type", "attention_stack"}, {"key_size", 3},  {"heads", 2},
            {"layers", layers},          {"causal", true}, {"ff_activation", "sigmoid"}};
}

nlohmann::json gptJson(const std::string& mode, int layers = 3) {
    return {{"type", "gpt"},    {"key_size", 3}, {"heads", 2},
            {"layers", layers}, {"mode", mode},  {"ff_activation", "sigmoid"}};
}

// Row `row` of every sample of a [batch][units][window] host tensor.
std::vector<double> rowOf(const std::vector<double>& v, const Shape& s, int batch, int row) {
    std::vector<double> out;
    for (int b = 0; b < batch; ++b)
        for (int w = 0; w < s.window; ++w)
            out.push_back(v[(size_t(b) * s.units + row) * s.window + w]);
    return out;
}

}  // namespace

TEST(AttentionSemantics, gptSequenceEqualsCausalStack) {
    const Shape in{6, 8};
    const int batch = 3;
    for (auto makeBe :
         {+[]() -> std::unique_ptr<Backend> { return doubleBackend(); },
          +[]() -> std::unique_ptr<Backend> { return std::make_unique<CpuBackend>(); }}) {
        LayerRun stack(makeBe(), makeLayer(stackJson()), in, batch, 3);
        LayerRun gpt(makeBe(), makeLayer(gptJson("sequence")), in, batch, 3);
        // Same seed, same initialization order: same weights.
        auto ps = stack.layer->params(), pg = gpt.layer->params();
        ASSERT_EQ(ps.size(), pg.size());
        for (size_t i = 0; i < ps.size(); ++i) {
            ASSERT_EQ(pg[i]->name, ps[i]->name);
            ASSERT_FUZZY_EQ(maxDiff(stack.value(ps[i]), gpt.value(pg[i])), 0.0);
        }
        const auto x = randomDoubles(stack.inCount(), 21);
        stack.setInput(x);
        gpt.setInput(x);
        const auto ys = stack.forward();
        const auto yg = gpt.forward();
        ASSERT_EQ(int(yg.size()), batch * in.window);
        ASSERT_TRUE(maxDiff(yg, rowOf(ys, in, batch, in.units - 1)) < 1e-5)
            << "GPT output differs from the causal stack's last element";
    }
}

// Stream mode fed e0, e1, ... one element per step gives the causal stack's rows 0, 1, ...
TEST(AttentionSemantics, gptStreamEqualsCausalStackRows) {
    const Shape in{5, 6};
    const int batch = 2;
    LayerRun stack(doubleBackend(), makeLayer(stackJson(2)), in, batch, 4);
    LayerRun gpt(doubleBackend(), makeLayer(gptJson("stream", 2)), in, batch, 4);
    const auto x = randomDoubles(stack.inCount(), 22);
    stack.setInput(x);
    const auto ys = stack.forward();
    for (int k = 0; k < in.units; ++k) {
        // Sample whose last row is element k (the other rows are ignored in stream mode).
        auto step = randomDoubles(stack.inCount(), 100 + k);
        for (int b = 0; b < batch; ++b)
            for (int w = 0; w < in.window; ++w)
                step[(size_t(b) * in.units + in.units - 1) * in.window + w] =
                    x[(size_t(b) * in.units + k) * in.window + w];
        gpt.setInput(step);
        const auto yg = gpt.forward();
        ASSERT_TRUE(maxDiff(yg, rowOf(ys, in, batch, k)) < 1e-12)
            << "stream step " << k << " differs";
    }
    // The Score read-back of the last step: newest row, sums to 1.
    const auto scores = gpt.layer->readScores(1);
    ASSERT_EQ(int(scores.size()), 2);
    const auto& s = scores[1];
    for (int h = 0; h < s.heads; ++h) {
        double sum = 0;
        for (int c = 0; c < in.units; ++c)
            sum += s.values[(size_t(h) * in.units + in.units - 1) * in.units + c];
        ASSERT_TRUE(std::abs(sum - 1.0) < 1e-6);
    }
}

// Sequence-mode gradients equal stream-mode gradients once the ring holds the same
// elements: both treat the cached keys/values as constants.
TEST(AttentionSemantics, gptSequenceGradientsEqualStream) {
    const Shape in{4, 6};
    const int batch = 3;
    LayerRun seq(doubleBackend(), makeLayer(gptJson("sequence", 2)), in, batch, 6);
    LayerRun str(doubleBackend(), makeLayer(gptJson("stream", 2)), in, batch, 6);
    const auto x = randomDoubles(seq.inCount(), 23);
    seq.setInput(x);
    const auto ySeq = seq.forward();
    for (int k = 0; k < in.units; ++k) {
        std::vector<double> step(seq.inCount(), 0.0);
        for (int b = 0; b < batch; ++b)
            for (int w = 0; w < in.window; ++w)
                step[(size_t(b) * in.units + in.units - 1) * in.window + w] =
                    x[(size_t(b) * in.units + k) * in.window + w];
        str.setInput(step);
        str.forward();
    }
    const auto dy = randomDoubles(seq.outCount(), 24);
    const auto dxSeq = seq.backward(dy);
    const auto dxStr = str.backward(dy);
    ASSERT_TRUE(maxDiff(dxSeq, dxStr) < 1e-12);
    for (int r = 0; r + 1 < in.units; ++r)
        for (double v : rowOf(dxSeq, in, batch, r)) ASSERT_FUZZY_EQ(v, 0.0);
    auto ps = seq.layer->params(), pt = str.layer->params();
    for (size_t i = 0; i < ps.size(); ++i)
        ASSERT_TRUE(maxDiff(seq.grad(ps[i]), str.grad(pt[i])) < 1e-12) << ps[i]->name.c_str();
    ASSERT_TRUE(seq.sentinelError().empty());
}

struct LightconvCase {
    int k;
    bool causal, softmax;
};

std::vector<LightconvCase> lightconvCases() {
    std::vector<LightconvCase> out;
    for (int k : {3, 5, 7, 15, 31})
        for (bool causal : {true, false})
            for (bool sm : {true, false}) out.push_back({k, causal, sm});
    return out;
}

class LightconvMatchesDirectLoop : public ::testing::TestWithParam<LightconvCase> {};

TEST_P(LightconvMatchesDirectLoop, lightconvMatchesDirectLoop) {
    const int k = GetParam().k;
    const bool causal = GetParam().causal, softmax = GetParam().softmax;
    const Shape in{9, 6};
    const int batch = 2, heads = 3, per = in.window / heads;
    const int padL = causal ? k - 1 : k / 2;
    LayerRun run(doubleBackend(),
                 makeLayer({{"type", "lightconv"},
                            {"heads", heads},
                            {"kernel_size", k},
                            {"padding_l", causal ? "causal" : "centred"},
                            {"softmax_taps", softmax}}),
                 in, batch, 8);
    ASSERT_EQ(dynamic_cast<LightConvLayer&>(*run.layer).padLeft(), padL);
    Param* wp = run.layer->params()[0];
    auto w = run.value(wp);
    if (softmax)
        for (int h = 0; h < heads; ++h) {
            double mx = -1e300, sum = 0;
            for (int j = 0; j < k; ++j) mx = std::max(mx, w[size_t(h) * k + j]);
            for (int j = 0; j < k; ++j) sum += std::exp(w[size_t(h) * k + j] - mx);
            for (int j = 0; j < k; ++j)
                w[size_t(h) * k + j] = std::exp(w[size_t(h) * k + j] - mx) / sum;
        }
    const auto x = randomDoubles(run.inCount(), 31);
    run.setInput(x);
    const auto y = run.forward();
    auto at = [&](const std::vector<double>& v, int b, int t, int c) {
        return v[(size_t(b) * in.units + t) * in.window + c];
    };
    std::vector<double> want(y.size());
    for (int b = 0; b < batch; ++b)
        for (int t = 0; t < in.units; ++t)
            for (int c = 0; c < in.window; ++c) {
                double s = 0;
                for (int j = 0; j < k; ++j) {
                    const int src = t + j - padL;
                    if (src >= 0 && src < in.units)
                        s += w[size_t(c / per) * k + j] * at(x, b, src, c);
                }
                want[(size_t(b) * in.units + t) * in.window + c] = s;
            }
    ASSERT_TRUE(maxDiff(y, want) < 1e-12);
    // Causal padding: output t never reads a later element.
    if (causal) {
        ASSERT_TRUE(padL == k - 1);
    }
    // Backward against the direct loop (gradient w.r.t. the effective taps when raw).
    const auto dy = randomDoubles(run.outCount(), 32);
    const auto dx = run.backward(dy);
    std::vector<double> wantDx(dx.size(), 0.0), wantDw(size_t(heads) * k, 0.0);
    for (int b = 0; b < batch; ++b)
        for (int t = 0; t < in.units; ++t)
            for (int c = 0; c < in.window; ++c)
                for (int j = 0; j < k; ++j) {
                    const int src = t + j - padL;
                    if (src < 0 || src >= in.units) continue;
                    const double d = at(dy, b, t, c);
                    wantDx[(size_t(b) * in.units + src) * in.window + c] +=
                        w[size_t(c / per) * k + j] * d;
                    wantDw[size_t(c / per) * k + j] += d * at(x, b, src, c);
                }
    ASSERT_TRUE(maxDiff(dx, wantDx) < 1e-12);
    if (!softmax) {
        ASSERT_TRUE(maxDiff(run.grad(wp), wantDw) < 1e-12);
    }
    ASSERT_TRUE(run.sentinelError().empty());
}

struct CausalMaskCase {
    std::string device, type;
};

std::vector<CausalMaskCase> causalMaskCases() {
    std::vector<CausalMaskCase> out;
    for (const auto& id : testDeviceIds())
        for (const char* t : {"attention", "multihead_attention", "attention_stack"})
            out.push_back({id, t});
    return out;
}

class CausalMask : public ::testing::TestWithParam<CausalMaskCase> {};

// Changing element j never changes the output of an earlier element, on every device.
TEST_P(CausalMask, causalMask) {
    const std::string device = GetParam().device, type = GetParam().type;
    const Shape in{7, 6};
    const int batch = 2;
    nlohmann::json j{{"type", type}, {"key_size", 3}, {"causal", true}};
    if (type != "attention") j["heads"] = 3;
    if (type == "attention_stack") j["layers"] = 2;
    LayerRun run(createBackend(device), makeLayer(j), in, batch, 12);
    auto x = randomDoubles(run.inCount(), 41);
    run.setInput(x);
    const auto y0 = run.forward(false);
    for (int changed : {0, 3, 6}) {
        auto x2 = x;
        for (int b = 0; b < batch; ++b)
            for (int w = 0; w < in.window; ++w)
                x2[(size_t(b) * in.units + changed) * in.window + w] += 0.5 + 0.1 * w;
        run.setInput(x2);
        const auto y1 = run.forward(false);
        for (int r = 0; r < in.units; ++r) {
            const double d = maxDiff(rowOf(y0, in, batch, r), rowOf(y1, in, batch, r));
            if (r < changed) {
                ASSERT_TRUE(d <= 1e-6)
                    << "row " << r << " changed by element " << changed << " (" << d << ")";
            } else if (r == changed) {
                ASSERT_TRUE(d > 1e-3);
            }
        }
    }
}

class ScoreRows : public ::testing::TestWithParam<bool> {};

TEST_P(ScoreRows, scoreRows) {
    const bool causal = GetParam();
    const Shape in{6, 8};
    nlohmann::json model{
        {"layers", nlohmann::json::array({{{"type", "attention_stack"},
                                           {"key_size", 4},
                                           {"heads", 3},
                                           {"layers", 2},
                                           {"causal", causal}},
                                          {{"type", "multihead_attention"}, {"heads", 2}},
                                          {{"type", "dense"}, {"neurons", 3}}})}};
    CpuBackend be;
    Network net(Network::layersFromJson(model), in);
    net.build(be, 4);
    net.initWeights(5);
    auto x = randomDoubles(4 * in.size(), 51);
    std::vector<float> xf(x.begin(), x.end());
    Buffer xb = be.alloc(xf.size());
    be.upload(xb, xf.data(), xf.size());
    net.forward(xb, 4, false);
    const auto scores = net.readScores(2);
    ASSERT_EQ(int(scores.size()), 3);
    ASSERT_EQ(scores[0].name, std::string("layers.0.block.0"));
    ASSERT_EQ(scores[1].name, std::string("layers.0.block.1"));
    ASSERT_EQ(scores[2].name, std::string("layers.1"));
    for (const auto& s : scores) {
        ASSERT_EQ(s.units, in.units);
        ASSERT_EQ(s.values.size(), size_t(s.heads) * s.units * s.units);
        const bool masked = causal && s.name != "layers.1";
        for (int h = 0; h < s.heads; ++h)
            for (int r = 0; r < s.units; ++r) {
                double sum = 0;
                for (int c = 0; c < s.units; ++c) {
                    const float v = s.values[(size_t(h) * s.units + r) * s.units + c];
                    sum += v;
                    if (masked && c > r) {
                        ASSERT_FUZZY_EQ(v, 0.0f);
                    } else {
                        ASSERT_TRUE(v > 0.0f);
                    }
                }
                ASSERT_TRUE(std::abs(sum - 1.0) < 1e-5);
            }
    }
    // Samples of the last batch differ from each other.
    ASSERT_TRUE(net.readScores(0)[0].values != scores[0].values);
    ASSERT_TRUE(net.readScores(4).empty());
}

TEST(AttentionSemantics, weightsRoundTrip) {
    const Shape in{5, 8};
    nlohmann::json model{{"layers", nlohmann::json::array({{{"type", "attention_stack"},
                                                            {"key_size", 4},
                                                            {"heads", 2},
                                                            {"layers", 3},
                                                            {"norm", "sequence"}},
                                                           {{"type", "dense"}, {"neurons", 3}}})}};
    CpuBackend be;
    auto run = [&](Network& net, Buffer& xb) {
        std::vector<float> y(2 * 3);
        be.download(net.forward(xb, 2, false), y.data(), y.size());
        return y;
    };
    auto x = randomDoubles(2 * in.size(), 61);
    std::vector<float> xf(x.begin(), x.end());
    Buffer xb = be.alloc(xf.size());
    be.upload(xb, xf.data(), xf.size());
    Network a(Network::layersFromJson(model), in), b(Network::layersFromJson(model), in);
    a.build(be, 2);
    b.build(be, 2);
    a.initWeights(1);
    b.initWeights(2);
    const auto ya = run(a, xb);
    ASSERT_TRUE(run(b, xb) != ya);
    bool named = false;
    for (auto& p : a.params()) named = named || p.name == "layers.0.block.2.qkv.weight";
    ASSERT_TRUE(named);
    const std::string path =
        (std::filesystem::temp_directory_path() / "nnwb_attn_weights.safetensors").string();
    saveWeightsFile(a, path);
    loadWeightsFile(b, path);
    ASSERT_TRUE(run(b, xb) == ya);
    std::remove(path.c_str());
}

TEST(AttentionSemantics, jsonRoundTripAndErrors) {
    for (const char* t :
         {"attention", "multihead_attention", "attention_stack", "gpt", "lightconv"}) {
        const auto j = defaultLayerJson(t);
        auto l = makeLayer(j);
        ASSERT_EQ(l->toJson().dump(), j.dump());
        ASSERT_EQ(makeLayer(l->toJson())->toJson(), l->toJson());
    }
    auto layer = makeLayer({{"type", "attention_stack"}, {"window", 24}});
    ASSERT_THROW(layer->outputShape(Shape{20, 12}), std::invalid_argument);
    ASSERT_THROW(makeLayer({{"type", "lightconv"}, {"kernel_size", 4}}), std::invalid_argument);
    ASSERT_THROW(makeLayer({{"type", "lightconv"}, {"heads", 5}})->outputShape(Shape{4, 6}),
                 std::invalid_argument);
    ASSERT_THROW(makeLayer({{"type", "attention"}, {"norm", "batch"}}), std::invalid_argument);
    const auto gpt = makeLayer({{"type", "gpt"}, {"units", 20}});
    ASSERT_EQ(gpt->outputShape(Shape{20, 12}), (Shape{1, 12}));
    ASSERT_THROW(gpt->outputShape(Shape{19, 12}), std::invalid_argument);
    // Parameter counts known before build match the built tensors.
    for (const char* t : {"attention", "multihead_attention", "attention_stack", "gpt"}) {
        CpuBackend be;
        auto l = makeLayer(defaultLayerJson(t));
        l->build(be, Shape{5, 8}, 2);
        size_t n = 0;
        for (Param* p : l->params()) n += p->count();
        ASSERT_EQ(n, l->parameterCount(Shape{5, 8}));
    }
}

INSTANTIATE_TEST_SUITE_P(AttentionSemantics, LightconvMatchesDirectLoop,
                         ::testing::ValuesIn(lightconvCases()),
                         [](const ::testing::TestParamInfo<LightconvCase>& info) {
                             const LightconvCase& c = info.param;
                             return "k" + std::to_string(c.k) +
                                    (c.causal ? "_causal" : "_centred") +
                                    (c.softmax ? "_softmax" : "_raw");
                         });
INSTANTIATE_TEST_SUITE_P(AttentionSemantics, CausalMask, ::testing::ValuesIn(causalMaskCases()),
                         [](const ::testing::TestParamInfo<CausalMaskCase>& info) {
                             return paramName(info.param.device + " " + info.param.type);
                         });
INSTANTIATE_TEST_SUITE_P(AttentionSemantics, ScoreRows, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                             return std::string(info.param ? "causal" : "full");
                         });
