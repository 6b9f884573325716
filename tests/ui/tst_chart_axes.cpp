// GUI: a new run's charts start from the empty charts' axis ranges (issue 24, part 4); they
// kept the previous run's (epochs 1-20, its loss range) until the new run's first epoch. The
// best epoch's label is drawn where no curve runs.
#include <QtTest>

#include "ui/LearningRateChart.h"
#include "ui/MetricChart.h"
#include "ui/MetricCharts.h"

using namespace nnwb;

class TestChartAxes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void clearedChartsForgetTheOldRanges() {
        MetricCharts charts;
        charts.resize(1000, 300);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        MetricChart* loss = charts.lossChart();
        const QCPRange x0 = loss->xAxis->range(), y0 = loss->yAxis->range();
        for (int e = 1; e <= 20; ++e) {
            EpochReport r;
            r.epoch = e;
            r.taskMetrics = true;
            r.learningRate = 0.001;
            r.train.loss = 5.0 + e;
            r.train.accuracyPct = 40;
            r.train.missedPct = 30;
            charts.addEpoch(r, false);
        }
        QTRY_VERIFY(loss->xAxis->range().upper > 20);
        QVERIFY(loss->yAxis->range().upper > 20);
        charts.clear();
        QTest::qWait(100);
        QCOMPARE(loss->xAxis->range().lower, x0.lower);
        QCOMPARE(loss->xAxis->range().upper, x0.upper);
        QCOMPARE(loss->yAxis->range().lower, y0.lower);
        QCOMPARE(loss->yAxis->range().upper, y0.upper);
    }

    // The best epoch's label stays off the curves: at the top where the curves are low there
    // (the loss at its best), at the bottom where they run along the top (missed patterns
    // rising to the best epoch; at 1024x600 "best 10" sat over them).
    void theBestEpochsLabelLeavesTheCurvesFree() {
        MetricCharts charts;
        charts.resize(1000, 260);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        for (int e = 1; e <= 10; ++e) {
            EpochReport r;
            r.epoch = e;
            r.bestEpoch = e;
            r.taskMetrics = true;
            r.train.loss = 1.0 / e;
            r.validation.loss = 1.1 / e;
            r.train.missedPct = 49 + 3 * e;
            r.validation.missedPct = 50 + 3 * e;
            charts.addEpoch(r, true);
        }
        MetricChart* missed = charts.missedChart();
        QTRY_COMPARE(missed->markerLabel(), QStringLiteral("best 10"));
        QTRY_VERIFY(missed->markerLabelAtBottom());
        QVERIFY(!charts.lossChart()->markerLabelAtBottom());
    }
};

QTEST_MAIN(TestChartAxes)
#include "tst_chart_axes.moc"
