// Every preset in resources/presets loads with Experiment::load and its network builds on the
// CPU backend for the preset's input shape (file data: {window, 12 features}; synthetic:
// {units, window}) with 3 outputs, and a forward pass gives finite values.
#include <QtTest>

#include <cmath>
#include <filesystem>

#include "compute/CpuBackend.h"
#include "model/Experiment.h"
#include "model/Network.h"

using namespace nnwb;

namespace {
std::vector<std::string> presetFiles() {
    std::vector<std::string> out;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(NNWB_RESOURCE_DIR) + "/presets"))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}
}  // namespace

class TestPresetsLoad : public QObject {
    Q_OBJECT
private slots:
    void preset_data() {
        QTest::addColumn<QString>("path");
        const auto files = presetFiles();
        QVERIFY(files.size() >= 7);
        for (const auto& f : files)
            QTest::newRow(std::filesystem::path(f).filename().string().c_str())
                << QString::fromStdString(f);
    }
    void preset() {
        QFETCH(QString, path);
        const Experiment e = Experiment::load(path.toStdString());
        QVERIFY(!e.name.empty());
        Shape in;
        if (e.data.value("source", std::string("file")) == "synthetic")
            in = Shape{e.data.value("units", 4), e.data.value("window", 3)};
        else
            in = Shape{e.data.value("window", 20), 12};
        CpuBackend be;  // declared first: the network's buffers must go before their backend
        Network net(Network::layersFromJson(e.model), in);
        QCOMPARE(int(net.outputShape().size()), 3);
        QVERIFY(net.parameterCount() > 0);
        const int batch = 2;
        net.build(be, batch);
        net.initWeights(e.training.seed);
        size_t built = 0;
        for (auto& p : net.params()) built += p.param->count();
        QCOMPARE(built, net.parameterCount());
        std::vector<float> x(batch * in.size());
        for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(0.37 * double(i)));
        Buffer xb = be.alloc(x.size());
        be.upload(xb, x.data(), x.size());
        std::vector<float> y(batch * 3);
        be.download(net.forward(xb, batch, false), y.data(), y.size());
        for (float v : y) QVERIFY(std::isfinite(v));
        // Round trip through the experiment JSON keeps the model.
        QCOMPARE(Experiment::fromJson(e.toJson()).model, e.model);
    }
};

QTEST_GUILESS_MAIN(TestPresetsLoad)
#include "tst_presets_load.moc"
