// The MetaTrader 5 hand-off says what nnwb does: the ONNX input description's MACD seeding
// follows the indicator definitions (first close for mt5, the mean of the first n closes for
// textbook, as the implementation seeds), hour/dayOfWeek/month name their time zone, the
// generated expert embeds model.onnx from its own folder (no MQL5\Files), and so does the
// snippet in docs/onnx-and-mt5.md. `nnwb-cli export --mql5 DIR` writes DIR/model.onnx and
// DIR/nnwb_expert.mq5, and refuses bad input with a clear error (no model, a DIR that cannot
// be created, a fixed batch above 1, both --onnx and --mql5, synthetic data).
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "app/export/FeatureDocs.h"
#include "app/export/Mql5Expert.h"
#include "app/export/OnnxExport.h"
#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "compute/CpuBackend.h"
#include "model/Experiment.h"
#include "model/Network.h"
#include "model/NetworkWeights.h"
#include "model/data/DataConfig.h"
#include "model/data/Indicators.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

DataConfig config(IndicatorDefinitions d) {
    DataConfig c;
    c.features.definitions = d;
    return c;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

json experimentJson(const std::string& source) {
    json data = {{"source", source}, {"file", defaultDataFile()}, {"window", 6}};
    if (source == "synthetic")
        data = {{"source", "synthetic"}, {"samples", 64}, {"units", 12}, {"window", 6}};
    return {{"formatVersion", 1},
            {"name", "mql5 export"},
            {"data", data},
            {"model",
             {{"layers",
               json::array({{{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}})}}},
            {"training", {{"epochs", 1}, {"device", "cpu"}}}};
}

// The experiment and seeded weights of its network; returns both paths.
std::pair<QString, QString> writeModel(const std::string& dir, const std::string& source) {
    const Experiment e = Experiment::fromJson(experimentJson(source));
    const std::string exp = dir + "/" + source + ".json", w = dir + "/" + source + ".safetensors";
    e.save(exp);
    CpuBackend be;
    Network net(Network::layersFromJson(e.model), Shape{6, 12});
    net.build(be, 1);
    net.initWeights(3);
    saveWeightsFile(net, w);
    return {QString::fromStdString(exp), QString::fromStdString(w)};
}

}  // namespace

class TestMql5Export : public QObject {
    Q_OBJECT
private slots:
    void macdSeedingSaysWhatTheIndicatorsDo() {
        // The implementation: mt5 EMAs start at the first close, textbook ones at the mean of
        // the first n closes.
        const std::vector<double> x{1.0, 2.0, 4.0, 8.0};
        QCOMPARE(emaSeededFirst(x, 3)[0], 1.0);
        QCOMPARE(emaSeries(x, 3)[2], (1.0 + 2.0 + 4.0) / 3.0);
        const std::string mt5 =
            onnxexport::featureDefinition(Feature::MacdMain, config(IndicatorDefinitions::Mt5));
        const std::string textbook = onnxexport::featureDefinition(
            Feature::MacdMain, config(IndicatorDefinitions::Textbook));
        QVERIFY2(has(mt5, "seeded with the first close"), mt5.c_str());
        QVERIFY2(!has(mt5, "mean"), mt5.c_str());
        QVERIFY2(has(textbook, "seeded with the simple mean of their first n closes"),
                 textbook.c_str());
    }

    void timeFeaturesNameTheirTimeZone() {
        for (Feature f : {Feature::Hour, Feature::DayOfWeek, Feature::Month}) {
            const std::string d =
                onnxexport::featureDefinition(f, config(IndicatorDefinitions::Mt5));
            QVERIFY2(has(d, "time zone of the training data") && has(d, "server time"), d.c_str());
        }
    }

    void expertEmbedsTheModelFromItsOwnFolder() {
        ModelBundle b;
        b.data = config(IndicatorDefinitions::Mt5);
        const std::string mq5 = onnxexport::mql5ExpertSource(b);
        QVERIFY(has(mq5, "#resource \"model.onnx\" as uchar NnwbModel[]"));
        QVERIFY(has(mq5, "OnnxCreateFromBuffer(NnwbModel"));
        QVERIFY(!has(mq5, "\\\\Files\\\\"));
        QVERIFY(has(mq5, "into one folder under MQL5\\Experts"));
        QVERIFY(has(mq5, "server time"));
        QVERIFY(has(mq5, "seeded with the first close"));
        QVERIFY(has(mq5, "#define NNWB_WINDOW 20"));
        QVERIFY(has(mq5, "#define NNWB_FEATURES 12"));
        QVERIFY(has(mq5, "#define NNWB_WARMUP 33"));
    }

    void readmeSnippetAgreesWithTheGenerator() {
        // The MetaTrader 5 section of the docs (moved there from the README).
        const std::string doc = slurp(std::string(NNWB_RESOURCES_DIR) + "/../docs/onnx-and-mt5.md");
        const size_t at = doc.find("\n## Run it in MetaTrader 5");
        QVERIFY(at != std::string::npos);
        const std::string section = doc.substr(at, doc.find("\n## ", at + 1) - at);
        // Every #resource in the section reads model.onnx next to the source, none MQL5\Files.
        std::smatch m;
        std::string rest = section;
        int resources = 0;
        while (std::regex_search(rest, m, std::regex("#resource\\s+\"([^\"]*)\""))) {
            QCOMPARE(m[1].str(), std::string("model.onnx"));
            ++resources;
            rest = m.suffix();
        }
        QVERIFY(resources >= 1);
        QVERIFY(has(section, "--mql5 DIR"));
        QVERIFY(has(section, "server time"));
        QVERIFY(has(section, "first close"));
    }

    void cliWritesBothFiles() {
        const std::string dir = test::tempDir();
        const auto [exp, weights] = writeModel(dir, "file");
        const std::string out = dir + "/mt5/nested";  // created
        auto r = test::runCli({"export", "--experiment", exp, "--weights", weights, "--mql5",
                               QString::fromStdString(out)});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("nnwb_expert.mq5"), qPrintable(r.out));
        onnx::ModelProto m = onnxexport::loadModel(out + "/model.onnx");
        QCOMPARE(onnxexport::checkModel(m).inputDims, (std::vector<int64_t>{1, 6, 12}));
        const std::string mq5 = slurp(out + "/nnwb_expert.mq5");
        QVERIFY(has(mq5, onnxexport::kMql5FeaturesBegin));
        QVERIFY(has(mq5, "#define NNWB_WINDOW 6"));
        QVERIFY(has(mq5, "#define NNWB_TIMEFRAME_SECONDS 3600"));
        // The training part's statistics, as the bundle holds them.
        QVERIFY(has(mq5, "const double NNWB_MEAN[12] = {"));
        QVERIFY(!has(mq5, "const double NNWB_MEAN[12] = {0, 0"));

        // From a model bundle, dynamic batch.
        const QString bundle = QString::fromStdString(dir + "/m.safetensors");
        r = test::runCli({"train", "--experiment", exp, "--epochs", "1", "--save-model", bundle});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = test::runCli({"export", "--model", bundle, "--mql5", QString::fromStdString(dir + "/b"),
                          "--batch", "dynamic"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(std::filesystem::exists(dir + "/b/model.onnx"));
        QVERIFY(has(slurp(dir + "/b/nnwb_expert.mq5"), "model 'mql5 export'"));
    }

    // The expert trades what was tested: export --model with --experiment takes that
    // experiment's trading settings (as the window's export takes the open experiment's), without
    // it the defaults; --experiment with --model only goes with --mql5, --weights not with
    // --model. Before, --model with --experiment was refused and the expert always traded the
    // defaults.
    void cliModelTradesTheExperimentsSettings() {
        const std::string dir = test::tempDir();
        const auto [exp, weights] = writeModel(dir, "file");
        const QString bundle = QString::fromStdString(dir + "/m.safetensors");
        auto r = test::runCli(
            {"train", "--experiment", exp, "--epochs", "1", "--save-model", bundle, "--no-record"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        json e = json::parse(slurp(exp.toStdString()));
        e["trading"] = {{"threshold", 0.625}, {"minAgreement", 0.75}, {"exitAfterBars", 3}};
        const QString traded = QString::fromStdString(dir + "/traded.json");
        std::ofstream(traded.toStdString()) << e.dump();
        r = test::runCli({"export", "--model", bundle, "--experiment", traded, "--mql5",
                          QString::fromStdString(dir + "/t")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("the experiment's trading rules"), qPrintable(r.out));
        const std::string mq5 = slurp(dir + "/t/nnwb_expert.mq5");
        QVERIFY(has(mq5, "input double InpThreshold = 0.625;"));
        QVERIFY(has(mq5, "input double InpMinAgreement = 0.75;"));
        QVERIFY(has(mq5, "input int    InpExitAfterBars = 3;"));
        r = test::runCli(
            {"export", "--model", bundle, "--mql5", QString::fromStdString(dir + "/d")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("the default trading rules"), qPrintable(r.out));
        QVERIFY(has(slurp(dir + "/d/nnwb_expert.mq5"), "input double InpThreshold = 0;"));
        // --experiment with --model and --onnx, --weights with --model: refused, nothing written.
        r = test::runCli({"export", "--model", bundle, "--experiment", traded, "--onnx",
                          QString::fromStdString(dir + "/x.onnx")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("only with --mql5"), qPrintable(r.err));
        r = test::runCli({"export", "--model", bundle, "--weights", weights, "--mql5",
                          QString::fromStdString(dir + "/w")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--weights goes with --experiment"), qPrintable(r.err));
        QVERIFY(!std::filesystem::exists(dir + "/x.onnx") && !std::filesystem::exists(dir + "/w"));
    }

    void cliRefusesBadInput() {
        const std::string dir = test::tempDir();
        const auto [exp, weights] = writeModel(dir, "file");
        const auto [synExp, synWeights] = writeModel(dir, "synthetic");
        const QString target = QString::fromStdString(dir + "/out");

        auto r = test::runCli({"export", "--mql5", target});  // no model
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--model"), qPrintable(r.err));
        r = test::runCli({"export", "--model", QString::fromStdString(dir + "/none.safetensors"),
                          "--mql5", target});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("none.safetensors"), qPrintable(r.err));
        r = test::runCli({"export", "--experiment", exp, "--weights", weights, "--mql5", target,
                          "--onnx", QString::fromStdString(dir + "/x.onnx")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--mql5 DIR"), qPrintable(r.err));
        r = test::runCli({"export", "--experiment", exp, "--weights", weights, "--mql5", target,
                          "--batch", "4"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--batch 1 or dynamic"), qPrintable(r.err));
        r = test::runCli(
            {"export", "--experiment", synExp, "--weights", synWeights, "--mql5", target});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("synthetic"), qPrintable(r.err));
        QVERIFY(!std::filesystem::exists(dir + "/out"));

        // A DIR that is a file, or lies under one: status 1, the folder named, nothing written.
        const std::string file = dir + "/plain.txt";
        std::ofstream(file) << "x";
        for (const std::string& bad : {file, file + "/sub"}) {
            r = test::runCli({"export", "--experiment", exp, "--weights", weights, "--mql5",
                              QString::fromStdString(bad)});
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains("cannot create folder") &&
                         r.err.contains(QString::fromStdString(bad)),
                     qPrintable(r.err));
        }
        QCOMPARE(slurp(file), std::string("x"));
    }
};

QTEST_GUILESS_MAIN(TestMql5Export)
#include "tst_mql5_export.moc"
