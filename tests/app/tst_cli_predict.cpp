// nnwb-cli train --save-model and nnwb-cli predict as a user runs them: a model trained on the
// bundled EURUSD H1 bars, applied to its own validation range, prints exactly the run's
// validation figures; applied to the shared XAUUSD H1 file it prints rows and metrics; files
// the model cannot use exit with 2 and the reason (no volume, another time frame, too few
// bars, a plain weights file); --csv writes one row per bar. Model files with NaN or infinite
// weights, overlapping tensors, a negative standard deviation or time frame 0 are refused by
// predict, train --load-weights and export with exit 2, naming the tensor or key.
#include <QtTest>

#include <cstring>
#include <fstream>
#include <functional>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "model/data/DateTime.h"
#include "nnwb/TestPaths.h"

using nlohmann::json;

class TstCliPredict : public QObject {
    Q_OBJECT
    QString dir_, experiment_, model_, weights_;
    json lastEpoch_;

    static nnwb::test::CliResult run(const QStringList& args) {
        return nnwb::test::runCli(args, 300000);
    }
    // A generic CSV of `count` bars `minutes` apart, with or without a volume column.
    static std::string barsText(int count, int minutes, bool volume) {
        std::string t =
            volume ? "Datetime,Open,High,Low,Close,Volume\n" : "Datetime,Open,High,Low,Close\n";
        const int64_t start = 1577836800;  // 2020-01-01 00:00
        for (int i = 0; i < count; ++i) {
            const double c = 1.0 + 0.01 * (i % 7);
            t += nnwb::formatBarTime(start + int64_t(i) * minutes * 60) + ":00," +
                 std::to_string(c) + "," + std::to_string(c + 0.05) + "," +
                 std::to_string(c - 0.05) + "," + std::to_string(c) + (volume ? ",5\n" : "\n");
        }
        return t;
    }
    QString write(const QString& name, const std::string& text) {
        const QString path = dir_ + "/" + name;
        std::ofstream(path.toStdString()) << text;
        return path;
    }

