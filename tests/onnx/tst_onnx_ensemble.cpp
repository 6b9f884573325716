// An ensemble exported as one ONNX graph (docs/ensembles.md): 3 seeds trained with
// `nnwb-cli train --population 3 --ensemble` on the first 700 bars of the bundled EURUSD file,
// exported with `nnwb-cli export --model E --onnx F`, run in onnxruntime 1.14 on the raw
// features of every predicted bar: its "scores" output equals predict's mean of the members
// within 1e-4 and its "agreement" output predict's agreement, with graph optimizations off and
// on; the graph passes the checker at opset 17 with two outputs. --mql5 writes an Expert
// Advisor that reads the agreement output and passes it to NnwbTrade (tst_mql5_trading replays
// NnwbTrade's minAgreement against the trading evaluation).
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/export/OnnxExport.h"
#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/data/Features.h"
#include "model/ensemble/EnsemblePrediction.h"
#include "nnwb/TestPaths.h"

using nlohmann::json;

class TstOnnxEnsemble : public QObject {
    Q_OBJECT
    std::string dir_;

    static void writeFloats(const std::string& path, const std::vector<float>& v) {
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 4));
    }
    static std::vector<float> readFloats(const std::string& path) {
        std::ifstream f(path, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(f)), {});
        std::vector<float> v(bytes.size() / 4);
        std::memcpy(v.data(), bytes.data(), v.size() * 4);
        return v;
    }

private Q_SLOTS:
    void ensembleGraphEqualsPredict() {
        dir_ = nnwb::test::tempDir();
        std::ifstream in(nnwb::defaultDataFile());
        std::string text, line;
        for (int i = 0; i < 701 && std::getline(in, line); ++i) text += line + "\n";
        const std::string data = dir_ + "/EURUSD_H1.csv";
        std::ofstream(data) << text;
        const json e = {
            {"formatVersion", 2},
            {"name", "ens"},
            {"data", {{"file", data}, {"window", 6}}},
            {"model",
             {{"layers",
               {{{"type", "dense"}, {"neurons", 16}, {"activation", "tanh"}},
                {{"type", "dense"}, {"neurons", 3}, {"activation", "softmax"}}}}}},
            {"training",
             {{"epochs", 3}, {"batchSize", 16}, {"seed", 5}, {"loss", "cross_entropy"}}}};
        const std::string exp = dir_ + "/e.json", bundle = dir_ + "/ens.safetensors",
                          onnx = dir_ + "/ens.onnx";
        std::ofstream(exp) << e.dump();
        auto r = nnwb::test::runCli({"train", "--experiment", QString::fromStdString(exp),
                                     "--population", "3", "--vary", "seed=5..7", "--ensemble",
                                     "--save-model", QString::fromStdString(bundle), "--no-record"},
                                    300000);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        r = nnwb::test::runCli({"export", "--model", QString::fromStdString(bundle), "--onnx",
                                QString::fromStdString(onnx), "--batch", "dynamic"},
                               300000);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        // The summary names both outputs (before: only 'scores').
        QVERIFY2(r.out.contains("output 'scores' [batch, 3] float32") &&
                     r.out.contains("output 'agreement' [batch, 1] float32"),
                 qPrintable(r.out));
        r = nnwb::test::runCli({"export", "--model", QString::fromStdString(bundle), "--mql5",
                                QString::fromStdString(dir_ + "/mq")},
                               300000);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        std::ifstream mq5(dir_ + "/mq/nnwb_expert.mq5");
        const std::string expert((std::istreambuf_iterator<char>(mq5)), {});
        for (const char* line :
             {"OnnxSetOutputShape(g_handle, 1, agreement_shape)",
              "OnnxRun(g_handle, ONNX_NO_CONVERSION, xin, y, agreement)",
              "NnwbTrade(rates, n, g_signal, y[g_signal], agreement[0], g_trade);",
              "agreement < InpMinAgreement"})
            QVERIFY2(expert.find(line) != std::string::npos, line);

        onnx::ModelProto m = nnwb::onnxexport::loadModel(onnx);
        const auto summary = nnwb::onnxexport::checkModel(m);
        QCOMPARE(summary.opset, 17);
        QCOMPARE(m.graph().output_size(), 2);
        QCOMPARE(m.graph().output(1).name(), std::string("agreement"));

        // predict's combined rows, and the raw features of the same bars.
        const nnwb::EnsembleBundle ens = nnwb::EnsembleBundle::load(bundle);
        const nnwb::LoadResult loaded = nnwb::loadBarFile(data);
        QVERIFY(loaded.ok);
        const nnwb::PredictionInputs inputs = nnwb::buildPredictionInputs(ens.common, loaded.bars);
        nnwb::EnsemblePredictor predictor(ens, "cpu");
        const nnwb::PredictionResult want = predictor.run(inputs, loaded.bars);
        const nnwb::FeatureMatrix fm = nnwb::computeFeatures(loaded.bars, ens.common.data.features);
        const int window = ens.common.data.window, nf = fm.features;
        const size_t n = want.rows.size();
        std::vector<float> raw;
        for (const nnwb::PredictionRow& row : want.rows)
            for (int u = 0; u < window; ++u)
                for (int f = 0; f < nf; ++f)
                    raw.push_back(float(fm.at(row.bar + 1 - size_t(window) + size_t(u), f)));
        const std::string input = dir_ + "/in.f32", output = dir_ + "/out.f32";
        writeFloats(input, raw);
        QProcess p;
        p.start(QStandardPaths::findExecutable("node"),
                {NNWB_ONNX_RUNNER, NNWB_ONNX_RUNTIME_DIR, QString::fromStdString(onnx),
                 QString::fromStdString(input), QString::number(n), QString::number(window),
                 QString::number(nf), "0", QString::fromStdString(output)});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY2(p.readAllStandardOutput().contains("\"onnxruntime\":\"1.14"), "not 1.14");
        const std::vector<float> got = readFloats(output);
        QCOMPARE(got.size(), 2 * (n * 3 + n));  // two passes of scores then agreement
        double worstScore = 0, worstAgreement = 0;
        bool partial = false;
        for (int pass = 0; pass < 2; ++pass) {
            const float* scores = got.data() + size_t(pass) * (n * 4);
            const float* agreement = scores + n * 3;
            for (size_t k = 0; k < n; ++k) {
                for (size_t o = 0; o < 3; ++o)
                    worstScore = std::max(
                        worstScore, std::fabs(double(scores[k * 3 + o]) - want.rows[k].outputs[o]));
                worstAgreement = std::max(worstAgreement,
                                          std::fabs(double(agreement[k]) - want.rows[k].agreement));
                partial = partial || want.rows[k].agreement < 1.0f;
            }
        }
        QVERIFY2(worstScore < 1e-4, qPrintable(QString::number(worstScore)));
        QVERIFY2(worstAgreement < 1e-4, qPrintable(QString::number(worstAgreement)));
        QVERIFY(partial);  // the members disagree somewhere: the agreement output is tested
    }
};

QTEST_GUILESS_MAIN(TstOnnxEnsemble)
#include "tst_onnx_ensemble.moc"
