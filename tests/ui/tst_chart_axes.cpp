// GUI: a new run's charts start from the empty charts' axis ranges (issue 24, part 4); they
// kept the previous run's (epochs 1-20, its loss range) until the new run's first epoch.
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
};

QTEST_MAIN(TestChartAxes)
#include "tst_chart_axes.moc"
