// CPCV trials in sweeps (issue 45 §4): `train --trial` on a cpcv experiment runs every split
// ("fold" lines) and its "result" line holds the paths' figures (trading part cpcvPaths: the
// means as strategy, pathStatistics, the per-bar mean of the paths' returns; before: the trial
// failed with "validation.scheme: cpcv ..."); a sweep whose objective says "paths": "q10" stores
// each trial's lower decile of its paths' Sharpe ratios as its value and `sweep show` reports PBO
// from the trials' mean-path returns; "paths" is refused (naming objective.paths) for a holdout
// base experiment or an unknown statistic. On a short cut of the bundled EURUSD H1 file, tiny
// network, 4 groups and 2 test groups (6 splits, 3 paths).
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "model/sweep/SweepSpec.h"

using json = nlohmann::json;

class CpcvSweepTest : public QObject, nnwb::test::CliFixture {
    Q_OBJECT
    QString cpcv_;

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        writeCut("cut.csv", 700);
        json e = nnwb::test::tinyMt5Experiment("cpcv", 2);
        e["trading"] = {{"threshold", 0.0}};
        e["validation"] = {
            {"mode", "walkforward"}, {"scheme", "cpcv"}, {"groups", 4}, {"testGroups", 2}};
        cpcv_ = write("cpcv.json", e.dump(2));
        e.erase("validation");
        write("holdout.json", e.dump(2));
    }

    void trialReportsThePaths() {
        const auto t = run({"train", "--experiment", cpcv_, "--trial"});
        QVERIFY2(t.code == 0, qPrintable(t.out + t.err));
        const std::vector<json> v = parsedLines(t.out);
        int splits = 0;
        const json* result = nullptr;
        for (const json& j : v) {
            if (j.value("event", "") == "fold") ++splits;
            if (j.value("event", "") == "result") result = &j;
        }
        QCOMPARE(splits, 6);
        QVERIFY(result);
        const json& tr = (*result)["trading"];
        QCOMPARE(tr["part"].get<std::string>(), std::string("cpcvPaths"));
        QCOMPARE(tr["paths"].get<int>(), 3);
        for (const char* s : {"mean", "median", "q10", "min", "max"})
            QVERIFY2(tr["pathStatistics"][s].contains("sharpe"), tr.dump().c_str());
        QCOMPARE(tr["strategy"]["sharpe"], tr["pathStatistics"]["mean"]["sharpe"]);
        const double lo = tr["pathStatistics"]["min"]["sharpe"],
                     hi = tr["pathStatistics"]["max"]["sharpe"];
        QVERIFY(lo <= tr["pathStatistics"]["q10"]["sharpe"].get<double>() &&
                tr["pathStatistics"]["q10"]["sharpe"].get<double>() <= hi);
        // The mean path's returns: one per bar of the paths' range but the first.
        QCOMPARE(tr["returnSeries"]["pct"].size(), tr["range"]["bars"].get<size_t>() - 1);
        QCOMPARE(v.back()["status"].get<std::string>(), std::string("completed"));
    }

    void sweepOptimisesTheLowerDecileOfThePaths() {
        const QString db = dir_ + "/q10.sqlite";
        const QString spec = write("q10.json", R"({"name":"q10","experiment":"cpcv.json",
            "method":"grid","epochs":2,"objective":{"metric":"trading.sharpe","paths":"q10"},
            "parameters":[{"path":"training.batchSize","values":[16,32]}]})");
        const auto r = run({"sweep", "run", spec, "--runs-db", db, "--slots", "cpu=2"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const auto shown = run({"sweep", "show", "1", "--json", "--runs-db", db});
        QVERIFY2(shown.code == 0, qPrintable(shown.err));
        const json s = json::parse(shown.out.toStdString());
        QCOMPARE(s["counts"]["complete"].get<int>(), 2);
        nnwb::RunStore store(db.toStdString(), false);
        std::map<int64_t, nnwb::StoredRun> runs;
        for (const auto& x : store.list()) runs[x.id] = x;
        for (const json& t : s["trials"]) {
            const nnwb::StoredRun& run = runs.at(t["run"].get<int64_t>());
            QCOMPARE(run.trading["part"].get<std::string>(), std::string("cpcvPaths"));
            QCOMPARE(t["value"].get<double>(),
                     run.trading["pathStatistics"]["q10"]["sharpe"].get<double>());
        }
        QVERIFY2(s["overfitting"].is_object() && s["overfitting"].contains("pbo"),
                 s["overfitting"].dump().c_str());
        QCOMPARE(s["overfitting"]["trials"].get<int>(), 2);
    }

    void pathsKeyIsCheckedAndPicksTheStatistic() {
        auto load = [&](const std::string& experiment, const std::string& paths) {
            return nnwb::sweep::SweepSpec::load(
                write("spec.json", R"({"experiment":")" + experiment +
                                       R"(","runCap":2,"objective":{"metric":"trading.sharpe",
                "paths":")" + paths + R"("},"parameters":[{"path":"training.batchSize",
                "values":[16,32]}]})")
                    .toStdString());
        };
        const nnwb::sweep::SweepSpec spec = load("cpcv.json", "median");
        QCOMPARE(spec.objective.paths, std::string("median"));
        const json result = {
            {"trading",
             {{"strategy", {{"sharpe", 0.2}}},
              {"pathStatistics", {{"mean", {{"sharpe", 0.2}}}, {"median", {{"sharpe", -0.1}}}}}}}};
        QCOMPARE(spec.objective.resultValue(result).value(), -0.1);
        nnwb::sweep::Objective mean = spec.objective;
        mean.paths.clear();
        QCOMPARE(mean.resultValue(result).value(), 0.2);
        for (const auto& [experiment, paths, message] :
             {std::tuple{"holdout.json", "q10", "objective.paths: a statistic over CPCV paths"},
              std::tuple{"cpcv.json", "p5", "objective.paths: 'p5' is not mean, median"}}) {
            try {
                load(experiment, paths);
                QFAIL("no SpecError");
            } catch (const nnwb::sweep::SpecError& e) {
                QVERIFY2(std::string(e.what()).find(message) != std::string::npos, e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(CpcvSweepTest)
#include "tst_cpcv_sweep.moc"
