// Every preset in resources/presets, trained for one epoch (on the newest 300 bars of the
// bundled EURUSD H1 data, validation share 0.4, so the suite stays fast; transformer-64 on 256
// samples of its synthetic task), exported to ONNX with a dynamic batch, checked by
// onnx::checker and strict shape inference, and run in onnxruntime 1.14 on 64 validation
// samples of raw features: max |onnxruntime - nnwb| below 1e-4 of the output range and the
// same argmax on every sample.
#include <QtTest>

#include <algorithm>
#include <filesystem>

#include "common/TestUtil.h"
#include "model/Experiment.h"
#include "nnwb/TestPaths.h"
#include "onnx/OnnxCase.h"
#include "onnx/OnnxReport.h"

using namespace nnwb;
using namespace nnwb::test;

class TestOnnxPresets : public QObject {
    Q_OBJECT
private slots:
    void preset_data() {
        QTest::addColumn<QString>("path");
        std::vector<std::string> files;
        for (const auto& f :
             std::filesystem::directory_iterator(std::string(NNWB_RESOURCE_DIR) + "/presets"))
            if (f.path().extension() == ".json") files.push_back(f.path().string());
        std::sort(files.begin(), files.end());
        QCOMPARE(int(files.size()), 7);
        for (const auto& f : files)
            QTest::newRow(std::filesystem::path(f).stem().string().c_str())
                << QString::fromStdString(f);
    }
    void preset() {
        QFETCH(QString, path);
        Experiment e = Experiment::load(path.toStdString());
        e.training.epochs = 1;
        e.training.device = "cpu";
        if (e.data.value("source", std::string("file")) == "synthetic")
            e.data["samples"] = 256;  // validation share 0.25: 64 validation samples
        else
            e.data["validationShare"] = 0.4;
        const BarSeries bars = newestBars(bundledBars(), 300);
        QVERIFY(bars.size() == 300);
        const std::string tag = std::filesystem::path(path.toStdString()).stem().string();
        const auto r = runOnnxCase(e, bars, 0, dir_, tag);
        QVERIFY2(r.error.empty(), r.error.c_str());
        reportCase(tag, r);
    }

private:
    std::string dir_ = tempDir();
};

QTEST_GUILESS_MAIN(TestOnnxPresets)
#include "tst_onnx_presets.moc"
