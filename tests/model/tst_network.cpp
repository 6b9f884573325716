// Network assembly: layer JSON parsing and validation, shape inference errors that name both
// layers and shapes, parameter counts, seeded initialization identical across builds.
#include <QtTest>

#include "compute/CpuBackend.h"
#include "model/Network.h"
#include "model/NetworkWeights.h"
#include "model/layers/LayerRegistry.h"

using namespace nnwb;
using json = nlohmann::json;

class NetworkTest : public QObject {
    Q_OBJECT
private slots:
    void shapesAndCounts() {
        json m = {{"layers",
                   {{{"type", "conv"}, {"window", 12}, {"step", 12}, {"filters", 24}},
                    {{"type", "dense"}, {"neurons", 200}, {"activation", "tanh"}},
                    {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}};
        CpuBackend be;  // declared first: the network's buffers must go before their backend
        Network net(Network::layersFromJson(m), Shape{20, 12});
        QCOMPARE(net.shapes()[0], (Shape{20, 24}));
        QCOMPARE(net.outputShape(), (Shape{1, 3}));
        const size_t expected = 24 * 12 + 24 + 200 * 480 + 200 + 3 * 200 + 3;
        QCOMPARE(net.parameterCount(), expected);
        net.build(be, 4);
        size_t counted = 0;
        for (auto& p : net.params()) counted += p.param->count();
        QCOMPARE(counted, expected);
        QCOMPARE(net.params()[0].name, std::string("layers.0.weight"));
        QCOMPARE(net.params()[5].name, std::string("layers.2.bias"));
    }
    void mismatchNamesBothLayers() {
        json m = {{"layers",
                   {{{"type", "dense"}, {"neurons", 5}},
                    {{"type", "conv"}, {"window", 8}, {"step", 8}, {"filters", 2}}}}};
        try {
            Network net(Network::layersFromJson(m), Shape{3, 3});
            QFAIL("expected a ShapeError");
        } catch (const ShapeError& e) {
            const QString msg = e.what();
            QCOMPARE(e.layer(), 1);
            QVERIFY2(msg.contains("layer 2 (conv)") && msg.contains("layer 1 (dense)") &&
                         msg.contains("1x5") && msg.contains("window 8"),
                     e.what());
        }
    }
    void badParameters() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 makeLayer(json{{"type", "dense"}, {"neurons", 0}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 makeLayer(json{{"type", "dense"}, {"neurons", "ten"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 makeLayer(json{{"type", "dense"}, {"activation", "cube"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeLayer(json{{"type", "nope"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 makeLayer(json{{"type", "dense"}, {"nuerons", 3}}));
        try {
            Network::layersFromJson(json{{"layers", {{{"type", "dense"}}, {{"type", "x"}}}}});
            QFAIL("expected a ShapeError");
        } catch (const ShapeError& e) {
            QCOMPARE(e.layer(), 1);
            QVERIFY(QString(e.what()).contains("unknown layer type 'x'"));
        }
    }
    void jsonRoundTrip() {
        for (const auto& t : layerTypes()) {
            json j = defaultLayerJson(t.type);
            QCOMPARE(makeLayer(j)->toJson(), j);
        }
    }
    void seededInitIsDeterministic() {
        json m = {
            {"layers", {{{"type", "dense"}, {"neurons", 7}}, {{"type", "dense"}, {"neurons", 3}}}}};
        CpuBackend be;
        Network a(Network::layersFromJson(m), Shape{2, 5}),
            b(Network::layersFromJson(m), Shape{2, 5});
        a.build(be, 1);
        b.build(be, 8);
        a.initWeights(99);
        b.initWeights(99);
        auto wa = readWeights(a), wb = readWeights(b);
        QCOMPARE(wa.size(), wb.size());
        for (const auto& [name, t] : wa) QCOMPARE(t.values, wb.at(name).values);
        b.initWeights(100);
        QVERIFY(readWeights(b).at("layers.0.weight").values != wa.at("layers.0.weight").values);
    }
};

QTEST_APPLESS_MAIN(NetworkTest)
#include "tst_network.moc"
