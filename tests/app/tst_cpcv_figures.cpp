// The figures of CPCV paths (app/engine/CpcvFigures.h, issue 45): the histogram's bins by hand
// (edges, the greatest value in the last bin, n/a left out, all values equal), the figure
// lookup by key, the verdict line for paths that all lose, all win, split, or never trade, and
// the trading JSON of a cpcv sweep trial (app/engine/CpcvTrialResult.h).
#include <QtTest>

#include <cmath>

#include "app/engine/CpcvFigures.h"
#include "app/engine/CpcvTrialResult.h"

using namespace nnwb;

namespace {

CpcvPathFigures path(double net, double sharpe, double trades = 10) {
    CpcvPathFigures p;
    p.traded = true;
    p.trading.trades = trades;
    p.trading.netPoints = net;
    p.trading.sharpe = trades > 0 ? sharpe : NAN;
    return p;
}

}  // namespace

class TestCpcvFigures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void histogramBinsByHand() {
        // 0 .. 4 in 4 bins of width 1: 0 and 0.5 | 1 (an inner edge goes up) | 2.5 | 4 (last)
        PathHistogram h = pathHistogram({0.5, 1.0, 2.5, 4.0, 0.0, NAN}, 4);
        QCOMPARE(h.from, 0.0);
        QCOMPARE(h.width, 1.0);
        QCOMPARE(h.counts, (std::vector<size_t>{2, 1, 1, 1}));
        h = pathHistogram({-2.0, -2.0}, 3);  // equal: -2 ± 0.1 in 3 bins, the middle one
        QVERIFY(std::fabs(h.from + 2.1) < 1e-12);
        QVERIFY(std::fabs(h.width - 0.2 / 3) < 1e-12);
        QCOMPARE(h.counts, (std::vector<size_t>{0, 2, 0}));
        h = pathHistogram({0.0}, 2);  // 0: ± 0.5
        QCOMPARE(h.from, -0.5);
        QCOMPARE(h.counts, (std::vector<size_t>{0, 1}));
        QVERIFY(pathHistogram({NAN}, 4).counts.empty());
    }

    void figuresByKey() {
        QCOMPARE(cpcvFigures().size(), size_t(8));
        QVERIFY(cpcvFigure("sharpe"));
        QCOMPARE(std::string(cpcvFigure("sharpe")->label), std::string("Sharpe (per bar)"));
        QVERIFY(!cpcvFigure("Sharpe"));
        CpcvPathFigures untraded;
        untraded.loss = 0.2;
        QVERIFY(std::isnan(cpcvFigure("sharpe")->of(untraded)));
        QCOMPARE(cpcvFigure("loss")->of(untraded), 0.2);
    }

    void verdicts() {
        CpcvEvaluation e;
        QCOMPARE(cpcvVerdict(e), std::string());
        e.paths = {path(-10, -0.03), path(-5, -0.01), path(-20, -0.04)};
        QCOMPARE(cpcvVerdict(e),
                 std::string("All 3 paths lose money (Sharpe per bar -0.04 .. -0.01, median -0.03, "
                             "lower decile -0.038): no choice of training groups gives the model "
                             "an edge after costs."));
        e.paths = {path(10, 0.03), path(-5, -0.01)};
        QCOMPARE(cpcvVerdict(e),
                 std::string("1 of 2 paths makes money (Sharpe per bar -0.01 .. 0.03, median 0.01, "
                             "lower decile -0.006): whether the model pays depends on which groups "
                             "trained it; no dependable edge."));
        e.paths = {path(10, 0.03), path(5, 0.01)};
        QCOMPARE(cpcvVerdict(e),
                 std::string("All 2 paths make money (Sharpe per bar 0.01 .. 0.03, median 0.02, "
                             "lower decile 0.012): the edge does not depend on which groups "
                             "trained the model."));
        e.paths = {path(0, NAN, 0), path(0, NAN, 0)};
        QCOMPARE(cpcvVerdict(e),
                 std::string("No path traded (2 paths): the distribution has no trading figures."));
    }

    // A cpcv sweep trial's trading JSON: strategy = the paths' means, pathStatistics per
    // statistic, the return series the per-bar mean of the paths' (equal bars), none otherwise.
    void trialTradingOfThePaths() {
        CpcvEvaluation e;
        e.paths = {path(10, 0.03), path(-5, -0.01), path(20, 0.05)};
        const std::vector<std::vector<double>> pct = {{0, 1, 3}, {0, -1, -2}, {0, 3, 2}};
        for (size_t p = 0; p < 3; ++p) {
            e.paths[p].loss = 0.1 * double(p + 1);
            e.paths[p].equity.bar = {7, 8, 9};
            e.paths[p].equity.time = {700, 800, 900};
            e.paths[p].equity.position = {0, 0, 0};
            e.paths[p].equity.points = pct[p];
            e.paths[p].equity.pct = pct[p];
        }
        const nlohmann::json t = cpcvTrialTrading(e, TradingSettings());
        QCOMPARE(t["part"].get<std::string>(), std::string("cpcvPaths"));
        QCOMPARE(t["paths"].get<int>(), 3);
        QVERIFY(std::fabs(t["strategy"]["sharpe"].get<double>() - 0.07 / 3) < 1e-12);
        QVERIFY(std::fabs(t["strategy"]["netPoints"].get<double>() - 25.0 / 3) < 1e-12);
        const nlohmann::json& st = t["pathStatistics"];
        QCOMPARE(st["median"]["sharpe"].get<double>(), 0.03);
        QCOMPARE(st["min"]["netPoints"].get<double>(), -5.0);
        QCOMPARE(st["max"]["loss"].get<double>(), 0.3);
        QVERIFY(std::fabs(st["q10"]["sharpe"].get<double>() - (-0.01 + 0.2 * 0.04)) < 1e-12);
        // The trial protocol's keys, one per metric (issue 42): accuracy and missed.
        QVERIFY(st["mean"]["accuracy"].is_number());
        QVERIFY(st["mean"]["missed"].is_number());
        QVERIFY(!st["mean"].contains("accuracyPct") && !st["mean"].contains("missedPct"));
        // Mean equity 0, 1, 1: returns 1, 0 at bars 8 and 9.
        QCOMPARE(t["returnSeries"]["time"], nlohmann::json({800, 900}));
        QCOMPARE(t["returnSeries"]["pct"].size(), size_t(2));
        QVERIFY(std::fabs(t["returnSeries"]["pct"][0].get<double>() - 1.0) < 1e-12);
        QVERIFY(std::fabs(t["returnSeries"]["pct"][1].get<double>()) < 1e-12);
        QCOMPARE(t["range"]["firstBar"].get<size_t>(), size_t(7));
        QCOMPARE(pathStatistic(describePaths({1, 2, 3}), "q10").value(), 1.2);
        QVERIFY(!pathStatistic(describePaths({1}), "mode"));
        e.paths[1].equity.bar = {7, 8};  // not the same bars: no series
        QVERIFY(!cpcvTrialTrading(e, TradingSettings()).contains("returnSeries"));
        for (CpcvPathFigures& p : e.paths) p.traded = false;
        e.tradingError = "signals: no bars";
        QCOMPARE(cpcvTrialTrading(e, TradingSettings()),
                 nlohmann::json({{"error", "signals: no bars"}}));
    }
};

QTEST_GUILESS_MAIN(TestCpcvFigures)
#include "tst_cpcv_figures.moc"
