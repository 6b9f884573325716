// nnwb-cli walkforward --scheme cpcv (issue 45 §3) on a short cut of the bundled EURUSD H1 file
// with a tiny network: 6 groups and 2 test groups give 15 split records, 5 path records and the
// {"cpcv": ...} summary; no split trains within the purge and embargo of a test group; every
// path covers every sample once, each group from a split that tests it (path 1: the first
// occurrences); the summary's Sharpe distribution agrees with the paths'; --slots gives the same
// records as the serial run; the text table and the verdict line; bad settings exit 2 naming
// the key.
#include <QtTest>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"

using json = nlohmann::json;

class CliCpcvTest : public QObject, nnwb::test::CliFixture {
    Q_OBJECT
    QString experiment_;

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        writeCut("cut.csv", 700);
        experiment_ = write("cv.json", nnwb::test::tinyMt5Experiment("cv", 2).dump(2));
    }

    void sixGroupsTwoTestGroupsGiveFifteenSplitsAndFivePaths() {
        const auto r =
            run({"walkforward", "--experiment", experiment_, "--scheme", "cpcv", "--groups", "6",
                 "--test-groups", "2", "--embargo", "2", "--json", "--no-record"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::vector<json> v = jsonLines(r.out);
        QCOMPARE(v.size(), size_t(15 + 5 + 1));
        for (size_t s = 0; s < 15; ++s) {
            QCOMPARE(v[s]["split"].get<size_t>(), s + 1);
            QCOMPARE(v[s]["status"].get<std::string>(), std::string("completed"));
            QCOMPARE(v[s]["testGroups"].size(), size_t(2));
            // No training or validation sample within the purge (1) before or the purge and
            // embargo (1 + 2) after a test group.
            for (const json& t : v[s]["test"])
                for (const char* part : {"train", "validation"})
                    for (const json& b : v[s][part]) {
                        const size_t a = t["firstBar"], z = t["lastBar"];
                        const size_t f = b["firstBar"], l = b["lastBar"];
                        QVERIFY2(l + 1 < a || f > z + 3,
                                 qPrintable(QString::fromStdString(v[s].dump())));
                    }
        }
        // Every path: all samples once (its out-of-sample count is the file's samples).
        const size_t samples = v[0]["test"][0]["firstBar"];  // group 1 starts at the first sample
        size_t total = 0;
        for (const json& t : v[14]["test"]) total = t["lastBar"].get<size_t>();
        for (size_t p = 0; p < 5; ++p) {
            const json& path = v[15 + p];
            QCOMPARE(path["path"].get<size_t>(), p + 1);
            QCOMPARE(path["splits"].size(), size_t(6));
            QCOMPARE(path["outOfSample"]["samples"].get<size_t>(), total - samples + 1);
            QVERIFY(path["trading"]["trades"].get<double>() > 0);
            // Group g of path p comes from a split that tests g.
            for (size_t g = 0; g < 6; ++g) {
                const json& split = v[path["splits"][g].get<size_t>() - 1];
                bool tests = false;
                for (const json& t : split["testGroups"]) tests |= t.get<size_t>() == g + 1;
                QVERIFY(tests);
            }
        }
        // Path 1 takes every group's first test occurrence.
        QCOMPARE(v[15]["splits"], json({1, 1, 2, 3, 4, 5}));
        const json& sum = v[20]["cpcv"];
        QCOMPARE(sum["splits"].get<size_t>(), size_t(15));
        QCOMPARE(sum["paths"].get<size_t>(), size_t(5));
        double mean = 0;
        for (size_t p = 0; p < 5; ++p) mean += v[15 + p]["trading"]["sharpe"].get<double>() / 5;
        const json& sharpe = sum["distribution"]["sharpe"];
        QCOMPARE(sharpe["count"].get<size_t>(), size_t(5));
        QVERIFY(std::fabs(sharpe["mean"].get<double>() - mean) < 1e-12);
        QVERIFY(sharpe["min"].get<double>() <= sharpe["q10"].get<double>());
        QVERIFY(sharpe["q10"].get<double>() <= sharpe["median"].get<double>());
        // The verdict line of app/engine/CpcvFigures.h (its cases: tst_cpcv_figures).
        QVERIFY2(sum["verdict"].is_string() &&
                     sum["verdict"].get<std::string>().find(" paths") != std::string::npos,
                 sum.dump().c_str());
    }

    void slotsGiveTheSameRecords() {
        const QStringList args{"walkforward", "--experiment", experiment_,  "--scheme",
                               "cpcv",        "--groups",     "4",          "--test-groups",
                               "2",           "--json",       "--no-record"};
        const auto serial = run(args);
        QVERIFY2(serial.code == 0, qPrintable(serial.err));
        const auto parallel = run(QStringList(args) << "--slots"
                                                    << "cpu=2");
        QVERIFY2(parallel.code == 0, qPrintable(parallel.err));
        const std::vector<json> a = jsonLines(serial.out), b = jsonLines(parallel.out);
        QCOMPARE(a.size(), size_t(6 + 3 + 1));
        QCOMPARE(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i)
            QVERIFY2(a[i] == b[i], (a[i].dump() + "\n" + b[i].dump()).c_str());
    }

    // report --walkforward reads the cpcv JSON lines (before: exit 2, "neither a fold record"):
    // the page has the verdict, a row per path with its splits, the Sharpe histogram and the
    // split table.
    void reportShowsThePathsAndTheirHistogram() {
        const auto r = run({"walkforward", "--experiment", experiment_, "--scheme", "cpcv",
                            "--groups", "4", "--test-groups", "2", "--json", "--no-record"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString file = dir_ + "/cpcv.jsonl", page = dir_ + "/cpcv.html";
        std::ofstream(file.toStdString()) << r.out.toStdString();
        const auto report = run({"report", "--walkforward", file, "--html", page});
        QVERIFY2(report.code == 0, qPrintable(report.err));
        std::ifstream in(page.toStdString());
        const std::string html((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        const std::vector<json> v = jsonLines(r.out);
        const json& sum = v.back()["cpcv"];
        QVERIFY(html.find(sum["verdict"].get<std::string>()) != std::string::npos);
        QVERIFY(html.find("4 groups, 2 test groups: 6 splits (6 run), 3 paths") !=
                std::string::npos);
        for (size_t p = 0; p < 3; ++p) {
            std::string splits;
            for (const json& s : v[6 + p]["splits"])
                splits += (splits.empty() ? "" : ",") + std::to_string(s.get<int>());
            const std::string row =
                "<tr><td class=\"n\">" + std::to_string(p + 1) + "</td><td>" + splits + "</td>";
            QVERIFY2(html.find(row) != std::string::npos, row.c_str());
        }
        QVERIFY(html.find("<h2>Sharpe ratio over the paths</h2><svg") != std::string::npos);
        QVERIFY(html.find("<td class=\"n\">6/6</td>") != std::string::npos);
        std::ofstream(file.toStdString()) << r.out.toStdString() << "{\"other\": 1}\n";
        const auto bad = run({"report", "--walkforward", file, "--html", page});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("cpcv.jsonl:11: neither a split record"), qPrintable(bad.err));
    }

    void textTableAndBadSettings() {
        const auto text =
            run({"walkforward", "--experiment", experiment_, "--scheme", "cpcv", "--groups", "3",
                 "--test-groups", "1", "--no-record", "--epochs", "1"});
        QVERIFY2(text.code == 0, qPrintable(text.err));
        QVERIFY2(text.out.contains("3 splits, 1 paths"), qPrintable(text.out));
        QVERIFY2(text.out.contains("Sharpe (per bar)"), qPrintable(text.out));
        QVERIFY2(text.out.contains("money (Sharpe per bar") || text.out.contains("No path traded"),
                 qPrintable(text.out));  // the verdict line
        auto bad = run({"walkforward", "--experiment", experiment_, "--scheme", "cpcv", "--groups",
                        "4", "--test-groups", "4", "--no-record"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("validation.testGroups: 4 test groups of 4 groups"),
                 qPrintable(bad.err));
        bad = run({"walkforward", "--experiment", experiment_, "--scheme", "cpcv", "--groups", "20",
                   "--test-groups", "10", "--no-record"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(
            bad.err.contains("validation.groups: 20 groups with 10 test groups make 184756 splits"),
            qPrintable(bad.err));
        bad = run({"walkforward", "--experiment", experiment_, "--scheme", "cpcv", "--groups", "1",
                   "--no-record"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("validation.groups: 1 is outside 2..100"), qPrintable(bad.err));
    }
};

QTEST_GUILESS_MAIN(CliCpcvTest)
#include "tst_cli_cpcv.moc"
