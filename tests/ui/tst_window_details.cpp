// GUI: window details with a checkable effect (issue 13, finding 8): accuracy is a gap,
// not 0 %, in an epoch without signals (Experiment, Comparison and Runs charts alike); the status
// bar's progress says it is the epoch's; the tool bar's Undo/Redo keep their labels (and width) as
// the undo text changes; the price-file dialog starts in the folder of the current price file;
// the Data pane names a sample's shape in bars and features (issue 24: "units × window"). The
// attention pane's text before a run fits the stack: one with an attention layer is not told
// to get one (issue 41).
#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QSignalSpy>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>

#include <cmath>

#include "app/core/ExperimentDocument.h"
#include "app/core/LayerStackModel.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "ui/AttentionPickers.h"
#include "ui/AttentionView.h"
#include "ui/ComparisonChart.h"
#include "ui/ConfusionTable.h"
#include "ui/EpochPoints.h"
#include "ui/MainWindow.h"
#include "ui/MetricChart.h"
#include "ui/MetricCharts.h"

using namespace nnwb;

class TestWindowDetails : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sampleShapeNamesBarsAndFeatures() {
        MainWindow w;
        w.setConfirmDiscard(false);
        Experiment e = Experiment::fromJson(test::tinyExperimentJson(1));
        e.data = {{"source", "file"}, {"file", "prices.csv"}, {"window", 20}};
        w.document()->reset(e);
        auto* shape = w.findChild<QLabel*>(QStringLiteral("dataShape"));
        QVERIFY(shape);
        const int features = DataConfig::fromJson(e.data).featureCount();
        QCOMPARE(shape->text(),
                 QStringLiteral("Each sample: 20 bars × %1 features → 3 targets").arg(features));
        // One feature is "1 feature" (it read "1 features").
        DataConfig one = DataConfig::fromJson(e.data);
        one.features.enabled.fill(false);
        one.features.enabled[0] = true;
        e.data = one.toJson();
        w.document()->reset(e);
        QCOMPARE(shape->text(), QStringLiteral("Each sample: 20 bars × 1 feature → 3 targets"));
        w.document()->setData(test::syntheticData(64, 4, 6));
        QCOMPARE(shape->text(), QStringLiteral("Each sample: 4 units × 6 values → 3 targets"));
    }

    void accuracyWithoutSignalsIsAGap() {
        MetricCharts charts;
        EpochReport r;
        r.epoch = 1;
        r.taskMetrics = true;
        r.train.signalCount = 0;  // no buy/sell signal: accuracy undefined
        r.train.accuracyPct = 0;
        r.validation.signalCount = 24;  // 20 or more: the figure is shown
        r.validation.accuracyPct = 25;
        charts.addEpoch(r, true);
        QCPGraph* train = charts.accuracyChart()->trainGraph();
        QCOMPARE(train->dataCount(), 1);
        QVERIFY(std::isnan(train->data()->at(0)->value));
        QCOMPARE(charts.accuracyChart()->validationGraph()->data()->at(0)->value, 25.0);
    }

    void comparisonAccuracyWithoutSignalsIsAGap() {
        ComparisonChart loss(QStringLiteral("Loss"), {}), missed(QStringLiteral("Missed"), {}),
            accuracy(QStringLiteral("Accuracy"), {});
        for (ComparisonChart* c : {&loss, &missed, &accuracy})
            c->setRuns({QStringLiteral("a")}, {Qt::red});
        ComparisonChart* const charts[3] = {&loss, &missed, &accuracy};
        EpochReport r;
        r.epoch = 1;
        r.taskMetrics = true;
        r.validation.signalCount = 0;
        r.train.signalCount = 20;
        r.train.accuracyPct = 50;
        addEpochPoints(charts, 0, r, true);
        QCOMPARE(accuracy.trainGraph(0)->data()->at(0)->value, 50.0);
        QVERIFY(std::isnan(accuracy.validationGraph(0)->data()->at(0)->value));
        QCOMPARE(missed.trainGraph(0)->dataCount(), 1);
    }

    // Issue 15: every comparison chart stars each run's best epoch on its validation curve.
    void comparisonChartsStarTheBestEpoch() {
        ComparisonChart loss(QStringLiteral("Loss"), {}), missed(QStringLiteral("Missed"), {}),
            accuracy(QStringLiteral("Accuracy"), {});
        for (ComparisonChart* c : {&loss, &missed, &accuracy})
            c->setRuns({QStringLiteral("a"), QStringLiteral("b")}, {Qt::red, Qt::blue});
        ComparisonChart* const charts[3] = {&loss, &missed, &accuracy};
        const double losses[3] = {0.5, 0.3, 0.4};
        for (int epoch = 1; epoch <= 3; ++epoch) {
            EpochReport r;
            r.epoch = epoch;
            r.taskMetrics = true;
            r.validation.loss = losses[epoch - 1];
            r.validation.signalCount = 40;
            r.validation.accuracyPct = 10.0 * epoch;
            r.bestEpoch = epoch == 1 ? 1 : 2;
            addEpochPoints(charts, 1, r, true);
        }
        QCOMPARE(loss.bestGraph(1)->dataCount(), 1);
        QCOMPARE(loss.bestGraph(1)->data()->at(0)->key, 2.0);
        QCOMPARE(loss.bestGraph(1)->data()->at(0)->value, 0.3);
        QCOMPARE(accuracy.bestGraph(1)->data()->at(0)->value, 20.0);
        QCOMPARE(loss.bestGraph(0)->dataCount(), 0);  // run a has no epoch yet
        loss.clearRun(1);
        QCOMPARE(loss.bestGraph(1)->dataCount(), 0);
    }

    // "Confusion matrix · epoch 12" is shown whole in the narrowest column (it wraps).
    void confusionCaptionIsNotCut() {
        ConfusionTable t;
        t.resize(t.minimumWidth(), 300);
        t.setVisible(true);
        EpochReport r;
        r.epoch = 12;
        r.taskMetrics = true;
        t.setReport(r, true);
        QApplication::processEvents();
        auto* cap = t.findChild<QLabel*>(QStringLiteral("confusionCaption"));
        QVERIFY(cap);
        QVERIFY(cap->text().contains(QStringLiteral("12")));
        const int need = cap->fontMetrics().horizontalAdvance(cap->text());
        QVERIFY2(cap->width() >= need ||
                     (cap->wordWrap() && cap->height() >= cap->heightForWidth(cap->width())),
                 qPrintable(
                     QStringLiteral("caption %1 px wide, text %2 px").arg(cap->width()).arg(need)));
    }

    // Layer pickers count from 1, as the layer list does (the tensor names count from 0).
    void layerNamesAreOneBased() {
        QCOMPARE(AttentionPickers::layerLabel("layers.1.block.3"),
                 QStringLiteral("layer 2 · block 4"));
        QCOMPARE(AttentionPickers::layerLabel("layers.0"), QStringLiteral("layer 1"));
        QCOMPARE(AttentionPickers::layerLabel("odd"), QStringLiteral("odd"));
    }

    void progressSaysWhatItMeasures() {
        MainWindow w;
        auto* bar = w.findChild<QProgressBar*>(QStringLiteral("epochProgress"));
        QVERIFY(bar->format().contains(QStringLiteral("epoch")));
        QVERIFY(!bar->toolTip().isEmpty());
    }

    void toolBarButtonsStayPut() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* bar = w.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
        auto* undo = qobject_cast<QToolButton*>(bar->widgetForAction(w.undoAction()));
        auto* train = bar->widgetForAction(w.trainAction());
        QVERIFY(undo && train);
        const int x = train->x();
        w.stackModel()->addLayer("multihead_attention", 0);
        QTest::qWait(20);
        QCOMPARE(undo->text(), QStringLiteral("Undo"));
        QVERIFY(w.undoAction()->toolTip().contains(QStringLiteral("Multi-head attention")));
        QCOMPARE(train->x(), x);
    }

    // Closing during training says a run is going; Cancel keeps it, Yes stops it and closes.
    void closingDuringTrainingAsks() {
        MainWindow w;
        w.setConfirmDiscard(true);
        Experiment e = Experiment::fromJson(test::tinyExperimentJson(100000, 1));
        w.document()->reset(e);
        w.show();
        QVERIFY(w.startTraining());
        QTRY_VERIFY(w.controller()->state() == TrainingController::State::Running);
        QString asked;
        auto answer = [&asked](QMessageBox::StandardButton which) {
            QTimer::singleShot(50, [&asked, which] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                if (!box) return;
                asked = box->text();
                box->button(which)->click();
            });
        };
        answer(QMessageBox::Cancel);
        QVERIFY(!w.close());
        QVERIFY(asked.contains(QStringLiteral("A run is going")));
        QVERIFY(w.controller()->isBusy());
        asked.clear();
        answer(QMessageBox::Yes);
        QVERIFY(w.close());
        QVERIFY(!asked.isEmpty());
        QVERIFY(!w.controller()->isBusy());
    }

    void attentionStartTextFitsTheStack() {
        MainWindow w;
        w.setConfirmDiscard(false);
        auto* text = w.attentionView()->findChild<QLabel*>(QStringLiteral("attentionPlaceholder"));
        QVERIFY(text);
        nlohmann::json j = test::tinyExperimentJson(1);
        w.document()->reset(Experiment::fromJson(j));
        QVERIFY2(text->text().contains(QStringLiteral("with an attention layer")),
                 qPrintable(text->text()));
        j["model"]["layers"].insert(j["model"]["layers"].begin() + 1,
                                    nlohmann::json{{"type", "attention"}});
        w.document()->reset(Experiment::fromJson(j));
        QVERIFY2(!text->text().contains(QStringLiteral("with an attention layer")),
                 qPrintable(text->text()));
        QVERIFY2(text->text().contains(QStringLiteral("Train this stack")),
                 qPrintable(text->text()));
        // An edit of the stack before any run: the text follows it.
        w.document()->setLayers(test::tinyExperimentJson(1)["model"]["layers"], 0);
        QVERIFY2(text->text().contains(QStringLiteral("with an attention layer")),
                 qPrintable(text->text()));
    }
};

QTEST_MAIN(TestWindowDetails)
#include "tst_window_details.moc"
