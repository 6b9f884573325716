// nnwb-cli predict --trading as a user runs it (docs/cli.md, docs/trading.md): a model trained
// for one epoch on the first 600 bars of the bundled EURUSD H1 file, applied to the next 300:
// the table of strategy, buy & hold and random baseline; --json's "trading" figures agree
// with the trades and equity CSVs it writes (net = the sum of the trades' net = the last
// equity value; one equity row per predicted bar); the file's spread column vs a given spread;
// an experiment's trading section; trading flags without --trading and bad values refused.
#include <QtTest>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"

using nlohmann::json;

namespace {

std::vector<std::vector<std::string>> readCsv(const QString& path) {
    std::ifstream f(path.toStdString());
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(f, line)) {
        std::vector<std::string> cells;
        std::stringstream s(line);
        std::string cell;
        while (std::getline(s, cell, ',')) cells.push_back(cell);
        rows.push_back(cells);
    }
    return rows;
}

}  // namespace

class TstCliTrading : public QObject, nnwb::test::CliFixture {
    Q_OBJECT
    QString data_, model_;

    QStringList predict(const QStringList& more) const {
        return QStringList{"predict", "--model", model_, "--data", data_, "--from", "2017-02-10"} +
               more;
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        // The bundled file cut to its header and 900 bars (MetaTrader 5 layout with <SPREAD>).
        data_ = writeCut("EURUSD_H1.csv", 900);
        const json e = nnwb::test::barExperiment(
            "cli trading", {{"file", data_.toStdString()}, {"window", 8}}, nnwb::test::convLayers(),
            {{"epochs", 1}, {"batchSize", 32}, {"seed", 5}});
        const QString experiment = write("e.json", e.dump(2));
        model_ = dir_ + "/m.safetensors";
        const auto r = run({"train", "--experiment", experiment, "--save-model", model_});
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    void tableAndCsvs() {
        const QString trades = dir_ + "/trades.csv", equity = dir_ + "/equity.csv";
        const auto r = run(predict({"--csv", dir_ + "/rows.csv", "--trading", "--trades-csv",
                                    trades, "--equity-csv", equity, "--threshold", "0.3"}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("trading (docs/trading.md):"), qPrintable(r.out));
        QVERIFY2(r.out.contains("strategy") && r.out.contains("buy & hold") &&
                     r.out.contains("random") && r.out.contains("profit factor") &&
                     r.out.contains("spread from the file"),
                 qPrintable(r.out));
        const auto t = readCsv(trades), q = readCsv(equity), rows = readCsv(dir_ + "/rows.csv");
        QVERIFY(!t.empty() && !q.empty());
        QCOMPARE(t[0].front(), std::string("direction"));
        QCOMPARE(q[0].front(), std::string("bar"));
        QCOMPARE(q.size(), rows.size());  // one equity row per predicted bar, plus the header
        QVERIFY2(r.out.contains(QString("wrote %1 (%2 trades)").arg(trades).arg(t.size() - 1)),
                 qPrintable(r.out));
    }

    void jsonFiguresAgreeWithTheCsvs() {
        const QString trades = dir_ + "/t2.csv", equity = dir_ + "/e2.csv";
        const auto r =
            run(predict({"--trading", "--json", "--trades-csv", trades, "--equity-csv", equity,
                         "--exit-after", "6", "--commission", "1.5", "--random-draws", "20"}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json out = json::parse(r.out.toStdString());
        const json& tr = out.at("trading");
        QCOMPARE(tr.at("spreadFrom").get<std::string>(), std::string("file"));
        QCOMPARE(tr.at("point").get<double>(), 1e-5);
        QCOMPARE(tr.at("settings").at("exitAfterBars").get<int>(), 6);
        QCOMPARE(tr.at("random").at("draws").get<int>(), 20);
        const auto t = readCsv(trades), q = readCsv(equity);
        const json& s = tr.at("strategy");
        QCOMPARE(s.at("trades").get<double>(), double(t.size() - 1));
        QVERIFY(t.size() > 1);
        double net = 0;
        for (size_t i = 1; i < t.size(); ++i) {
            QVERIFY(std::stoul(t[i][11]) <= 6);          // bars held
            QCOMPARE(std::stod(t[i][14]) >= 1.5, true);  // cost includes commission
            net += std::stod(t[i][15]);
        }
        QVERIFY(std::fabs(s.at("netPoints").get<double>() - net) < 1e-6);
        QVERIFY(std::fabs(std::stod(q.back()[3]) - net) < 1e-6);
        QCOMPARE(tr.at("random").at("trades").get<double>(), s.at("trades").get<double>());
        QCOMPARE(tr.at("buyAndHold").at("trades").get<double>(), 1.0);
        QCOMPARE(tr.at("range").at("bars").get<size_t>(), out.at("rows").size());
    }

    void zeroCostsAreWarnedAndTheSpreadUsedPrinted() {
        // No spread (the given one, 0), no slippage, no commission: the table says so.
        auto r = run(predict({"--trading", "--spread-source", "given", "--spread", "0"}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("spread from the setting: 0 points"), qPrintable(r.out));
        QVERIFY2(r.out.contains("warning: no trading costs: trading.spreadPoints is 0, and "
                                "slippage and commission are 0"),
                 qPrintable(r.out));
        r = run(predict({"--trading", "--json", "--spread-source", "given", "--spread", "0"}));
        const json j = json::parse(r.out.toStdString()).at("trading");
        QCOMPARE(j.at("spreadPoints").get<double>(), 0.0);
        QVERIFY(j.at("warnings").at(0).get<std::string>().rfind("no trading costs", 0) == 0);
        // A given spread of 7 points: printed, no warning.
        r = run(predict({"--trading", "--spread-source", "given", "--spread", "7"}));
        QVERIFY2(r.out.contains("spread from the setting: 7 points"), qPrintable(r.out));
        QVERIFY2(!r.out.contains("warning:"), qPrintable(r.out));
    }

    void givenSpreadAndExperimentSection() {
        const auto file = run(predict({"--trading", "--json"}));
        const auto given =
            run(predict({"--trading", "--json", "--spread-source", "given", "--spread", "0"}));
        QVERIFY2(file.code == 0 && given.code == 0, qPrintable(file.err + given.err));
        const json a = json::parse(file.out.toStdString()).at("trading");
        const json b = json::parse(given.out.toStdString()).at("trading");
        QCOMPARE(b.at("spreadFrom").get<std::string>(), std::string("given"));
        // The same trades, each without the file's spread (13 to 15 points here).
        QCOMPARE(a.at("strategy").at("trades"), b.at("strategy").at("trades"));
        QVERIFY(a.at("strategy").at("trades").get<double>() > 0);
        QVERIFY(b.at("strategy").at("netPoints").get<double>() >
                a.at("strategy").at("netPoints").get<double>());
        // An experiment's trading section is the base; a flag still overrides it.
        const json e = {{"formatVersion", 2},
                        {"model", {{"layers", {{{"type", "dense"}, {"neurons", 3}}}}}},
                        {"trading", {{"spreadSource", "given"}, {"spreadPoints", 0}}}};
        const QString path = write("trading.json", e.dump());
        const auto x = run(predict({"--trading", "--json", "--experiment", path}));
        QVERIFY2(x.code == 0, qPrintable(x.err));
        const json c = json::parse(x.out.toStdString()).at("trading");
        QCOMPARE(c.at("strategy"), b.at("strategy"));
        const auto y =
            run(predict({"--trading", "--json", "--experiment", path, "--spread-source", "file"}));
        QCOMPARE(json::parse(y.out.toStdString()).at("trading").at("strategy"), a.at("strategy"));
    }

    void refusals() {
        auto r = run(predict({"--spread", "3"}));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--spread needs --trading"), qPrintable(r.err));
        r = run(predict({"--trades-csv", dir_ + "/x.csv"}));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--trades-csv needs --trading"), qPrintable(r.err));
        r = run(predict({"--trading", "--commission", "-1"}));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("trading.commission: -1.0 is outside [0, 1e+09]"),
                 qPrintable(r.err));
        r = run(predict({"--trading", "--spread-source", "mid"}));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("'mid' is not one of file, given"), qPrintable(r.err));
        const json e = {{"formatVersion", 2},
                        {"model", {{"layers", {{{"type", "dense"}, {"neurons", 3}}}}}},
                        {"trading", {{"stopLoss", 2}}}};
        r = run(predict({"--trading", "--experiment", write("bad.json", e.dump())}));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("trading.stopLoss: unknown setting"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TstCliTrading)
#include "tst_cli_trading.moc"
