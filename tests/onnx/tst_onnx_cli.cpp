// nnwb-cli export: a model's weights become an ONNX file that passes onnx::checker and strict
// shape inference with the requested batch; bad input exits with status 2 and names the
// problem (missing options, a batch of 0, an unreadable experiment, weights of another model);
// a file that cannot be written exits with 1 and leaves nothing behind.
#include <QtTest>

#include <filesystem>
#include <map>

#include "app/export/OnnxExport.h"
#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "compute/CpuBackend.h"
#include "model/Experiment.h"
#include "model/Network.h"
#include "model/NetworkWeights.h"
#include "model/data/DataConfig.h"

using namespace nnwb;
using nlohmann::json;

namespace {

json experimentJson(int filters) {
    return {{"formatVersion", 1},
            {"name", "cli export"},
            {"data", {{"source", "file"}, {"file", defaultDataFile()}, {"window", 6}}},
            {"model",
             {{"layers",
               json::array({{{"type", "conv"},
                             {"window", 12},
                             {"step", 12},
                             {"filters", filters},
                             {"activation", "tanh"}},
                            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}})}}},
            {"training", {{"epochs", 1}, {"device", "cpu"}}}};
}

// Writes the experiment and seeded (untrained) weights of its network; returns both paths.
std::pair<QString, QString> writeModel(const std::string& dir, const std::string& name,
                                       int filters) {
    const Experiment e = Experiment::fromJson(experimentJson(filters));
    const std::string exp = dir + "/" + name + ".json", w = dir + "/" + name + ".safetensors";
    e.save(exp);
    CpuBackend be;
    Network net(Network::layersFromJson(e.model), Shape{6, 12});
    net.build(be, 1);
    net.initWeights(5);
    saveWeightsFile(net, w);
    return {QString::fromStdString(exp), QString::fromStdString(w)};
}

}  // namespace

class TestOnnxCli : public QObject {
    Q_OBJECT
private slots:
    void exportsAndRefuses() {
        const std::string dir = test::tempDir();
        const auto [exp, weights] = writeModel(dir, "a", 5);
        const auto [otherExp, otherWeights] = writeModel(dir, "b", 7);
        const QString out = QString::fromStdString(dir + "/a.onnx");

        auto r = test::runCli({"export", "--experiment", exp, "--weights", weights, "--onnx", out,
                               "--batch", "dynamic"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("input 'features' [batch, 6, 12]"));
        QVERIFY(r.out.contains("operators:"));
        onnx::ModelProto m = onnxexport::loadModel(out.toStdString());
        const auto s = onnxexport::checkModel(m);
        QCOMPARE(s.inputDims, (std::vector<int64_t>{-1, 6, 12}));
        QCOMPARE(s.outputDims, (std::vector<int64_t>{-1, 3}));

        r = test::runCli(
            {"export", "--experiment", exp, "--weights", weights, "--onnx", out, "--batch", "4"});
        QCOMPARE(r.code, 0);
        m = onnxexport::loadModel(out.toStdString());
        QCOMPARE(onnxexport::checkModel(m).inputDims, (std::vector<int64_t>{4, 6, 12}));

        // A model bundle from `train --save-model`: the same export from --model alone.
        const QString bundle = QString::fromStdString(dir + "/m.safetensors");
        r = test::runCli({"train", "--experiment", exp, "--epochs", "1", "--save-model", bundle});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString fromBundle = QString::fromStdString(dir + "/m.onnx");
        r = test::runCli({"export", "--model", bundle, "--onnx", fromBundle});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        m = onnxexport::loadModel(fromBundle.toStdString());
        QCOMPARE(onnxexport::checkModel(m).inputDims, (std::vector<int64_t>{1, 6, 12}));
        std::map<std::string, std::string> props;
        for (const auto& p : m.metadata_props()) props[p.key()] = p.value();
        QCOMPARE(props["nnwb.epoch"], std::string("1"));
        QVERIFY(props["nnwb.data"].find("\"window\":6") != std::string::npos);
        QVERIFY(m.graph().input(0).doc_string().find("11 macdSignal") != std::string::npos);
        // A plain weights file is not a bundle; --model and --weights do not mix.
        r = test::runCli({"export", "--model", weights, "--onnx", fromBundle});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("not a model bundle"), qPrintable(r.err));
        r = test::runCli({"export", "--model", bundle, "--weights", weights, "--onnx", fromBundle});
        QCOMPARE(r.code, 2);

        // Weights of another model: status 2, the tensor named.
        r = test::runCli({"export", "--experiment", exp, "--weights", otherWeights, "--onnx",
                          QString::fromStdString(dir + "/x.onnx")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("layers.0.weight"), qPrintable(r.err));
        QVERIFY(!std::filesystem::exists(dir + "/x.onnx"));

        r = test::runCli({"export", "--experiment", exp, "--weights", weights});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--onnx"));
        r = test::runCli(
            {"export", "--experiment", exp, "--weights", weights, "--onnx", out, "--batch", "0"});
        QCOMPARE(r.code, 2);
        r = test::runCli({"export", "--experiment", QString::fromStdString(dir + "/none.json"),
                          "--weights", weights, "--onnx", out});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("none.json"));

        // A folder that does not exist: status 1, the reason, no file.
        r = test::runCli({"export", "--experiment", exp, "--weights", weights, "--onnx",
                          QString::fromStdString(dir + "/missing/a.onnx")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("cannot save"), qPrintable(r.err));
        (void)otherExp;
    }
};

QTEST_GUILESS_MAIN(TestOnnxCli)
#include "tst_onnx_cli.moc"
