// GUI: walk-forward validation in the window (issue 30). The Validation box edits the
// experiment's validation section (one undoable step); Train on a walk-forward experiment (a
// cut of the bundled EURUSD file, a tiny network, 2 epochs) runs every fold on the worker and
// shows one row per planned fold with its figures, the stitched out-of-sample figures, and
// the trading view on the stitched series; the folds drawn on the price chart are the fold
// plan's spans; bad settings put the error naming the setting in the error banner; Stop ends a
// walk-forward between folds and the tab says so.
#include <fstream>
#include <memory>
#include <string>

#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QMessageBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TradingPresenter.h"
#include "app/core/WalkForwardPresenter.h"
#include "common/DataCut.h"
#include "common/TestUtil.h"
#include "common/TestWindow.h"
#include "model/FoldData.h"
#include "model/data/DataConfig.h"
#include "ui/FoldBands.h"
#include "ui/MainWindow.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"
#include "ui/ResultNotes.h"
#include "ui/SettingsFields.h"
#include "ui/TrainingPanel.h"
#include "ui/ValidationPanel.h"
#include "ui/WalkForwardView.h"

using namespace nnwb;

namespace {

Experiment walkForward(const nlohmann::json& validation, int epochs = 2) {
    nlohmann::json v = validation;
    v["mode"] = "walkforward";
    const nlohmann::json e = {
        {"formatVersion", 2},
        {"name", "wf window"},
        {"data",
         {{"file", test::writeDataCut(test::tempDir() + "/wf-window-700.csv", 700)},
          {"window", 5}}},
        {"model",
         {{"layers",
           {{{"type", "dense"}, {"neurons", 6}, {"activation", "tanh"}},
            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
        {"training", {{"epochs", epochs}, {"batchSize", 16}, {"seed", 3}}},
        {"validation", v}};
    return Experiment::fromJson(e);
}

}  // namespace

class TestWalkForwardWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::useTestSettings("tst_walk_forward_window"); }

    void validationBoxEditsTheExperiment() {
        test::TestWindow x;
        auto* panel = x.w.trainingPanel()->findChild<ValidationPanel*>();
        QVERIFY(panel);
        auto* mode = qobject_cast<QComboBox*>(panel->fields()->field("validationMode"));
        auto* folds = qobject_cast<QSpinBox*>(panel->fields()->field("wfFolds"));
        QVERIFY(mode && folds);
        QVERIFY(!folds->isEnabled());  // holdout: the walk-forward fields wait
        mode->setCurrentIndex(mode->findData(QStringLiteral("walkforward")));
        QCOMPARE(x.w.document()->experiment().validation.mode, std::string("walkforward"));
        QVERIFY(folds->isEnabled());
        folds->setValue(4);
        QCOMPARE(x.w.document()->experiment().validation.folds, 4);
        QVERIFY(!folds->toolTip().isEmpty());
        x.w.document()->undoStack()->undo();
        QCOMPARE(x.w.document()->experiment().validation.folds, 6);
        QCOMPARE(folds->value(), 6);
        x.w.document()->undoStack()->undo();
        QCOMPARE(x.w.document()->experiment().validation.mode, std::string("holdout"));
    }

    void tinyWalkForwardShowsFoldsAndStitchedFigures() {
        test::TestWindow x;
        const Experiment e = walkForward({{"scheme", "anchored"}, {"folds", 3}});
        QSignalSpy folds(x.w.controller(), &TrainingController::foldEnded);
        QVERIFY(x.train(e));
        QVERIFY2(x.w.lastError().isEmpty(), qPrintable(x.w.lastError()));
        QCOMPARE(folds.count(), 3);
        // The plan the chart draws, computed here on its own.
        const WalkForwardData data = loadWalkForwardData(e);
        QVERIFY2(data.ok, data.error.c_str());
        QCOMPARE(data.plan.folds.size(), size_t(3));
        QTableWidget* table = x.w.walkForwardView()->foldTable();
        QCOMPARE(table->rowCount(), 3);
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(table->item(r, 0)->text(), QStringLiteral("%1/3").arg(r + 1));
            QCOMPARE(table->item(r, 3)->text().left(1), QStringLiteral("2"));  // epochs
            const QString testLoss = table->item(r, 8)->text();
            QVERIFY2(testLoss.toDouble() > 0, qPrintable(testLoss));
        }
        QLabel* stitched = x.w.walkForwardView()->stitchedLabel();
        QVERIFY2(stitched->text().contains(QStringLiteral("stitched from 3 folds")),
                 qPrintable(stitched->text()));
        const WalkForwardOutcome* outcome = x.w.walkForwardPresenter()->outcome();
        QVERIFY(outcome && outcome->outOfSample);
        const Fold& first = data.plan.folds.front();
        const Fold& last = data.plan.folds.back();
        QCOMPARE(outcome->outOfSample->bar.front(), first.testFirst);
        QCOMPARE(outcome->outOfSample->bar.back(), last.testLast);
        // The trading view trades the stitched series.
        const auto report = x.w.tradingPresenter()->report();
        QVERIFY2(report, qPrintable(x.w.tradingPresenter()->error()));
        QCOMPARE(report->firstBar, first.testFirst);
        QCOMPARE(report->lastBar, last.testLast);
        QVERIFY(x.w.tradingPresenter()->what().contains(QStringLiteral("stitched")));
        // The folds on the chart: each fold's spans as planned.
        const auto drawn = x.w.priceChartPane()->foldBands().drawn();
        size_t checked = 0;
        for (const FoldBands::Drawn& d : drawn) {
            const Fold& f = data.plan.folds.at(d.fold);
            if (d.span == FoldBands::Span::Train) {
                QCOMPARE(d.first, double(f.trainFirst));
                QCOMPARE(d.last, double(f.trainLast));
            } else if (d.span == FoldBands::Span::Test) {
                QCOMPARE(d.first, double(f.testFirst));
                QCOMPARE(d.last, double(f.testLast));
            } else if (d.span == FoldBands::Span::Validation) {
                QCOMPARE(d.first, double(f.validationFirst));
                QCOMPARE(d.last, double(f.validationLast));
            } else {
                QCOMPARE(d.first, double(f.partLast() + 1));  // the purge: before the test
                QCOMPARE(d.last, double(f.testFirst - 1));
            }
            ++checked;
        }
        QCOMPARE(checked, size_t(3 * 4));  // train, validation, purge and test of each fold
        // The stitched signals are on the price chart (contiguous test windows).
        QVERIFY2(x.w.priceChartPane()->chart()->signalLabel().contains(QStringLiteral("stitched")),
                 qPrintable(x.w.priceChartPane()->chart()->signalLabel()));
        // The signal picker has no epochs of a walk-forward: picking leaves the stitched series.
        x.w.priceChartPane()->signalPicker()->setCurrentIndex(1);
        QVERIFY(x.w.tradingPresenter()->report());
        QVERIFY(x.w.priceChartPane()->chart()->signalLabel().contains(QStringLiteral("stitched")));
        // The tab's texts wrap: the filled tab does not widen the window (its legend line,
        // unwrapped, made the window 1349 px wide on a 1280 px screen).
        const int wide = x.w.walkForwardView()->minimumSizeHint().width();
        QVERIFY2(wide <= 400, qPrintable(QString::number(wide)));
        // A walk-forward keeps no model: Train asks nothing about continuing.
        QVERIFY(!x.w.canContinue());
    }

    // A plan of hundreds of folds (a valid one: 900 folds fit the default file) keeps the
    // window responsive: the table is filled and sized once per change, not per cell.
    void manyFoldsFillTheTableQuickly() {
        WalkForwardPlan plan;
        auto bars = std::make_shared<BarSeries>();
        for (int i = 0; i < 6000; ++i) bars->time.push_back(1500000000 + 3600 * int64_t(i));
        plan.bars = bars;
        for (size_t k = 0; k < 600; ++k) {
            Fold f;
            f.trainFirst = 0;
            f.trainLast = 1000 + 8 * k;
            f.testFirst = f.trainLast + 2;
            f.testLast = f.testFirst + 7;
            plan.plan.folds.push_back(f);
        }
        WalkForwardPresenter presenter(nullptr);
        WalkForwardView view(&presenter);
        view.resize(900, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QElapsedTimer timer;
        timer.start();
        presenter.planned(plan);
        for (size_t k = 0; k < 5; ++k) {
            FoldRecord r;
            r.index = k;
            r.folds = 600;
            presenter.foldStarted(r);
            r.end = RunEnd::Completed;
            r.epochs = 2;
            presenter.foldEnded(r);
            QCoreApplication::processEvents();  // the window lays out and paints between folds
        }
        const qint64 ms = timer.elapsed();
        QCOMPARE(view.foldTable()->rowCount(), 600);
        QCOMPARE(view.foldTable()->item(4, 3)->text(), QStringLiteral("2"));
        QVERIFY2(ms < 5000, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    }

    void badSettingsNameTheSettingInTheBanner_data() {
        QTest::addColumn<int>("testLength");
        QTest::addColumn<int>("folds");
        QTest::addColumn<QString>("fractal");
        QTest::addColumn<QString>("setting");
        QTest::newRow("folds do not fit") << 200 << 8 << "3bar"
                                          << "validation.folds";
        // 5-bar fractals read 2 bars ahead: a 1-bar test window is shorter than that.
        QTest::newRow("test shorter than the label horizon") << 1 << 3 << "5bar"
                                                             << "validation.testLength";
    }
    void badSettingsNameTheSettingInTheBanner() {
        QFETCH(int, testLength);
        QFETCH(int, folds);
        QFETCH(QString, fractal);
        QFETCH(QString, setting);
        test::TestWindow x;
        Experiment e = walkForward({{"testLength", testLength}, {"folds", folds}});
        e.data["fractal"] = fractal.toStdString();
        QVERIFY(x.train(e));
        QVERIFY2(x.w.lastError().contains(setting), qPrintable(x.w.lastError()));
        auto* banner = x.w.findChild<QLabel*>(QStringLiteral("errorBanner"));
        QVERIFY(banner);
        QVERIFY2(banner->isVisibleTo(&x.w) && banner->text().contains(setting),
                 qPrintable(banner->text()));
        QCOMPARE(x.w.walkForwardView()->foldTable()->rowCount(), 0);
    }

    // After a holdout run whose model could be continued, Train on the experiment switched to
    // walk-forward asks nothing (there is nothing to continue) and runs the folds.
    void trainOnAWalkForwardAsksNothing() {
        test::TestWindow x;
        Experiment e = walkForward({{"folds", 3}});
        e.validation.mode = "holdout";
        QVERIFY(x.train(e));
        QVERIFY(x.w.canContinue());
        nlohmann::json v = e.validation.toJson();
        v["mode"] = "walkforward";
        QVERIFY(x.w.document()->setValidation(v));
        bool asked = false;
        QTimer::singleShot(1000, &x.w, [&asked] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                asked = true;
                box->reject();
            }
        });
        QSignalSpy planned(x.w.controller(), &TrainingController::walkForwardPlanned);
        QSignalSpy done(x.w.controller(), &TrainingController::runFinished);
        x.w.trainRequested();
        QVERIFY(!asked);
        QVERIFY(done.wait(60000));
        QCOMPARE(planned.count(), 1);
        QCOMPARE(x.w.walkForwardView()->foldTable()->rowCount(), 3);
    }

    void stopEndsTheWalkForward() {
        test::TestWindow x;
        const Experiment e = walkForward({{"scheme", "rolling"}, {"folds", 4}}, 200);
        x.w.document()->reset(e);
        int started = 0;
        x.stopAfterTheFirstFold(started);
        if (QTest::currentTestFailed()) return;
        QVERIFY(started < 4);
        QVERIFY2(x.w.walkForwardView()->captionLabel()->text().contains(QStringLiteral("Stopped")),
                 qPrintable(x.w.walkForwardView()->captionLabel()->text()));
        QCOMPARE(x.w.walkForwardView()->foldTable()->rowCount(), 4);
    }

    // Closing the window while a fold trains stops the walk-forward within a batch.
    void closingDuringAWalkForwardStopsIt() {
        auto x = std::make_unique<test::TestWindow>();
        x->w.document()->reset(walkForward({{"scheme", "rolling"}, {"folds", 4}}, 200));
        QSignalSpy epochs(x->w.controller(), &TrainingController::epochFinished);
        QVERIFY(x->w.startTraining());
        QVERIFY(epochs.wait(60000));
        QElapsedTimer timer;
        timer.start();
        x->w.close();
        x.reset();
        QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
    }
};

QTEST_MAIN(TestWalkForwardWindow)
#include "tst_walk_forward_window.moc"
