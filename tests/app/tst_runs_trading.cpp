// Runs store their trading figures (issue 30, app/engine/RunTrading.h): a run on a price file
// stores the validation part traded with the best epoch's weights under the experiment's
// trading section; they equal `nnwb-cli predict --trading` of the run's best model on the
// validation range; `runs show` and `runs list` show them; a synthetic run stores none; and
// the evaluation at the end of a run leaves training bit-identical (a continued run equals
// one trained in one go).
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/engine/RunEngine.h"
#include "app/runs/RunReturns.h"
#include "app/runs/RunStore.h"
#include "app/runs/StoredTrading.h"
#include "common/BarExperiments.h"
#include "common/CliRun.h"
#include "common/DataCut.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"

using namespace nnwb;
using nlohmann::json;
using nnwb::test::runCli;

class TstRunsTrading : public QObject {
    Q_OBJECT
    std::string dir_, data_;

    json experiment(int epochs) const {
        json e = nnwb::test::balancedConvExperiment("runs trading", data_, epochs);
        e["trading"]["commission"] = 1;
        e["trading"]["randomDraws"] = 25;
        return e;
    }
    // Trains `exp` into the store `db` and reads its run (1) back with runs show --json.
    void trainAndShow(const QString& exp, const QString& db, json& run) {
        auto r = runCli({"train", "--experiment", exp, "--runs-db", db}, 300000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runCli({"runs", "show", "1", "--json", "--runs-db", db});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        run = json::parse(r.out.toStdString());
    }
    QString write(const std::string& name, const json& j) const {
        const std::string path = dir_ + "/" + name;
        std::ofstream(path) << j.dump(2);
        return QString::fromStdString(path);
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = nnwb::test::tempDir();
        // The bundled file cut to its header and 900 bars.
        data_ = nnwb::test::writeDataCut(dir_ + "/EURUSD_H1.csv", 900);
    }

    void storedFiguresEqualPredictOnTheValidationPart() {
        const QString db = QString::fromStdString(dir_ + "/a/runs.sqlite");
        const QString exp = write("e.json", experiment(3));
        json run;
        trainAndShow(exp, db, run);
        if (QTest::currentTestFailed()) return;
        const json& t = run.at("trading");
        QVERIFY2(t.is_object() && !t.contains("error"), t.dump().c_str());
        QCOMPARE(t.at("part").get<std::string>(), std::string("validation"));
        QCOMPARE(t.at("epoch").get<int>(), run.at("bestEpoch").get<int>());
        QCOMPARE(t.at("spreadFrom").get<std::string>(), std::string("given"));
        QCOMPARE(t.at("settings").at("spreadPoints").get<double>(), 7.0);
        QCOMPARE(t.at("range").at("bars").get<int>(), run.at("validationSamples").get<int>());
        QCOMPARE(t.at("random").at("draws").get<int>(), 25);
        QVERIFY(t.at("strategy").at("trades").get<double>() > 0);
        // Epoch 1 is the best of 3 here: the figures are not those of the last weights.
        QCOMPARE(t.at("epoch").get<int>(), 1);

        // The run's best model on the validation range, under the same trading settings.
        std::string best;
        for (const json& b : run.at("bundles"))
            if (b.at("kind") == "best") best = b.at("path").get<std::string>();
        QVERIFY(!best.empty());
        std::ifstream f(best, std::ios::binary);
        uint64_t n = 0;
        f.read(reinterpret_cast<char*>(&n), 8);
        std::string header(n, '\0');
        f.read(header.data(), static_cast<std::streamsize>(n));
        const json training =
            json::parse(json::parse(header)["__metadata__"]["training"].get<std::string>());
        auto r =
            runCli({"predict", "--model", QString::fromStdString(best), "--data",
                    QString::fromStdString(data_), "--from",
                    QString::fromStdString(training["validationFirst"].get<std::string>()), "--to",
                    QString::fromStdString(training["validationLast"].get<std::string>()),
                    "--trading", "--experiment", exp, "--json"},
                   300000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json p = json::parse(r.out.toStdString()).at("trading");
        QCOMPARE(p.at("range"), t.at("range"));
        QCOMPARE(p.at("strategy"), t.at("strategy"));
        QCOMPARE(p.at("buyAndHold"), t.at("buyAndHold"));
        QCOMPARE(p.at("random"), t.at("random"));

        r = runCli({"runs", "show", "1", "--runs-db", db});
        QVERIFY2(r.out.contains("trading       validation part, epoch") &&
                     r.out.contains("  buy & hold") && r.out.contains("profit factor"),
                 qPrintable(r.out));
        // The spread used, with its value (issue 40).
        QVERIFY2(r.out.contains("spread from the setting: 7 points (docs/trading.md)"),
                 qPrintable(r.out));
        r = runCli({"runs", "list", "--runs-db", db});
        QVERIFY2(r.out.contains("net pts") && r.out.contains("max DD"), qPrintable(r.out));
        char net[32];
        std::snprintf(net, sizeof net, "%.1f", t.at("strategy").at("netPoints").get<double>());
        QVERIFY2(r.out.contains(net), qPrintable(r.out + " lacks " + net));
    }

    // Issue 42 §5: an unrecorded comparison shows the trading figures a recorded run stores
    // (the engine computed them only for a recorded run: the columns read "-").
    void anUnrecordedComparisonShowsTheTradingFigures() {
        const QString db = QString::fromStdString(dir_ + "/unrecorded/runs.sqlite");
        const QString exp = write("unrecorded.json", experiment(2));
        json run;
        trainAndShow(exp, db, run);
        if (QTest::currentTestFailed()) return;
        const json& t = run.at("trading");
        char net[32];
        std::snprintf(net, sizeof net, "%.1f", t.at("strategy").at("netPoints").get<double>());
        auto r = runCli({"compare", exp, exp, "--no-record"}, 300000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString summary = r.out.mid(r.out.indexOf("summary"));
        QVERIFY2(summary.count(QString(net)) >= 2, qPrintable(summary + " lacks " + net));
    }

    void storedFiguresThatDoNotExistReadNa() {
        // A model that never signalled: its win rate, profit factor and Sharpe were stored as
        // null; a null profit factor is infinite only where a trade won (issue 40).
        const json none = {{"strategy",
                            {{"trades", 0},
                             {"winRate", nullptr},
                             {"profitFactor", nullptr},
                             {"sharpeAnnual", nullptr},
                             {"netPoints", 0}}}};
        QVERIFY(!storedTradingFigure(none, "winRate"));
        QVERIFY(!storedTradingFigure(none, "profitFactor"));
        QCOMPARE(storedTradingText(storedTradingFigure(none, "profitFactor"), 2),
                 std::string("n/a"));
        QCOMPARE(storedTradingText(storedTradingFigure(none, "netPoints"), 1), std::string("0.0"));
        const json won = {
            {"strategy", {{"trades", 2}, {"winRate", 50}, {"profitFactor", nullptr}}}};
        QCOMPARE(storedTradingText(storedTradingFigure(won, "profitFactor"), 2),
                 std::string("inf"));
        QCOMPARE(storedSpreadText(json{{"spreadFrom", "given"}, {"spreadPoints", 2.5}}),
                 std::string("spread from the setting: 2.5 points"));
        QCOMPARE(storedSpreadText(json{{"spreadFrom", "given"}, {"spreadPoints", 1}}),
                 std::string("spread from the setting: 1 point"));
        QCOMPARE(storedSpreadText(json{{"spreadFrom", "file"}}),
                 std::string("spread from the file"));
    }

    void syntheticRunStoresNone() {
        const QString db = QString::fromStdString(dir_ + "/b/runs.sqlite");
        const QString exp = write(
            "s.json",
            {{"formatVersion", 2},
             {"name", "synthetic"},
             {"data", {{"source", "synthetic"}, {"samples", 64}, {"units", 2}, {"window", 3}}},
             {"model",
              {{"layers",
                {{{"type", "dense"}, {"neurons", 4}}, {{"type", "dense"}, {"neurons", 3}}}}}},
             {"training", {{"epochs", 1}, {"batchSize", 8}}}});
        auto r = runCli({"train", "--experiment", exp, "--runs-db", db});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runCli({"runs", "show", "1", "--json", "--runs-db", db});
        QVERIFY(json::parse(r.out.toStdString()).at("trading").is_null());
    }

    void evaluationLeavesTrainingBitIdentical() {
        // Two epochs recorded (the trading evaluation swaps the best epoch's weights in and
        // the latest back), then a third continued, equal a run of three epochs in one go.
        const Experiment e = Experiment::fromJson(experiment(3), dir_);
        std::vector<EpochReport> continued, oneGo;
        RunEventHandlers a, b;
        a.onEpoch = [&](const EpochReport& r) { continued.push_back(r); };
        b.onEpoch = [&](const EpochReport& r) { oneGo.push_back(r); };
        RecordingOptions rec;
        rec.dbPath = dir_ + "/c/runs.sqlite";
        RunEngine first(e);
        QVERIFY(first.train(2, StartMode::Restart, rec, a).end == RunEnd::Completed);
        QVERIFY(first.train(1, StartMode::ContinueCurrent, rec, a).end == RunEnd::Completed);
        RunEngine second(e);
        QVERIFY(second.train(3, StartMode::Restart, RecordingOptions::none(), b).end ==
                RunEnd::Completed);
        QCOMPARE(continued.size(), size_t(3));
        QCOMPARE(oneGo.size(), size_t(3));
        for (size_t i = 0; i < 3; ++i) {
            QVERIFY(continued[i].train.loss == oneGo[i].train.loss);  // bit-equal
            QVERIFY(continued[i].validation.loss == oneGo[i].validation.loss);
        }
        RunStore store(rec.dbPath);
        const auto runs = store.list();
        QCOMPARE(runs.size(), size_t(2));
        for (const StoredRun& r : runs) QVERIFY2(r.trading.is_object(), r.trading.dump().c_str());
        // The first call's best epoch was not its last: the swap really happened.
        const auto firstRun = store.get(runs.back().id);
        QCOMPARE(firstRun->trading.at("epoch").get<int>(), 1);
        QCOMPARE(firstRun->bestEpoch, std::optional<int>(1));
        // The per-bar returns go to the store (run_returns), not into the engine's figures
        // (which comparisons keep in their files).
        QVERIFY2(first.trading().is_object() && !first.trading().contains("returnSeries"),
                 first.trading().dump().c_str());
        const auto series = readReturnSeries(store, {runs.front().id});
        QCOMPARE(double(series.at(runs.front().id).pct.size()),
                 runs.front().trading.at("strategy").at("returns").get<double>());
    }
};

QTEST_GUILESS_MAIN(TstRunsTrading)
#include "tst_runs_trading.moc"
