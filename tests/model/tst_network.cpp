// Network assembly: layer JSON parsing and validation, shape inference errors that name both
// layers and shapes, parameter counts, seeded initialization identical across builds.
#include <gtest/gtest.h>

#include <string>

#include "compute/CpuBackend.h"
#include "model/Network.h"
#include "model/NetworkWeights.h"
#include "model/layers/LayerRegistry.h"

using namespace nnwb;
using json = nlohmann::json;

namespace {
bool contains(const std::string& s, const char* part) {
    return s.find(part) != std::string::npos;
}
}  // namespace

TEST(Network, shapesAndCounts) {
    json m = {{"layers",
               {{{"type", "conv"}, {"window", 12}, {"step", 12}, {"filters", 24}},
                {{"type", "dense"}, {"neurons", 200}, {"activation", "tanh"}},
                {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}};
    CpuBackend be;  // declared first: the network's buffers must go before their backend
    Network net(Network::layersFromJson(m), Shape{20, 12});
    ASSERT_EQ(net.shapes()[0], (Shape{20, 24}));
    ASSERT_EQ(net.outputShape(), (Shape{1, 3}));
    const size_t expected = 24 * 12 + 24 + 200 * 480 + 200 + 3 * 200 + 3;
    ASSERT_EQ(net.parameterCount(), expected);
    net.build(be, 4);
    size_t counted = 0;
    for (auto& p : net.params()) counted += p.param->count();
    ASSERT_EQ(counted, expected);
    ASSERT_EQ(net.params()[0].name, std::string("layers.0.weight"));
    ASSERT_EQ(net.params()[5].name, std::string("layers.2.bias"));
}

TEST(Network, mismatchNamesBothLayers) {
    json m = {{"layers",
               {{{"type", "dense"}, {"neurons", 5}},
                {{"type", "conv"}, {"window", 8}, {"step", 8}, {"filters", 2}}}}};
    try {
        Network net(Network::layersFromJson(m), Shape{3, 3});
        FAIL() << "expected a ShapeError";
    } catch (const ShapeError& e) {
        const std::string msg = e.what();
        ASSERT_EQ(e.layer(), 1);
        ASSERT_TRUE(contains(msg, "layer 2 (conv)") && contains(msg, "layer 1 (dense)") &&
                    contains(msg, "1x5") && contains(msg, "window 8"))
            << e.what();
    }
}

TEST(Network, badParameters) {
    ASSERT_THROW(makeLayer(json{{"type", "dense"}, {"neurons", 0}}), std::invalid_argument);
    ASSERT_THROW(makeLayer(json{{"type", "dense"}, {"neurons", "ten"}}), std::invalid_argument);
    ASSERT_THROW(makeLayer(json{{"type", "dense"}, {"activation", "cube"}}), std::invalid_argument);
    ASSERT_THROW(makeLayer(json{{"type", "nope"}}), std::invalid_argument);
    ASSERT_THROW(makeLayer(json{{"type", "dense"}, {"nuerons", 3}}), std::invalid_argument);
    try {
        Network::layersFromJson(json{{"layers", {{{"type", "dense"}}, {{"type", "x"}}}}});
        FAIL() << "expected a ShapeError";
    } catch (const ShapeError& e) {
        ASSERT_EQ(e.layer(), 1);
        ASSERT_TRUE(contains(e.what(), "unknown layer type 'x'"));
    }
}

TEST(Network, jsonRoundTrip) {
    for (const auto& t : layerTypes()) {
        json j = defaultLayerJson(t.type);
        ASSERT_EQ(makeLayer(j)->toJson(), j);
    }
}

TEST(Network, seededInitIsDeterministic) {
    json m = {
        {"layers", {{{"type", "dense"}, {"neurons", 7}}, {{"type", "dense"}, {"neurons", 3}}}}};
    CpuBackend be;
    Network a(Network::layersFromJson(m), Shape{2, 5}), b(Network::layersFromJson(m), Shape{2, 5});
    a.build(be, 1);
    b.build(be, 8);
    a.initWeights(99);
    b.initWeights(99);
    auto wa = readWeights(a), wb = readWeights(b);
    ASSERT_EQ(wa.size(), wb.size());
    for (const auto& [name, t] : wa) ASSERT_EQ(t.values, wb.at(name).values);
    b.initWeights(100);
    ASSERT_TRUE(readWeights(b).at("layers.0.weight").values != wa.at("layers.0.weight").values);
}
