// Population layers on the CPU (docs/decisions/population.md): dense, dropout, conv and the
// attention layers run as one population of 3 models give bit for bit what 3 single layers with
// the same seeds give (outputs, input gradients, parameters, parameter gradients), in float and
// double storage; population dense, conv and attention_stack layers pass the gradient check
// over every model's parameters; a layer type without population support says so.
#include <gtest/gtest.h>

#include <cstring>

#include "common/GradCheck.h"
#include "common/PopulationLayers.h"
#include "compute/CpuBackend.h"
#include "model/layers/ConvLayer.h"
#include "model/layers/DenseLayer.h"
#include "model/layers/DropoutLayer.h"
#include "model/layers/GptLayer.h"
#include "model/layers/LayerRegistry.h"
#include "model/layers/LightConvLayer.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

// The index of the first value that differs in its bits, or the size when none does.
size_t firstDifference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) return i;
    return a.size();
}

void expectSame(const std::function<LayerPtr()>& make, const Shape& in, int rows, const char* what,
                int steps = 1) {
    for (Precision precision : {Precision::Float, Precision::Double}) {
        CpuBackend be(precision);
        const LayerOutcome together = runPopulationLayer(be, make, in, 3, rows, true, 40, steps);
        const LayerOutcome apart = runPopulationLayer(be, make, in, 3, rows, false, 40, steps);
        const std::pair<const char*,
                        std::pair<const std::vector<float>*, const std::vector<float>*>>
            parts[] = {{"y", {&together.y, &apart.y}},
                       {"dx", {&together.dx, &apart.dx}},
                       {"params", {&together.params, &apart.params}},
                       {"grads", {&together.grads, &apart.grads}}};
        for (const auto& [name, ab] : parts) {
            ASSERT_EQ(ab.first->size(), ab.second->size()) << what << " " << name;
            EXPECT_EQ(firstDifference(*ab.first, *ab.second), ab.first->size())
                << what << " " << name << " (double storage: " << (precision == Precision::Double)
                << ")";
        }
    }
}

TEST(PopulationLayers, denseTogetherEqualsOneByOne) {
    for (Activation act : {Activation::Tanh, Activation::Relu, Activation::Softmax})
        for (int rows : {1, 4, 40})
            expectSame([act] { return std::make_unique<DenseLayer>(7, act); }, Shape{4, 5}, rows,
                       "dense");
}

TEST(PopulationLayers, dropoutTogetherEqualsOneByOne) {
    for (double rate : {0.0, 0.4})
        expectSame([rate] { return std::make_unique<DropoutLayer>(rate); }, Shape{3, 11}, 5,
                   "dropout");
}

TEST(PopulationLayers, convTogetherEqualsOneByOne) {
    // window 0 / step 0: the direct path (no unfold); window 3 step 2: unfold and fold.
    for (auto [window, step] : {std::pair{0, 0}, std::pair{3, 2}})
        for (int rows : {1, 6})
            expectSame(
                [window = window, step = step] {
                    return std::make_unique<ConvLayer>(window, step, 6, Activation::Sigmoid);
                },
                Shape{5, 4}, rows, "conv");
}

// The attention layers (one base): blocks of the 5x8 preset's kind (causal, sequence norm,
// leaky relu / sigmoid) and of transformer-64's (element norm, no ff activation), with the
// score and feed-forward dropout sites drawing each model's own masks.
TEST(PopulationLayers, attentionTogetherEqualsOneByOne) {
    const nlohmann::json layers[] = {
        {{"type", "attention_stack"},
         {"key_size", 3},
         {"heads", 2},
         {"layers", 2},
         {"causal", true},
         {"norm", "sequence"},
         {"activation", "leaky_relu"},
         {"ff_activation", "sigmoid"}},
        {{"type", "attention_stack"},
         {"key_size", 3},
         {"heads", 2},
         {"layers", 2},
         {"norm", "element"},
         {"score_dropout", 0.3},
         {"ff_dropout", 0.2}},
        {{"type", "multihead_attention"}, {"key_size", 2}, {"heads", 3}, {"causal", true}},
        {{"type", "attention"}, {"key_size", 3}, {"norm", "sequence"}},
        {{"type", "gpt"}, {"key_size", 2}, {"heads", 2}, {"layers", 2}},
        {{"type", "gpt"}, {"key_size", 2}, {"heads", 2}, {"layers", 2}, {"mode", "stream"}}};
    for (const nlohmann::json& j : layers)
        for (int rows : {1, 3})
            expectSame([j] { return makeLayer(j); }, Shape{5, 4}, rows,
                       j["type"].get<std::string>().c_str());
}

