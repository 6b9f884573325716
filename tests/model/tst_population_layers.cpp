// Population layers on the CPU (docs/decisions/population.md): dense and dropout layers run as
// one population of 3 models give bit for bit what 3 single layers with the same seeds give
// (outputs, input gradients, parameters, parameter gradients), in float and double storage; a
// population dense layer passes the gradient check over every model's parameters; a layer
// type without population support says so.
#include <gtest/gtest.h>

#include <cstring>

#include "common/GradCheck.h"
#include "common/PopulationLayers.h"
#include "compute/CpuBackend.h"
#include "model/layers/DenseLayer.h"
#include "model/layers/DropoutLayer.h"
#include "model/layers/LayerRegistry.h"

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

void expectSame(const std::function<LayerPtr()>& make, const Shape& in, int rows,
                const char* what) {
    for (Precision precision : {Precision::Float, Precision::Double}) {
        CpuBackend be(precision);
        const LayerOutcome together = runPopulationLayer(be, make, in, 3, rows, true);
        const LayerOutcome apart = runPopulationLayer(be, make, in, 3, rows, false);
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

// A network with a layer type that cannot run as a population names the layer.
TEST(PopulationLayers, networkNamesTheLayerThatCannot) {
    Network net(
        Network::layersFromJson({{"layers",
                                  {{{"type", "dense"}, {"neurons", 4}, {"activation", "tanh"}},
                                   {{"type", "attention"}, {"key_size", 2}}}}}),
        Shape{3, 4});
    try {
        net.setPopulation(2);
        FAIL() << "accepted";
    } catch (const ShapeError& e) {
        EXPECT_EQ(e.layer(), 1);
        EXPECT_NE(std::string(e.what()).find("layer 1: layer type 'attention'"), std::string::npos)
            << e.what();
    }
}

TEST(PopulationLayers, unsupportedLayerTypeSaysSo) {
    LayerPtr l = makeLayer({{"type", "attention"}, {"key_size", 4}});
    try {
        l->setPopulation(2);
        FAIL() << "an attention layer accepted a population";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("cannot be trained as a population yet"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(l->setPopulation(1));
}

}  // namespace
