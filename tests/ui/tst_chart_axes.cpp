// GUI: a new run's charts start from the empty charts' axis ranges (issue 24, part 4); they
// kept the previous run's (epochs 1-20, its loss range) until the new run's first epoch. The
// best epoch's label is drawn where no curve runs.
#include <QtTest>

#include <cmath>

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

    // The ticks keep apart on narrow charts (1024x600: "2 4 6 810" under a 90 px plot, seven
    // value labels in 75 px): neighbouring labels leave 4 px between them on either axis.
    void ticksKeepApartOnSmallCharts() {
        MetricCharts charts;
        charts.resize(560, 190);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        for (int e = 1; e <= 12; ++e) {
            EpochReport r;
            r.epoch = e;
            r.taskMetrics = true;
            r.learningRate = 0.00125 - 0.0001 * e;
            r.train.loss = 0.2 - 0.01 * e;
            r.validation.loss = 0.19 - 0.004 * e;
            r.train.accuracyPct = 30 + 5 * e;
            r.validation.accuracyPct = 30 + 3 * e;
            charts.addEpoch(r, true);
        }
        QTest::qWait(200);
        for (SeriesChart* c :
             std::vector<SeriesChart*>{charts.lossChart(), charts.missedChart(),
                                       charts.accuracyChart(), charts.learningRateChart()}) {
            c->replot();
            QApplication::processEvents();
            c->replot();
            for (QCPAxis* axis : {c->xAxis, c->yAxis}) {
                const QFontMetrics fm(axis->tickLabelFont());
                const QVector<double> ticks = axis->tickVector();
                const QVector<QString> labels = axis->tickVectorLabels();
                for (int i = 1; i < ticks.size(); ++i) {
                    const double gap =
                        std::abs(axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[i - 1]));
                    const double need = axis == c->xAxis ? (fm.horizontalAdvance(labels[i]) +
                                                            fm.horizontalAdvance(labels[i - 1])) /
                                                                   2.0 +
                                                               4
                                                         : fm.height() + 4;
                    QVERIFY2(gap >= need,
                             qPrintable(QString("%1: %2 and %3 %4 px apart")
                                            .arg(c->objectName(), labels[i - 1], labels[i])
                                            .arg(gap)));
                }
            }
        }
    }
};

QTEST_MAIN(TestChartAxes)
#include "tst_chart_axes.moc"