    // model_ rewritten: `header` edits the parsed safetensors header (the metadata is under
    // "__metadata__"), `data` the tensors' bytes; the header is written back unpadded.
    QString rewrittenModel(const QString& name, const std::function<void(json&)>& header,
                           const std::function<void(std::string&)>& data = {}) {
        std::ifstream f(model_.toStdString(), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(f)), {});
        uint64_t n = 0;
        std::memcpy(&n, bytes.data(), 8);
        json h = json::parse(bytes.substr(8, n));
        std::string rest = bytes.substr(8 + n);
        header(h);
        if (data) data(rest);
        const std::string text = h.dump();
        std::string out(8, '\0');
        const uint64_t len = text.size();
        std::memcpy(out.data(), &len, 8);
        return write(name, out + text + rest);
    }
    // predict, train --load-weights and export --onnx on `model` exit 2 with every `needle`.
    void allRefuse(const QString& model, const QStringList& needles) {
        const QString data = QString::fromStdString(nnwb::defaultDataFile());
        const QList<QStringList> commands = {
            {"predict", "--model", model, "--data", data},
            {"train", "--experiment", experiment_, "--load-weights", model},
            {"export", "--model", model, "--onnx", dir_ + "/refused.onnx"}};
        for (const QStringList& args : commands) {
            const auto r = run(args);
            QVERIFY2(r.code == 2,
                     qPrintable(args.first() + ": exit " + QString::number(r.code) + ": " + r.err));
            for (const QString& needle : needles)
                QVERIFY2(r.err.contains(needle), qPrintable(args.first() + ": " + r.err));
        }
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        const json e = {
            {"formatVersion", 1},
            {"name", "cli predict"},
            {"data", {{"file", nnwb::defaultDataFile()}, {"window", 8}, {"indicators", "mt5"}}},
            {"model",
             {{"layers",
               {{{"type", "conv"},
                 {"window", 12},
                 {"step", 12},
                 {"filters", 6},
                 {"activation", "sigmoid"}},
                {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
            {"training", {{"epochs", 2}, {"batchSize", 16}, {"seed", 3}}}};
        experiment_ = write("e.json", e.dump(2));
        model_ = dir_ + "/m.safetensors";
        weights_ = dir_ + "/w.safetensors";
        const auto r = run({"train", "--experiment", experiment_, "--json", "--save-model", model_,
                            "--save-weights", weights_});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        lastEpoch_ = json::parse(lines.back().toStdString());
    }

    void validationRangeGivesTheRunsFigures() {
        // The bundle names the validation range; predict over it on the training file.
        std::ifstream f(model_.toStdString(), std::ios::binary);
        uint64_t n = 0;
        f.read(reinterpret_cast<char*>(&n), 8);
        std::string header(n, '\0');
        f.read(header.data(), static_cast<std::streamsize>(n));
        const json meta = json::parse(header)["__metadata__"];
        QCOMPARE(meta["epoch"].get<std::string>(), std::string("2"));
        QCOMPARE(json::parse(meta["outputs"].get<std::string>()), json({"none", "buy", "sell"}));
        QCOMPARE(json::parse(meta["data"].get<std::string>())["indicators"].get<std::string>(),
                 std::string("mt5"));
        const json training = json::parse(meta["training"].get<std::string>());
        const auto r =
            run({"predict", "--model", model_, "--data",
                 QString::fromStdString(nnwb::defaultDataFile()), "--from",
                 QString::fromStdString(training["validationFirst"].get<std::string>()), "--to",
                 QString::fromStdString(training["validationLast"].get<std::string>()), "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json out = json::parse(r.out.toStdString());
        // Its own validation range is inside the training range (tick volume is 0 there too).
        QCOMPARE(out["warnings"]["outOfRange"], json::array());
        QVERIFY2(!r.err.contains("outside the training range"), qPrintable(r.err));
        const json& got = out["metrics"];
        const json& want = lastEpoch_["validation"];
        QCOMPARE(got["samples"].get<size_t>(), want["samples"].get<size_t>());
        QCOMPARE(got["loss"].get<double>(), want["loss"].get<double>());  // bit-equal
        QCOMPARE(got["accuracy"].get<double>(), want["accuracy"].get<double>());
        QCOMPARE(got["missed"].get<double>(), want["missed"].get<double>());
        QCOMPARE(got["confusion"], want["confusion"]);
        QCOMPARE(out["rows"].size(), want["samples"].get<size_t>());
    }

    void otherInstrumentPrintsRowsAndMetrics() {
        const QString gold = QStringLiteral(NNWB_SHARED_DATA_DIR "/XAUUSD_H1.csv");
        if (!QFile::exists(gold)) QSKIP("../shared/data/XAUUSD_H1.csv is not here");
        const QString csv = dir_ + "/gold.csv";
        const auto r = run(
            {"predict", "--model", model_, "--data", gold, "--from", "2018-01-01", "--csv", csv});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("metrics over"), qPrintable(r.out));
        // EURUSD features on gold: about 1000x the training scale, named on stderr.
        QVERIFY2(r.err.contains("warning: the inputs lie far outside the training range"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("closeOpen: ") && r.err.contains("worst z = "), qPrintable(r.err));
        const auto j =
            run({"predict", "--model", model_, "--data", gold, "--from", "2018-06-01", "--json"});
        QVERIFY2(j.code == 0, qPrintable(j.err));
        const json range = json::parse(j.out.toStdString())["warnings"]["outOfRange"];
        bool atr = false;
        for (const json& f : range)
            if (f["feature"] == "atr")
                atr = f["share"].get<double>() > 0.9 && f["worstZ"].get<double>() > 100.0;
        QVERIFY2(atr, range.dump().c_str());
        QVERIFY2(r.out.contains("confusion"), qPrintable(r.out));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).trimmed().split('\n');
        QCOMPARE(lines.front(), QStringLiteral("time,close,none,buy,sell,signal,label"));
        QVERIFY(lines[1].startsWith("2018-01-0"));
        QVERIFY2(lines.back().endsWith(","), qPrintable(lines.back()));  // last bar: no label
        QVERIFY(lines.size() > 1000);
    }

    void refusals() {
        // No volume column, but the model uses tick volume.
        auto r = run(
            {"predict", "--model", model_, "--data", write("novol.csv", barsText(80, 60, false))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("tick volume"), qPrintable(r.err));
        // M30 bars.
        r = run({"predict", "--model", model_, "--data", write("m30.csv", barsText(80, 30, true))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("M30") && r.err.contains("H1"), qPrintable(r.err));
        // Too few bars: says how many are needed, the training minimum (MACD 12/26/9 warm-up
        // 33 + window 8 + 1 bar for the label).
        r = run({"predict", "--model", model_, "--data", write("few.csv", barsText(30, 60, true))});
        QCOMPARE(r.code, 2);
        QVERIFY2(
            r.err.contains("too few bars: this experiment needs at least 42 bars, file has 30"),
            qPrintable(r.err));
        // A plain weights file is not a bundle.
        r = run({"predict", "--model", weights_, "--data",
                 QString::fromStdString(nnwb::defaultDataFile())});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("not a model bundle"), qPrintable(r.err));
        r = run({"predict", "--data", QString::fromStdString(nnwb::defaultDataFile())});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--model"), qPrintable(r.err));
        r = run({"predict", "--model", model_, "--data",
                 QString::fromStdString(nnwb::defaultDataFile()), "--from", "yesterday"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("yesterday"), qPrintable(r.err));
    }

    void impossibleWeightsAreRefused() {
        // A NaN and an infinity in the first tensor's values (tensors are in name order).
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        for (const auto& [v, word] : {std::pair<float, QString>{nan, "NaN"}, {inf, "infinite"}}) {
            uint64_t at = 0;
            const float value = v;  // a structured binding cannot be captured (C++17, clang)
            const QString m = rewrittenModel(
                "nonfinite.safetensors",
                [&](json& h) { at = h["layers.0.bias"]["data_offsets"][0].get<uint64_t>() + 4; },
                [&](std::string& d) { std::memcpy(d.data() + at, &value, 4); });
            allRefuse(m, {"layers.0.bias", "value 1 is " + word});
        }
        // Every tensor at offset 0 (safetensors forbids overlapping tensors).
        const QString overlap = rewrittenModel("overlap.safetensors", [](json& h) {
            for (auto& [name, t] : h.items())
                if (name != "__metadata__")
                    t["data_offsets"] = {0, t["data_offsets"][1].get<uint64_t>() -
                                                t["data_offsets"][0].get<uint64_t>()};
        });
        allRefuse(overlap, {"overlap.safetensors", "overlaps tensor"});
        // Offsets past the data.
        const QString past = rewrittenModel("past.safetensors", [](json& h) {
            h["layers.0.bias"]["data_offsets"] = {1u << 30, (1u << 30) + 24};
        });
        allRefuse(past, {"past.safetensors", "layers.0.bias"});
    }

    void impossibleMetadataIsRefused() {
        const QString data = QString::fromStdString(nnwb::defaultDataFile());
        const QString negative = rewrittenModel("stddev.safetensors", [](json& h) {
            json norm = json::parse(h["__metadata__"]["normalization"].get<std::string>());
            norm["stddev"][2] = -0.5;
            h["__metadata__"]["normalization"] = norm.dump();
        });
        const QString zero = rewrittenModel("timeframe.safetensors",
                                            [](json& h) { h["__metadata__"]["timeframe"] = "0"; });
        for (const auto& [model, key] :
             {std::pair<QString, QString>{negative, "__metadata__.normalization.stddev[2]"},
              {zero, "__metadata__.timeframe"}}) {
            for (const QStringList& args :
                 {QStringList{"predict", "--model", model, "--data", data},
                  QStringList{"export", "--model", model, "--onnx", dir_ + "/refused.onnx"}}) {
                const auto r = run(args);
                QVERIFY2(r.code == 2, qPrintable(args.first() + ": " + r.err));
                QVERIFY2(r.err.contains(key) && r.err.contains(model), qPrintable(r.err));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstCliPredict)
#include "tst_cli_predict.moc"