TEST(PopulationLayers, lightConvTogetherEqualsOneByOne) {
    for (bool softmaxTaps : {false, true})
        for (auto padding : {LightConvLayer::Padding::Causal, LightConvLayer::Padding::Centred})
            expectSame(
                [=] { return std::make_unique<LightConvLayer>(0, 0, 2, 3, padding, softmaxTaps); },
                Shape{5, 4}, 3, "lightconv");
}

TEST(PopulationLayers, lightConvGradientCheck) {
    const std::string m = gradCheckLayer(
        [] {
            auto l = std::make_unique<LightConvLayer>(0, 0, 2, 3, LightConvLayer::Padding::Centred,
                                                      true);
            l->setPopulation(3);
            return l;
        },
        Shape{4, 4}, 6);
    EXPECT_TRUE(m.empty()) << m;
}

// GPT in stream mode keeps a key/value ring per batch slot across forwards: 7 steps of 5
// elements (the ring fills and wraps), each model's samples in their own slots.
TEST(PopulationLayers, gptStreamStepsTogetherEqualOneByOne) {
    expectSame(
        [] {
            return makeLayer({{"type", "gpt"},
                              {"key_size", 2},
                              {"heads", 2},
                              {"layers", 2},
                              {"mode", "stream"}});
        },
        Shape{5, 4}, 2, "gpt stream", 7);
}

// GPT's backward treats the cached keys and values as constants: as the single-model check
// (tests/gradcheck), in stream mode with a primed, wrapped ring and the same step repeated.
TEST(PopulationLayers, gptStreamGradientCheck) {
    LayerPtr l = makeLayer({{"type", "gpt"},
                            {"key_size", 2},
                            {"heads", 2},
                            {"layers", 2},
                            {"ff_activation", "sigmoid"},
                            {"mode", "stream"}});
    l->setPopulation(3);
    LayerRun run(std::make_unique<CpuBackend>(Precision::Double, 1), std::move(l), Shape{4, 4}, 6,
                 9);
    auto& gpt = dynamic_cast<GptLayer&>(*run.layer);
    for (int k = 0; k < 6; ++k) {
        run.setInput(randomDoubles(run.inCount(), 500 + k));
        run.forward(false);
    }
    const long long step = gpt.streamStep();
    run.beforeForward = [step](Layer& layer) {
        dynamic_cast<GptLayer&>(layer).setStreamStep(step);
    };
    GradCheckSettings s;
    s.maxPerTensor = 60;
    const std::string m = gradCheck(run, s);
    EXPECT_TRUE(m.empty()) << m;
}

TEST(PopulationLayers, convGradientCheck) {
    const std::string m = gradCheckLayer(
        [] {
            auto l = std::make_unique<ConvLayer>(3, 2, 4, Activation::Tanh);
            l->setPopulation(3);
            return l;
        },
        Shape{4, 2}, 6);
    EXPECT_TRUE(m.empty()) << m;
}

TEST(PopulationLayers, attentionStackGradientCheck) {
    GradCheckSettings s;
    s.maxPerTensor = 60;  // sampled over every model's values
    const std::string m = gradCheckLayer(
        [] {
            LayerPtr l = makeLayer({{"type", "attention_stack"},
                                    {"key_size", 2},
                                    {"heads", 2},
                                    {"layers", 2},
                                    {"causal", true},
                                    {"norm", "sequence"},
                                    {"activation", "tanh"},
                                    {"ff_activation", "sigmoid"}});
            l->setPopulation(3);
            return l;
        },
        Shape{3, 4}, 6, s);
    EXPECT_TRUE(m.empty()) << m;
}

// The models really differ (a population of copies would pass the tests above too).
TEST(PopulationLayers, modelsHaveTheirOwnWeightsAndMasks) {
    CpuBackend be;
    const LayerOutcome dense = runPopulationLayer(
        be, [] { return std::make_unique<DenseLayer>(7, Activation::Tanh); }, Shape{4, 5}, 3, 2,
        true);
    const long w = 7 * 20;  // one model's weights; the weights of all models come first
    EXPECT_NE(std::vector<float>(dense.params.begin(), dense.params.begin() + w),
              std::vector<float>(dense.params.begin() + w, dense.params.begin() + 2 * w));
    const LayerOutcome drop = runPopulationLayer(
        be, [] { return std::make_unique<DropoutLayer>(0.5); }, Shape{1, 64}, 3, 1, true);
    EXPECT_NE(std::vector<float>(drop.y.begin(), drop.y.begin() + 64),
              std::vector<float>(drop.y.begin() + 64, drop.y.begin() + 128));
}

