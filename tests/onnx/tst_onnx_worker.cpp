// File > Export > ONNX's path without widgets: the training controller asks its worker thread
// to export the weights of the last completed epoch; the file passes onnx::checker and strict
// shape inference with the input [1, window, features] and output [1, 3]. Before any training
// the export is refused with a reason and writes nothing; an unwritable path names the reason.
#include <QtTest>

#include <QSignalSpy>

#include <filesystem>

#include "app/core/TrainingController.h"
#include "app/export/OnnxExport.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"

using namespace nnwb;
using nlohmann::json;

namespace {

// A small model on the bundled bars (window 6, all 12 features), one epoch.
Experiment small() {
    json j{{"formatVersion", 1},
           {"name", "onnx worker test"},
           {"data",
            {{"source", "file"},
             {"file", defaultDataFile()},
             {"window", 6},
             {"positionalEncoding", true}}},
           {"model",
            {{"layers",
              json::array({{{"type", "conv"},
                            {"window", 12},
                            {"step", 12},
                            {"filters", 5},
                            {"activation", "sigmoid"}},
                           {{"type", "lightconv"}, {"heads", 1}, {"kernel_size", 3}},
                           {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}})}}},
           {"training", {{"batchSize", 64}, {"epochs", 1}, {"device", "cpu"}}}};
    return Experiment::fromJson(j);
}

}  // namespace

class TestOnnxWorker : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { registerMetaTypes(); }

    void exportAfterTraining() {
        TrainingController c;
        const std::string dir = test::tempDir();
        QSignalSpy exported(&c, &TrainingController::onnxExported);
        // Nothing trained yet: refused, no file.
        c.exportOnnx(QString::fromStdString(dir + "/early.onnx"), 1);
        QVERIFY(exported.wait(30000));
        QVERIFY(!exported.first().at(0).toBool());
        QVERIFY(exported.first().at(1).toString().contains("no trained weights"));
        QVERIFY(!std::filesystem::exists(dir + "/early.onnx"));

        QSignalSpy finished(&c, &TrainingController::runFinished);
        QVERIFY(c.start(small()));
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);

        exported.clear();
        const std::string path = dir + "/model.onnx";
        c.exportOnnx(QString::fromStdString(path), 1);
        QVERIFY(exported.wait(60000));
        QVERIFY2(exported.first().at(0).toBool(), qPrintable(exported.first().at(1).toString()));
        onnx::ModelProto m = onnxexport::loadModel(path);
        const auto s = onnxexport::checkModel(m);
        QCOMPARE(s.inputDims, (std::vector<int64_t>{1, 6, 12}));
        QCOMPARE(s.outputDims, (std::vector<int64_t>{1, 3}));
        QVERIFY(s.ops.count("Conv") == 1);
        bool epoch = false;
        for (const auto& p : m.metadata_props())
            epoch = epoch || (p.key() == "nnwb.epoch" && p.value() == "1");
        QVERIFY(epoch);

        // A folder that does not exist: the reason comes back, nothing is written.
        exported.clear();
        c.exportOnnx(QString::fromStdString(dir + "/missing/model.onnx"), 0);
        QVERIFY(exported.wait(60000));
        QVERIFY(!exported.first().at(0).toBool());
        QVERIFY(exported.first().at(1).toString().contains("missing"));
    }
};

QTEST_GUILESS_MAIN(TestOnnxWorker)
#include "tst_onnx_worker.moc"
