// One model per layer type and option at odd sizes (windows of 7 bars x 5 features, 3 heads,
// key sizes 1-3, kernels 3 and 5...): dense and conv with every activation, conv with
// overlapping windows, attention (causal, sequence norm), multihead_attention,
// attention_stack (fused QKV, causal mask, element and sequence norm), gpt in sequence mode,
// lightconv with both paddings and with and without softmax over taps. Each is trained for one
// epoch on the newest 300 bundled bars, exported (dynamic or fixed batch), checked by
// onnx::checker and strict shape inference, and run in onnxruntime 1.14 on 64 validation
// samples of raw features against nnwb's CPU forward pass.
#include <QtTest>

#include "common/TestUtil.h"
#include "model/Experiment.h"
#include "model/data/DataConfig.h"
#include "onnx/OnnxCase.h"
#include "onnx/OnnxReport.h"

using namespace nnwb;
using namespace nnwb::test;
using nlohmann::json;

namespace {

// Window 7 bars x 5 features (z-score unless `normalization` says otherwise).
Experiment makeExperiment(const json& layers, bool positional, const std::string& normalization,
                          const std::string& loss) {
    json data{{"source", "file"},
              {"file", defaultDataFile()},
              {"window", 7},
              {"validationShare", 0.4},
              {"normalization", normalization},
              {"positionalEncoding", positional},
              {"features",
               {{"closeOpen", true},
                {"highOpen", false},
                {"lowOpen", false},
                {"tickVolume", true},
                {"hour", true},
                {"dayOfWeek", false},
                {"month", false},
                {"rsi", true},
                {"cci", false},
                {"atr", false},
                {"macdMain", false},
                {"macdSignal", true}}}};
    json j{{"formatVersion", 1},
           {"name", "onnx layer test"},
           {"data", data},
           {"model", {{"layers", layers}}},
           {"training",
            {{"optimizer", {{"type", "adam"}, {"learningRate", 0.003}}},
             {"loss", loss},
             {"batchSize", 8},
             {"epochs", 1},
             {"seed", 3},
             {"device", "cpu"}}}};
    return Experiment::fromJson(j);
}

json conv(int window, int step, int filters, const std::string& act) {
    return {{"type", "conv"},
            {"window", window},
            {"step", step},
            {"filters", filters},
            {"activation", act}};
}
json dense(int neurons, const std::string& act) {
    return {{"type", "dense"}, {"neurons", neurons}, {"activation", act}};
}

}  // namespace

class TestOnnxLayers : public QObject {
    Q_OBJECT
private slots:
    void layer_data() {
        QTest::addColumn<QString>("layers");
        QTest::addColumn<bool>("positional");
        QTest::addColumn<QString>("normalization");
        QTest::addColumn<QString>("loss");
        QTest::addColumn<int>("batch");
        auto row = [](const char* name, const json& layers, bool pe = false, int batch = 0,
                      const char* norm = "zscore", const char* loss = "mse") {
            QTest::newRow(name) << QString::fromStdString(layers.dump()) << pe << QString(norm)
                                << QString(loss) << batch;
        };
        // dense and conv with every activation (conv over each bar's 5 features)
        for (const char* act :
             {"none", "tanh", "sigmoid", "relu", "leaky_relu", "swish", "softmax"})
            row((std::string("conv+dense ") + act).c_str(),
                json::array({conv(5, 5, 6, act), dense(3, act)}), false, 0, "zscore",
                std::string(act) == "none" ? "cross_entropy" : "mse");
        row("conv overlapping windows, dense",
            json::array({conv(7, 3, 5, "tanh"), dense(9, "swish"), dense(3, "sigmoid")}), true, 16);
        row("dense, no normalization", json::array({dense(11, "tanh"), dense(3, "sigmoid")}), false,
            1, "none");
        row("attention",
            json::array({{{"type", "attention"}, {"key_size", 3}}, dense(3, "sigmoid")}), true, 64);
        row("attention causal sequence norm", json::array({{{"type", "attention"},
                                                            {"key_size", 2},
                                                            {"causal", true},
                                                            {"norm", "sequence"},
                                                            {"activation", "swish"},
                                                            {"ff_activation", "tanh"}},
                                                           dense(3, "sigmoid")}));
        row("multihead_attention",
            json::array({conv(5, 5, 6, "sigmoid"),
                         {{"type", "multihead_attention"},
                          {"key_size", 2},
                          {"heads", 3},
                          {"causal", true},
                          {"activation", "relu"}},
                         dense(3, "sigmoid")}),
            true);
        row("attention_stack causal sequence norm", json::array({{{"type", "attention_stack"},
                                                                  {"key_size", 3},
                                                                  {"heads", 3},
                                                                  {"layers", 2},
                                                                  {"causal", true},
                                                                  {"norm", "sequence"},
                                                                  {"ff_activation", "sigmoid"}},
                                                                 dense(3, "sigmoid")}));
        row("attention_stack element norm",
            json::array({conv(5, 5, 6, "tanh"),
                         {{"type", "attention_stack"},
                          {"key_size", 1},
                          {"heads", 2},
                          {"layers", 3},
                          {"causal", false},
                          {"norm", "element"}},
                         dense(3, "none")}),
            false, 0, "zscore", "cross_entropy");
        // Dropout is the identity at inference: no node for the layer, nothing for the rates.
        row("attention_stack with dropout", json::array({conv(5, 5, 6, "sigmoid"),
                                                         {{"type", "dropout"}, {"rate", 0.2}},
                                                         {{"type", "attention_stack"},
                                                          {"key_size", 3},
                                                          {"heads", 2},
                                                          {"layers", 2},
                                                          {"score_dropout", 0.1},
                                                          {"ff_dropout", 0.3}},
                                                         {{"type", "dropout"}, {"rate", 0.5}},
                                                         dense(3, "sigmoid")}));
        row("gpt sequence mode",
            json::array({conv(5, 5, 6, "sigmoid"),
                         {{"type", "gpt"},
                          {"key_size", 3},
                          {"heads", 3},
                          {"layers", 2},
                          {"mode", "sequence"}},
                         dense(3, "sigmoid")}),
            true);
        row("lightconv causal softmax taps", json::array({conv(5, 5, 6, "sigmoid"),
                                                          {{"type", "lightconv"},
                                                           {"heads", 3},
                                                           {"kernel_size", 5},
                                                           {"padding_l", "causal"},
                                                           {"softmax_taps", true}},
                                                          dense(3, "sigmoid")}));
        row("lightconv centred raw taps",
            json::array({conv(5, 5, 6, "none"),
                         {{"type", "lightconv"},
                          {"heads", 2},
                          {"kernel_size", 3},
                          {"padding_l", "centred"},
                          {"softmax_taps", false}},
                         dense(3, "sigmoid")}),
            true, 32);
    }
    void layer() {
        QFETCH(QString, layers);
        QFETCH(bool, positional);
        QFETCH(QString, normalization);
        QFETCH(QString, loss);
        QFETCH(int, batch);
        const Experiment e = makeExperiment(json::parse(layers.toStdString()), positional,
                                            normalization.toStdString(), loss.toStdString());
        const BarSeries bars = newestBars(bundledBars(), 300);
        const std::string tag = QTest::currentDataTag();
        std::string file = tag;
        for (char& c : file)
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        const auto r = runOnnxCase(e, bars, batch, dir_, file);
        QVERIFY2(r.error.empty(), r.error.c_str());
        reportCase(tag, r);
    }

private:
    std::string dir_ = tempDir();
};

QTEST_GUILESS_MAIN(TestOnnxLayers)
#include "tst_onnx_layers.moc"
