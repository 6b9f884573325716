// GUI: an accuracy of fewer than 20 signals (kMinSignalsForAccuracy, model/FigureText.h) is not
// shown in the window either (issue 42 §1): the training charts' accuracy curve has a gap
// (NaN) at an epoch part with 1 to 19 signals, as the CLI prints n/a; before, it plotted the
// share of a handful (0 % or 100 % of one signal). The figure from 20 signals up is plotted.
#include <cmath>

#include <QtTest>

#include "app/core/TrainingController.h"
#include "model/FigureText.h"
#include "ui/MainWindow.h"
#include "ui/MetricChart.h"
#include "ui/MetricCharts.h"

using namespace nnwb;

namespace {

EpochMetrics part(double accuracyPct, size_t signalCount) {
    EpochMetrics m;
    m.samples = 100;
    m.loss = 0.2;
    m.accuracyPct = accuracyPct;
    m.signalCount = signalCount;
    m.patterns = 30;
    return m;
}

EpochReport epoch(int e, const EpochMetrics& train, const EpochMetrics& validation) {
    EpochReport r;
    r.epoch = e;
    r.taskMetrics = true;
    r.learningRate = 0.001;
    r.train = train;
    r.validation = validation;
    return r;
}

// The value a graph plots at `epoch` (the test fails when it has none).
double valueAt(QCPGraph* g, int epoch) {
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        if (it->key == epoch) return it->value;
    QTest::qFail(qPrintable(QStringLiteral("no point at epoch %1").arg(epoch)), __FILE__, __LINE__);
    return 0;
}

}  // namespace

class TestFewSignalsWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void accuracyOfFewSignalsIsAGapInTheChart() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.show();
        TrainingController* c = w.controller();
        RunInfo info;
        info.trainSamples = 100;
        info.validationSamples = 100;
        info.epochs = 3;
        Q_EMIT c->runStarted(info);
        // Epoch 1: 5 training signals, 40 validation; epoch 2: 19 and 1; epoch 3: 20 and 0.
        Q_EMIT c->epochFinished(epoch(1, part(60, 5), part(55, 40)));
        Q_EMIT c->epochFinished(epoch(2, part(70, 19), part(100, 1)));
        Q_EMIT c->epochFinished(epoch(3, part(45, kMinSignalsForAccuracy), part(0, 0)));
        MetricChart* accuracy = w.charts()->accuracyChart();
        QCOMPARE(accuracy->pointCount(), 3);
        QCPGraph* train = accuracy->trainGraph();
        QCPGraph* validation = accuracy->validationGraph();
        QVERIFY2(std::isnan(valueAt(train, 1)), "5 signals: plotted");
        QVERIFY2(std::isnan(valueAt(train, 2)), "19 signals: plotted");
        QCOMPARE(valueAt(train, 3), 45.0);
        QCOMPARE(valueAt(validation, 1), 55.0);
        QVERIFY2(std::isnan(valueAt(validation, 2)), "1 signal: plotted");
        QVERIFY2(std::isnan(valueAt(validation, 3)), "no signal: plotted");
        // Missed patterns and loss are plotted whatever the signals.
        QCOMPARE(w.charts()->missedChart()->pointCount(), 3);
    }
};

QTEST_MAIN(TestFewSignalsWindow)
#include "tst_few_signals_window.moc"
