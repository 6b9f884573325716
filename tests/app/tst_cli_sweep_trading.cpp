// Sweeps on trading and walk-forward figures from the command line (issue 30): `train --trial`
// prints a "result" line with the validation part's trading figures; on a walk-forward
// experiment it runs every fold ("fold" lines, no epoch lines) and its result carries the
// stitched out-of-sample figures, equal to `nnwb-cli walkforward`'s for the same seeds; a sweep
// with objective trading.sharpe stores each trial's value from its result and its run's trading
// figures, and `sweep show` reports the deflated Sharpe ratio of the trials; a sweep on a
// walk-forward experiment optimises oos.loss; pruning on an end-of-trial objective is a spec
// error naming earlyTerminate; `sweep show` reports the probability of backtest overfitting
// computed from the matrix `sweep export --returns` writes (issue 45). On a short cut of the
// bundled EURUSD H1 file, tiny network.
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
#include "model/overfitting/Cscv.h"
#include "model/trading/DeflatedSharpe.h"

using json = nlohmann::json;

class CliSweepTradingTest : public QObject, nnwb::test::CliFixture {
    Q_OBJECT
    QString holdout_, walkForward_;

    static const json* event(const std::vector<json>& v, const std::string& name) {
        for (const json& j : v)
            if (j.value("event", "") == name) return &j;
        return nullptr;
    }
    json show(const QString& db, int id) {
        const auto r = run({"sweep", "show", QString::number(id), "--json", "--runs-db", db});
        if (r.code != 0) qWarning("%s", qPrintable(r.err));
        return json::parse(r.out.toStdString(), nullptr, false);
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        // The first 700 bars of the bundled file.
        writeCut("cut.csv", 700);
        json e = nnwb::test::tinyMt5Experiment("wf", 2);
        e["trading"] = {{"threshold", 0.0}};
        holdout_ = write("holdout.json", e.dump(2));
        e["validation"] = {{"mode", "walkforward"}, {"folds", 3}, {"embargo", 2}};
        walkForward_ = write("walkforward.json", e.dump(2));
    }