TEST(PopulationLayers, denseGradientCheck) {
    const std::string m = gradCheckLayer(
        [] {
            auto l = std::make_unique<DenseLayer>(5, Activation::Tanh);
            l->setPopulation(3);
            return l;
        },
        Shape{2, 3}, 6);
    EXPECT_TRUE(m.empty()) << m;
}

// The key test: a network of 3 models trained together (forward, dropout, MSE, backward,
// per-model clipping, Adam with per-model rates and betas) equals the 3 trained one by one.
TEST(PopulationLayers, networkTrainedTogetherEqualsOneByOne) {
    for (Precision precision : {Precision::Float, Precision::Double}) {
        CpuBackend be(precision);
        const std::vector<float> together = trainPopulationNetwork(be, true);
        const std::vector<float> apart = trainPopulationNetwork(be, false);
        ASSERT_EQ(together.size(), apart.size());
        EXPECT_EQ(firstDifference(together, apart), together.size())
            << "double storage: " << (precision == Precision::Double);
    }
}

// The same for the default experiment's stack (conv, attention_stack, dense x 3), smaller.
TEST(PopulationLayers, fractalStackTrainedTogetherEqualsOneByOne) {
    for (Precision precision : {Precision::Float, Precision::Double}) {
        CpuBackend be(precision);
        const std::vector<float> together =
            trainPopulationNetwork(be, true, true, fractalStackNet());
        const std::vector<float> apart = trainPopulationNetwork(be, false, true, fractalStackNet());
        ASSERT_EQ(together.size(), apart.size());
        EXPECT_EQ(firstDifference(together, apart), together.size())
            << "double storage: " << (precision == Precision::Double);
    }
}

// The same through model/Optimizer: a population's (one launch, per-model settings) equals
// single Optimizers, one per network.
TEST(PopulationLayers, optimizerStepsEachModelAsAlone) {
    for (Precision precision : {Precision::Float, Precision::Double}) {
        CpuBackend be(precision);
        const std::vector<float> together = trainPopulationNetwork(be, true, true);
        const std::vector<float> apart = trainPopulationNetwork(be, false, true);
        ASSERT_EQ(together.size(), apart.size());
        EXPECT_EQ(firstDifference(together, apart), together.size())
            << "double storage: " << (precision == Precision::Double);
    }
}

// A layer type without population support (every registered type has it now): the
// identity, as a stand-in for the next type added without it.
class SingleOnlyLayer final : public Layer {
public:
    std::string type() const override { return "single_only"; }
    nlohmann::json toJson() const override { return {{"type", type()}}; }
    Shape outputShape(const Shape& in) const override { return in; }
    size_t parameterCount(const Shape&) const override { return 0; }
    void build(Backend&, const Shape&, int) override {}
    void initWeights(Rng&) override {}
    void forward(BufRef x, int, bool) override { y_ = x; }
    BufRef output() const override { return y_; }
    void backward(BufRef, BufRef, BufRef, int) override {}

private:
    BufRef y_;
};

// A network with a layer type that cannot run as a population names the layer.
TEST(PopulationLayers, networkNamesTheLayerThatCannot) {
    std::vector<LayerPtr> layers = Network::layersFromJson(
        {{"layers", {{{"type", "dense"}, {"neurons", 4}, {"activation", "tanh"}}}}});
    layers.push_back(std::make_unique<SingleOnlyLayer>());
    Network net(std::move(layers), Shape{3, 4});
    try {
        net.setPopulation(2);
        FAIL() << "accepted";
    } catch (const ShapeError& e) {
        EXPECT_EQ(e.layer(), 1);
        EXPECT_NE(std::string(e.what()).find("layer 1: layer type 'single_only'"),
                  std::string::npos)
            << e.what();
    }
}

TEST(PopulationLayers, unsupportedLayerTypeSaysSo) {
    SingleOnlyLayer l;
    try {
        l.setPopulation(2);
        FAIL() << "a layer without population support accepted a population";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("cannot be trained as a population yet"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(l.setPopulation(1));
}

// Every registered layer type runs as a population.
TEST(PopulationLayers, everyLayerTypeAcceptsAPopulation) {
    for (const auto& t : layerTypes()) {
        LayerPtr l = makeLayer({{"type", t.type}});
        EXPECT_NO_THROW(l->setPopulation(3)) << t.type;
    }
}

}  // namespace
