// The Sweeps tab's Overfitting page (ui/SweepOverfittingChart.h, docs/overfitting.md): the
// logit histogram holds every split, its bars left of 0 hold PBO's share, the scatter has one
// winner per split, and the figures line says PBO, or why it was not computed.
#include <QLabel>
#include <QtTest>

#include <random>

#include "app/sweep/SweepOverfitting.h"
#include "ui/SweepOverfittingChart.h"

using namespace nnwb;

class SweepOverfittingChartTest : public QObject {
    Q_OBJECT

    static SweepReturnsMatrix noiseMatrix(size_t trials, size_t bars) {
        std::mt19937_64 rng(11);
        std::normal_distribution<double> normal(0.0, 1.0);
        SweepReturnsMatrix m;
        for (size_t b = 0; b < bars; ++b) m.time.push_back(int64_t(b) * 3600);
        for (size_t t = 0; t < trials; ++t) {
            m.trials.push_back(int(t));
            m.returns.emplace_back();
            for (size_t b = 0; b < bars; ++b) m.returns.back().push_back(normal(rng));
        }
        return m;
    }

private Q_SLOTS:
    void histogramAndScatterHoldTheSplits() {
        SweepSnapshot s;
        s.report["overfitting"] = sweepOverfitting(noiseMatrix(7, 120), 8);
        const nlohmann::json& o = s.report["overfitting"];
        QVERIFY2(o.contains("pbo"), o.dump().c_str());
        SweepOverfittingChart chart;
        chart.setSnapshot(s);
        const int splits = o["splits"].get<int>();
        QCOMPARE(splits, 70);
        double all = 0, overfit = 0;
        for (size_t i = 0; i < chart.binCounts().size(); ++i) {
            all += chart.binCounts()[i];
            const double width = chart.binEdges()[1] - chart.binEdges()[0];
            if (chart.binEdges()[i] + width <= 1e-12) overfit += chart.binCounts()[i];
        }
        QCOMPARE(all, double(splits));
        QCOMPARE(overfit / splits, o["pbo"].get<double>());
        QCOMPARE(chart.scatterPoints(), splits);
        QVERIFY2(chart.figures()->text().startsWith("PBO "), qPrintable(chart.figures()->text()));
    }

    void refusedAndMissingSayWhy() {
        SweepSnapshot s;
        s.report["overfitting"] = sweepOverfitting(noiseMatrix(3, 10), 16);  // blocks of 0 bars
        SweepOverfittingChart chart;
        chart.setSnapshot(s);
        QVERIFY2(chart.figures()->text().contains("not computed") &&
                     chart.figures()->text().contains("fewer than 2 bars"),
                 qPrintable(chart.figures()->text()));
        QCOMPARE(chart.scatterPoints(), 0);
        chart.setSnapshot(SweepSnapshot{});
        QVERIFY(chart.figures()->text().contains("No trial has stored per-bar returns"));
    }
};

QTEST_MAIN(SweepOverfittingChartTest)
#include "tst_sweep_overfitting_chart.moc"