    void trialPrintsTheTradingResult() {
        json e = json::parse(std::ifstream(holdout_.toStdString()));
        e["training"]["epochs"] = 1;  // no continue line to wait for
        const QString one = write("one-epoch.json", e.dump());
        const auto r = run({"train", "--experiment", one, "--trial"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const std::vector<json> v = parsedLines(r.out);
        QCOMPARE(v.back()["event"].get<std::string>(), std::string("end"));
        const json* result = event(v, "result");
        QVERIFY2(result, qPrintable(r.out));
        QCOMPARE(v[v.size() - 2]["event"].get<std::string>(), std::string("result"));
        const json& s = (*result)["trading"]["strategy"];
        QVERIFY(s["sharpe"].is_number());
        QCOMPARE((*result)["trading"]["part"].get<std::string>(), std::string("validation"));
        // The returns are the range's bar steps.
        const json& range = (*result)["trading"]["range"];
        QCOMPARE(s["returns"].get<double>(), double(range["bars"].get<size_t>() - 1));
        QVERIFY(s["kurtosis"].get<double>() >= 1.0);  // kurtosis >= 1 + skewness² always
        QVERIFY(s["kurtosis"].get<double>() >=
                1.0 + std::pow(s["skewness"].get<double>(), 2) - 1e-9);
    }

    void walkForwardTrialRunsEveryFoldLikeTheSerialPath() {
        const auto t = run({"train", "--experiment", walkForward_, "--trial", "--save-model",
                            dir_ + "/unused.safetensors"});
        QVERIFY2(t.code == 0, qPrintable(t.out + t.err));
        const std::vector<json> v = parsedLines(t.out);
        QVERIFY(event(v, "started"));
        QCOMPARE((*event(v, "started"))["folds"].get<int>(), 3);
        QVERIFY(!event(v, "epoch"));  // folds are not pruned: no epoch lines to answer
        int folds = 0;
        for (const json& j : v)
            if (j.value("event", "") == "fold") {
                ++folds;
                QCOMPARE(j["fold"].get<int>(), folds);
                QCOMPARE(j["status"].get<std::string>(), std::string("completed"));
            }
        QCOMPARE(folds, 3);
        const json* result = event(v, "result");
        QVERIFY(result);
        QCOMPARE((*event(v, "end"))["status"].get<std::string>(), std::string("completed"));
        // The same stitched figures as the serial walk-forward of the same experiment.
        const auto w = run({"walkforward", "--experiment", walkForward_, "--json", "--runs-db",
                            dir_ + "/serial.sqlite"});
        QVERIFY2(w.code == 0, qPrintable(w.err));
        const json stitched = parsedLines(w.out).back()["stitched"];
        const json& oos = (*result)["outOfSample"];
        QCOMPARE(oos["loss"].get<double>(), stitched["outOfSample"]["loss"].get<double>());
        QCOMPARE(oos["samples"].get<size_t>(), stitched["outOfSample"]["samples"].get<size_t>());
        QCOMPARE((*result)["trading"]["strategy"]["netPoints"].get<double>(),
                 stitched["trading"]["strategy"]["netPoints"].get<double>());
        QCOMPARE((*result)["trading"]["part"].get<std::string>(), std::string("outOfSample"));
    }

    void sweepOnTradingSharpeReportsTheDeflatedSharpe() {
        const QString db = dir_ + "/trading.sqlite";
        const QString spec = write("sharpe.json", R"({"name":"sharpe","experiment":"holdout.json",
            "method":"random","seed":2,"runCap":4,"epochs":2,
            "objective":{"metric":"trading.sharpe"},
            "parameters":[{"path":"training.optimizer.learningRate","min":0.0005,"max":0.05,
                           "log":true}]})");
        const auto r = run({"sweep", "run", spec, "--runs-db", db, "--slots", "cpu=2"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("trading.sharpe"), qPrintable(r.out));
        const json s = show(db, 1);
        QCOMPARE(s["objective"]["goal"].get<std::string>(), std::string("max"));
        // A trial whose model never trades has no Sharpe (n/a, issue 40): it fails, saying
        // the objective is not in its result; the others complete.
        const int complete = s["counts"]["complete"].get<int>();
        QVERIFY(complete >= 2);
        // Each trial's value is its run's stored Sharpe per bar.
        nnwb::RunStore store(db.toStdString(), false);
        std::map<int64_t, nnwb::StoredRun> runs;
        for (const auto& x : store.list()) runs[x.id] = x;
        std::vector<double> sharpes;
        double best = -1e300;
        int untraded = 0;
        for (const json& t : s["trials"]) {
            const nnwb::StoredRun& run = runs.at(t["run"].get<int64_t>());
            QVERIFY(run.trading.is_object());
            if (t["state"] == "failed") {
                QCOMPARE(t["error"].get<std::string>(),
                         std::string("the objective trading.sharpe is not in the trial's result"));
                QCOMPARE(run.trading["strategy"]["trades"].get<double>(), 0.0);
                QVERIFY(run.trading["strategy"]["sharpe"].is_null());
                ++untraded;
                continue;
            }
            const double sr = run.trading["strategy"]["sharpe"].get<double>();
            QCOMPARE(t["value"].get<double>(), sr);
            QCOMPARE(t["epochs"].get<int>(), 2);
            QCOMPARE(run.epochsDone, 2);  // the run keeps its curves
            sharpes.push_back(sr);
            best = std::max(best, sr);
        }
        QCOMPARE(complete + untraded, 4);
        // The leaderboard is by the largest Sharpe first.
        QCOMPARE(s["best"]["value"].get<double>(), best);
        const json& d = s["deflatedSharpe"];
        QVERIFY2(d.is_object(), s.dump().c_str());
        QCOMPARE(d["trials"].get<int>(), complete);
        QCOMPARE(d["sharpe"].get<double>(), best);
        QCOMPARE(d["bestTrial"].get<int>(), s["best"]["number"].get<int>());
        const nnwb::DeflatedSharpe expected =
            nnwb::deflatedSharpe(sharpes, d["returns"].get<double>(), d["skewness"].get<double>(),
                                 d["kurtosis"].get<double>());
        QCOMPARE(d["expectedMaxSharpe"].get<double>(), expected.expectedMax);
        QVERIFY(d["expectedMaxSharpe"].get<double>() > 0);
        QVERIFY(d["probability"].is_number());
        QCOMPARE(d["probability"].get<double>(), expected.probability);
        const auto text = run({"sweep", "show", "1", "--runs-db", db});
        QVERIFY2(text.out.contains("deflated Sharpe ratio") && text.out.contains("DSR ") &&
                     text.out.contains(QString("%1 trials traded").arg(complete)),
                 qPrintable(text.out));
    }

    // Uses the sweep of sweepOnTradingSharpeReportsTheDeflatedSharpe.
    void sweepReportsPboFromTheExportedReturns() {
        const QString db = dir_ + "/trading.sqlite";
        const json s = show(db, 1);
        const json& o = s["overfitting"];
        QVERIFY2(o.is_object() && o.contains("pbo"), s.dump().c_str());
        // Every complete trial traded the validation part (pruned ones too; none here).
        const int n = s["counts"]["complete"].get<int>();
        QVERIFY(n >= 2);
        QCOMPARE(o["trials"].get<int>(), n);
        QCOMPARE(o["blocks"].get<int>(), 16);
        QCOMPARE(o["splits"].get<int>(), 12870);  // C(16, 8)
        QVERIFY(o["pbo"].get<double>() >= 0 && o["pbo"].get<double>() <= 1);
        QVERIFY(o["degradation"].contains("slope") && o.contains("probabilityOfLoss"));
        QCOMPARE(o["perSplit"]["logit"].size(), size_t(12870));
        // The exported matrix: a header of trial numbers, a row per bar.
        const QString csv = dir_ + "/returns.csv";
        const auto e = run({"sweep", "export", "1", "--returns", csv, "--runs-db", db});
        QVERIFY2(e.code == 0, qPrintable(e.out + e.err));
        std::ifstream in(csv.toStdString());
        std::string line;
        std::getline(in, line);
        std::string header = "time";
        for (const json& n : o["trialNumbers"]) header += "," + std::to_string(n.get<int>());
        QCOMPARE(line, header);
        std::vector<std::vector<double>> columns(static_cast<size_t>(n));
        size_t rows = 0;
        while (std::getline(in, line)) {
            QStringList cells = QString::fromStdString(line).split(',');
            QCOMPARE(cells.size(), n + 1);
            QCOMPARE(cells[0].size(), 16);  // YYYY-MM-DD HH:MM
            for (int c = 0; c < n; ++c) columns[size_t(c)].push_back(cells[c + 1].toDouble());
            ++rows;
        }
        QCOMPARE(rows, o["bars"].get<size_t>());
        // PBO and its companions are those of that matrix.
        const nnwb::CscvResult r = nnwb::cscv(columns, 16);
        QCOMPARE(o["pbo"].get<double>(), r.pbo);
        QCOMPARE(o["probabilityOfLoss"].get<double>(), r.probabilityOfLoss);
        QCOMPARE(o["degradation"]["slope"].get<double>(), r.slope);
        QCOMPARE(o["dominance"]["area"].get<double>(), r.dominance.area);
        // Each column is its run's equity differences: the stored Sharpe per bar is theirs
        // (every trial traded the same validation range), and the figures row has no series.
        nnwb::RunStore store(db.toStdString(), false);
        std::map<int, int64_t> runOf;
        for (const json& t : s["trials"]) runOf[t["number"].get<int>()] = t["run"].get<int64_t>();
        for (size_t c = 0; c < size_t(n); ++c) {
            const auto run = store.get(runOf.at(o["trialNumbers"][c].get<int>()));
            QVERIFY(run && run->trading.is_object() && !run->trading.contains("returnSeries"));
            QCOMPARE(double(rows), run->trading["strategy"]["returns"].get<double>());
            const json& stored = run->trading["strategy"]["sharpe"];
            const double sr = stored.is_number() ? stored.get<double>() : 0.0;  // null: no trade
            QVERIFY2(std::abs(nnwb::cscvSharpe(columns[c]) - sr) <= 1e-12 * (1 + std::abs(sr)),
                     qPrintable(QString::number(sr)));
        }
        const auto text = run({"sweep", "show", "1", "--runs-db", db});
        QVERIFY2(text.out.contains("probability of backtest overfitting") &&
                     text.out.contains("PBO ") && text.out.contains("12870 splits"),
                 qPrintable(text.out));
        // Bad input: an odd S, an export without a file.
        const auto odd = run({"sweep", "show", "1", "--cscv-blocks", "7", "--runs-db", db});
        QCOMPARE(odd.code, 2);
        QVERIFY2(odd.err.contains("--cscv-blocks"), qPrintable(odd.err));
        const auto none = run({"sweep", "export", "1", "--runs-db", db});
        QCOMPARE(none.code, 2);
        QVERIFY2(none.err.contains("--returns"), qPrintable(none.err));
    }

    void sweepOnWalkForwardOptimisesTheStitchedLoss() {
        const QString db = dir_ + "/oos.sqlite";
        const QString spec = write("oos.json", R"({"name":"oos","experiment":"walkforward.json",
            "method":"grid","epochs":2,"objective":{"metric":"oos.loss"},
            "secondObjective":{"metric":"trading.net"},
            "parameters":[{"path":"training.batchSize","values":[16,32]}]})");
        const auto r = run({"sweep", "run", spec, "--runs-db", db, "--slots", "cpu=2"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const json s = show(db, 1);
        QCOMPARE(s["counts"]["complete"].get<int>(), 2);
        nnwb::RunStore store(db.toStdString(), false);
        std::map<int64_t, nnwb::StoredRun> runs;
        for (const auto& x : store.list()) runs[x.id] = x;
        for (const json& t : s["trials"]) {
            QVERIFY(t["value"].get<double>() > 0);
            const nnwb::StoredRun& run = runs.at(t["run"].get<int64_t>());
            QCOMPARE(run.trading["part"].get<std::string>(), std::string("outOfSample"));
            QCOMPARE(t["secondValue"].get<double>(),
                     run.trading["strategy"]["netPoints"].get<double>());
        }
        QVERIFY(s["deflatedSharpe"].is_object());
        // PBO from the stitched out-of-sample returns.
        QVERIFY2(s["overfitting"].is_object() && s["overfitting"].contains("pbo"),
                 s["overfitting"].dump().c_str());
        QCOMPARE(s["overfitting"]["trials"].get<int>(), 2);
    }

    void pruningAnEndFigureIsASpecError() {
        const QString spec = write("asha.json", R"({"experiment":"holdout.json","runCap":4,
            "objective":{"metric":"trading.net"},"earlyTerminate":{"type":"asha"},
            "parameters":[{"path":"training.batchSize","values":[16,32]}]})");
        const auto r = run({"sweep", "run", spec, "--runs-db", dir_ + "/asha.sqlite"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("asha.json: earlyTerminate: asha prunes after each epoch"),
                 qPrintable(r.err));
        const QString bad = write("bad-metric.json", R"({"experiment":"holdout.json","runCap":4,
            "objective":{"metric":"trading.sharp"},
            "parameters":[{"path":"training.batchSize","values":[16,32]}]})");
        const auto b = run({"sweep", "run", bad, "--runs-db", dir_ + "/asha.sqlite"});
        QCOMPARE(b.code, 2);
        QVERIFY2(b.err.contains("bad-metric.json: objective.metric: 'trading.sharp' is not one of"),
                 qPrintable(b.err));
    }
};

QTEST_GUILESS_MAIN(CliSweepTradingTest)
#include "tst_cli_sweep_trading.moc"
