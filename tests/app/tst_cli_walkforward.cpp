// nnwb-cli walkforward and train on a walk-forward experiment (issue 30), on a short cut of the
// bundled EURUSD H1 file with a tiny network: one JSON record per fold then the stitched
// summary, whose figures are the folds' together, with the trading evaluation of the stitched
// signals; folds in time order with the purge between training and test; each fold recorded as
// a run "NAME fold k/N"; the text table and the CSV; train takes the same path; bad settings
// exit 2 naming the setting; --slots runs the folds as parallel processes with the same fold
// records, stitched figures and trading as the serial run; anchored --train-length with a fold
// count and a test length is the first fold's training part.
#include <QtTest>

#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"

using json = nlohmann::json;

class CliWalkForwardTest : public QObject, nnwb::test::CliFixture {
    Q_OBJECT
    QString experiment_, walkForward_, db_;

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        db_ = dir_ + "/runs.sqlite";
        // The first 700 bars of the bundled file.
        writeCut("cut.csv", 700);
        json e = nnwb::test::tinyMt5Experiment("wf", 3);
        experiment_ = write("holdout.json", e.dump(2));
        e["validation"] = {{"mode", "walkforward"}, {"folds", 3}, {"embargo", 2}};
        walkForward_ = write("walkforward.json", e.dump(2));
    }

    void jsonRecordsAndStitchedFigures() {
        const auto r = run({"walkforward", "--experiment", experiment_, "--folds", "3", "--embargo",
                            "2", "--json", "--runs-db", db_});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::vector<json> v = jsonLines(r.out);
        QCOMPARE(v.size(), size_t(4));
        size_t samples = 0, signalSum = 0, patterns = 0;
        double lossSum = 0;
        for (size_t k = 0; k < 3; ++k) {
            const json& f = v[k];
            QCOMPARE(f["fold"].get<int>(), int(k + 1));
            QCOMPARE(f["folds"].get<int>(), 3);
            QCOMPARE(f["name"].get<std::string>(), "wf fold " + std::to_string(k + 1) + "/3");
            QCOMPARE(f["status"].get<std::string>(), std::string("completed"));
            QVERIFY(f["bestEpoch"].get<int>() >= 1 && f["bestEpoch"].get<int>() <= 3);
            QVERIFY(f["runId"].get<int64_t>() > 0);
            // purge 1 (3-bar fractals) + embargo 2 between training part and test
            QVERIFY(f["validation"]["lastBar"].get<size_t>() + 3 < f["test"]["firstBar"]);
            QCOMPARE(f["validation"]["lastBar"].get<size_t>() + 4,
                     f["test"]["firstBar"].get<size_t>());
            QVERIFY(f["train"]["lastBar"].get<size_t>() + 1 < f["validation"]["firstBar"]);
            QCOMPARE(f["train"]["firstBar"], v[0]["train"]["firstBar"]);  // anchored
            if (k > 0)
                QCOMPARE(f["test"]["firstBar"].get<size_t>(),
                         v[k - 1]["test"]["lastBar"].get<size_t>() + 1);
            const json& t = f["test"];
            QCOMPARE(t["samples"].get<size_t>(),
                     t["lastBar"].get<size_t>() - t["firstBar"].get<size_t>() + 1);
            samples += t["samples"].get<size_t>();
            signalSum += t["signals"].get<size_t>();
            patterns += t["patterns"].get<size_t>();
            lossSum += t["loss"].get<double>() * t["samples"].get<double>();
        }
        const json& s = v[3]["stitched"];
        QCOMPARE(s["folds"].get<int>(), 3);
        const json& o = s["outOfSample"];
        QCOMPARE(o["samples"].get<size_t>(), samples);
        QCOMPARE(o["signals"].get<size_t>(), signalSum);
        QCOMPARE(o["patterns"].get<size_t>(), patterns);
        QVERIFY(std::abs(o["loss"].get<double>() - lossSum / double(samples)) < 1e-9);
        QCOMPARE(o["firstBar"], v[0]["test"]["firstBar"]);
        QCOMPARE(o["lastBar"], v[2]["test"]["lastBar"]);
        QCOMPARE(o["lastBar"].get<size_t>(), size_t(700 - 2));  // the newest labelled bar
        // The stitched signals traded (docs/trading.md) over the out-of-sample bars, with the
        // baselines.
        QVERIFY(s.contains("trading"));
        const json& trading = s["trading"];
        QCOMPARE(trading["range"]["firstBar"], o["firstBar"]);
        QCOMPARE(trading["range"]["lastBar"], o["lastBar"]);
        QVERIFY(trading["strategy"]["trades"].get<int>() > 0);
        QVERIFY(trading.contains("buyAndHold") && trading.contains("random"));
        // Each fold is a run of the store, named so, trained on the fold's samples.
        const auto list = run({"runs", "list", "--json", "--runs-db", db_});
        QCOMPARE(list.code, 0);
        const json runs = json::parse(list.out.toStdString());
        for (size_t k = 0; k < 3; ++k) {
            bool found = false;
            for (const json& x : runs)
                if (x["id"] == v[k]["runId"]) {
                    found = true;
                    QCOMPARE(x["name"], v[k]["name"]);
                    QCOMPARE(x["trainSamples"].get<size_t>(),
                             v[k]["train"]["samples"].get<size_t>());
                    QCOMPARE(x["validationSamples"].get<size_t>(),
                             v[k]["validation"]["samples"].get<size_t>());
                }
            QVERIFY2(found, qPrintable(list.out));
        }
    }

    void textTableCsvAndTrainPath() {
        const QString csv = dir_ + "/folds.csv";
        // train on an experiment whose validation.mode is walkforward: the same path.
        const auto r = run({"train", "--experiment", walkForward_, "--no-record", "--epochs", "2"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("walk-forward anchored, 3 folds, purge 1, embargo 2 bars"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("test period") && r.out.contains("\n3/3 "), qPrintable(r.out));
        QVERIFY2(r.out.contains("out of sample, stitched from 3 folds"), qPrintable(r.out));
        QVERIFY2(r.out.contains("confusion"), qPrintable(r.out));
        QVERIFY2(r.out.contains("trading the stitched signals"), qPrintable(r.out));
        const auto w = run({"walkforward", "--experiment", walkForward_, "--no-record", "--epochs",
                            "1", "--scheme", "rolling", "--train-length", "200", "--csv", csv});
        QVERIFY2(w.code == 0, qPrintable(w.err));
        std::ifstream in(csv.toStdString());
        std::vector<std::string> rows;
        for (std::string line; std::getline(in, line);) rows.push_back(line);
        QCOMPARE(rows.size(), size_t(5));
        QVERIFY(rows[0].rfind("fold,train_from,", 0) == 0);
        QVERIFY(rows[1].rfind("1,", 0) == 0);
        QVERIFY(rows[4].rfind("all,", 0) == 0);
        // Flags that have no meaning there are refused.
        const auto bad = run({"train", "--experiment", walkForward_, "--no-record", "--save-model",
                              dir_ + "/m.safetensors"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("--save-model: not with validation.mode walkforward"),
                 qPrintable(bad.err));
    }

    void fewSignalsGiveNoAccuracy() {
        const QStringList args = {
            "walkforward", "--experiment", walkForward_, "--no-record", "--epochs",
            "1",           "--folds",      "6"};
        const auto j = run(args + QStringList{"--json"});
        QVERIFY2(j.code == 0, qPrintable(j.err));
        const std::vector<json> v = jsonLines(j.out);
        const auto t = run(args);
        QVERIFY2(t.code == 0, qPrintable(t.err));
        int few = 0;
        // An accuracy cell against the signals it is a share of: "n/a" from 1 to 19.
        auto check = [&](const QString& cell, size_t count) {
            if (count >= 1 && count < 20) ++few;
            if (count < 20)
                QCOMPARE(cell, QStringLiteral("n/a"));
            else
                QVERIFY(cell != QStringLiteral("n/a"));
        };
        for (size_t k = 0; k + 1 < v.size(); ++k) {
            const QString name =
                QStringLiteral("%1/%2").arg(v[k]["fold"].get<int>()).arg(v[k]["folds"].get<int>());
            // The table's row of the fold: ... val acc, val miss, test loss, test acc, test
            // miss, signals.
            QStringList row;
            for (const QString& l : t.out.split('\n'))
                if (l.startsWith(name + " ")) row = l.split(' ', Qt::SkipEmptyParts);
            QVERIFY2(row.size() > 6, qPrintable(t.out));
            const size_t testSignals = v[k]["test"]["signals"].get<size_t>();
            QCOMPARE(row.last().toULongLong(), qulonglong(testSignals));
            check(row[row.size() - 3], testSignals);
            check(row[row.size() - 6], v[k]["validation"]["signals"].get<size_t>());
        }
        QVERIFY2(few > 0, "no fold with 1 to 19 signals: the case is not tested");
        // The HTML report of the same output (issue 42 §1), with fold 1's test part and the
        // stitched part given 5 and 7 signals: their accuracy cells read n/a as well.
        std::vector<json> altered(v);
        altered.front()["test"]["signals"] = 5;
        altered.back()["stitched"]["outOfSample"]["signals"] = 7;
        const QString out = dir_ + "/few.json", page = dir_ + "/few.html";
        {
            std::ofstream f(out.toStdString());
            for (const json& line : altered) f << line.dump() << "\n";
        }
        const auto r = run({"report", "--walkforward", out, "--html", page});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        std::ifstream in(page.toStdString());
        const std::string html((std::istreambuf_iterator<char>(in)), {});
        // <tr><td>k/N</td><td>period</td> epochs, best, loss, accuracy, missed, signals.
        static const std::regex foldRow(
            R"(<tr><td>(\d+)/\d+</td><td>[^<]*</td><td class="n">[^<]*</td><td class="n">[^<]*</td>)"
            R"(<td class="n">[^<]*</td><td class="n">([^<]*)</td><td class="n">[^<]*</td>)"
            R"(<td class="n">(\d+)</td></tr>)");
        int rows = 0;
        for (auto it = std::sregex_iterator(html.begin(), html.end(), foldRow);
             it != std::sregex_iterator(); ++it, ++rows) {
            const size_t k = std::stoul((*it)[1].str()) - 1;
            QCOMPARE(std::stoul((*it)[3].str()), altered[k]["test"]["signals"].get<size_t>());
            check(QString::fromStdString((*it)[2].str()), std::stoul((*it)[3].str()));
        }
        QCOMPARE(rows, int(v.size()) - 1);
        QVERIFY2(html.find(", accuracy n/a") != std::string::npos, html.substr(0, 2000).c_str());
    }

    void slotsRunTheFoldsInParallelWithTheSameFigures() {
        const auto serial = run({"walkforward", "--experiment", walkForward_, "--json", "--runs-db",
                                 dir_ + "/serial-slots.sqlite"});
        QVERIFY2(serial.code == 0, qPrintable(serial.err));
        const QString parallelDb = dir_ + "/parallel-slots.sqlite";
        const auto parallel = run({"walkforward", "--experiment", walkForward_, "--json", "--slots",
                                   "cpu=3", "--runs-db", parallelDb});
        QVERIFY2(parallel.code == 0, qPrintable(parallel.err));
        std::vector<json> a = jsonLines(serial.out), b = jsonLines(parallel.out);
        QCOMPARE(b.size(), size_t(4));
        QCOMPARE(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i) {
            a[i].erase("runId");  // the store numbers runs in the order they start
            QVERIFY(i == 3 || b[i]["runId"].get<int64_t>() > 0);
            b[i].erase("runId");
            QVERIFY2(a[i] == b[i], (a[i].dump() + "\n" + b[i].dump()).c_str());
        }
        QVERIFY(b[3]["stitched"]["trading"]["strategy"]["trades"].get<double>() > 0);
        // Each fold recorded by its process as the serial path records it.
        const auto list = run({"runs", "list", "--runs-db", parallelDb});
        for (const char* name : {"wf fold 1/3", "wf fold 2/3", "wf fold 3/3"})
            QVERIFY2(list.out.contains(name), qPrintable(list.out));
        QCOMPARE(list.out.count("completed"), 3);
        const auto text = run({"walkforward", "--experiment", walkForward_, "--no-record",
                               "--slots", "cpu=2", "--epochs", "1"});
        QVERIFY2(text.code == 0, qPrintable(text.err));
        QVERIFY2(text.out.contains("out of sample, stitched from 3 folds"), qPrintable(text.out));
        const auto badSlots =
            run({"walkforward", "--experiment", walkForward_, "--no-record", "--slots", "gpu=2"});
        QCOMPARE(badSlots.code, 2);
        QVERIFY2(badSlots.err.contains("--slots"), qPrintable(badSlots.err));
        const auto badFold = run({"walkforward", "--experiment", walkForward_, "--no-record",
                                  "--fold", "9", "--fold-out", dir_ + "/f.json"});
        QCOMPARE(badFold.code, 2);
        QVERIFY2(badFold.err.contains("--fold: 9 is beyond the plan's 3 folds"),
                 qPrintable(badFold.err));
    }

    // Anchored with a fold count and a test length: --train-length is the first fold's
    // training part (docs/settings.md), later folds keep its start.
    void anchoredTrainLengthIsTheFirstFoldsPart() {
        const auto r = run({"walkforward", "--experiment", experiment_, "--no-record", "--json",
                            "--epochs", "1", "--folds", "3", "--test-length", "100",
                            "--train-length", "200", "--embargo", "2"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::vector<json> v = jsonLines(r.out);
        QCOMPARE(v.size(), size_t(4));
        const size_t first = v[0]["train"]["firstBar"].get<size_t>();
        QCOMPARE(v[0]["validation"]["lastBar"].get<size_t>() - first + 1, size_t(200));
        QCOMPARE(v[0]["validation"]["lastBar"].get<size_t>() + 4,
                 v[0]["test"]["firstBar"].get<size_t>());
        for (size_t k = 1; k < 3; ++k) QCOMPARE(v[k]["train"]["firstBar"].get<size_t>(), first);
        // One that does not fit before the first test window is refused, naming the setting.
        const auto bad = run({"walkforward", "--experiment", experiment_, "--no-record", "--folds",
                              "3", "--test-length", "100", "--train-length", "600"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("validation.trainLength: the first fold's training part holds"),
                 qPrintable(bad.err));
    }

    void badSettingsNameTheSetting() {
        auto r = run({"walkforward", "--experiment", experiment_, "--no-record", "--folds", "40",
                      "--test-length", "100"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("validation.folds: 40 test windows of 100 bars do not fit"),
                 qPrintable(r.err));
        r = run({"walkforward", "--experiment", experiment_, "--scheme", "expanding"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--scheme") && r.err.contains("expanding"), qPrintable(r.err));
        const QString synthetic = write(
            "synthetic.json",
            R"({"formatVersion":2,"data":{"source":"synthetic","samples":64,"units":2,"window":3},
                "model":{"layers":[{"type":"dense","neurons":3}]},"training":{"epochs":1}})");
        r = run({"walkforward", "--experiment", synthetic, "--no-record"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("walk-forward needs a price file"), qPrintable(r.err));
        r = run({"train", "--experiment", experiment_, "--no-record", "--validation", "walkforward",
                 "--es-share", "0.9", "--scheme", "rolling", "--train-length", "5", "--folds", "3",
                 "--test-length", "150"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("validation.earlyStoppingShare: fold 1/3's training part (5 "
                                "samples)"),
                 qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(CliWalkForwardTest)
#include "tst_cli_walkforward.moc"
