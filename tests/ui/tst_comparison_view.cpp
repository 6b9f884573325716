// GUI: the Comparison tab with two small runs (one with an attention stack) on the CPU backend:
// both runs' curves overlaid on every chart, series hidden by the part toggles and the run
// check boxes, the summary table with the best of each column marked, heatmaps side by side for
// the runs that have attention, a per-run Stop button, and a saved set reopened with its
// histories drawn. (Two devices at once are covered by tst_compare_runs.)
#include <QCheckBox>
#include <QLabel>
#include <QSignalSpy>
#include <QToolButton>
#include <QtTest>

#include "app/compare/ComparisonSet.h"
#include "app/compare/ComparisonSummary.h"
#include "app/core/ComparisonController.h"
#include "common/TestUtil.h"
#include "ui/AttentionHeatmap.h"
#include "ui/ComparisonAttention.h"
#include "ui/ComparisonChart.h"
#include "ui/ComparisonRunsTable.h"
#include "ui/ComparisonSummaryTable.h"
#include "ui/ComparisonView.h"
#include "ui/MainWindow.h"

using namespace nnwb;

namespace {

Experiment tiny(const std::string& name) {
    Experiment e = Experiment::fromJson(test::tinyExperimentJson(2));
    e.name = name;
    return e;
}

Experiment tinyAttention() {
    Experiment e = tiny("attention");
    e.model["layers"] = {
        {{"type", "conv"}, {"window", 6}, {"step", 6}, {"filters", 8}, {"activation", "tanh"}},
        {{"type", "multihead_attention"},
         {"units", 4},
         {"window", 8},
         {"key_size", 4},
         {"heads", 2},
         {"causal", false}},
        {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}};
    return e;
}

// The window (1600x1000, no question before discarding) showing its Comparison tab.
struct ComparisonWindow {
    MainWindow w;
    ComparisonView* view = nullptr;
    ComparisonController* cmp = nullptr;
    ComparisonWindow() {
        w.setConfirmDiscard(false);
        w.resize(1600, 1000);
        w.show();
        w.showComparison();
        view = w.comparisonView();
        cmp = w.comparison();
    }
};

}  // namespace

class TestComparisonView : public QObject {
    Q_OBJECT
private slots:
    void trainsOverlaysAndReopens() {
        ComparisonWindow x;
        ComparisonView* view = x.view;
        ComparisonController* cmp = x.cmp;
        QCOMPARE(cmp->addRun(tiny("dense"), {}), 0);
        QCOMPARE(cmp->addRun(tinyAttention(), {}), 1);
        QCOMPARE(view->runsTable()->rowCount(), 2);
        QVERIFY(view->trainAllAction()->isEnabled());
        // Each run names its data; both train on the same here
        const QString data0 = view->runsTable()->item(0, ComparisonRunsTable::kData)->text();
        QVERIFY2(data0.startsWith(QStringLiteral("synthetic")), qPrintable(data0));
        QCOMPARE(view->runsTable()->item(1, ComparisonRunsTable::kData)->text(), data0);

        QSignalSpy done(cmp, &ComparisonController::allFinished);
        QVERIFY(view->trainAll(3));
        QVERIFY(view->stopAllAction()->isEnabled());
        QVERIFY(!view->trainAllAction()->isEnabled());
        QVERIFY(done.count() > 0 || done.wait(120000));
        QTest::qWait(100);

        for (int metric = 0; metric < 3; ++metric) {
            ComparisonChart* chart = view->chart(metric);
            QCOMPARE(chart->runCount(), 2);
            for (int run = 0; run < 2; ++run) {
                QCOMPARE(chart->trainGraph(run)->dataCount(), 3);
                QCOMPARE(chart->validationGraph(run)->dataCount(), 3);
                QCOMPARE(chart->trainGraph(run)->pen().color(),
                         chart->validationGraph(run)->pen().color());
            }
            QVERIFY(chart->trainGraph(0)->pen().color() != chart->trainGraph(1)->pen().color());
            QCOMPARE(chart->legend->itemWithPlottable(chart->trainGraph(1))->plottable()->name(),
                     QString("attention"));
        }
        // Toggles: the validation part, then one run.
        view->validationToggle()->setChecked(false);
        QVERIFY(!view->chart(0)->validationGraph(0)->visible());
        QVERIFY(view->chart(0)->trainGraph(0)->visible());
        view->validationToggle()->setChecked(true);
        auto* show =
            qobject_cast<QCheckBox*>(view->runsTable()->cellWidget(1, ComparisonRunsTable::kShow));
        show->setChecked(false);
        QVERIFY(!view->chart(2)->trainGraph(1)->visible());
        QVERIFY(!view->chart(2)->validationGraph(1)->visible());
        QVERIFY(view->chart(2)->trainGraph(0)->visible());
        show->setChecked(true);

        // Summary: one row per run; the smaller network has the fewest parameters.
        ComparisonSummaryTable* summary = view->summaryTable();
        QCOMPARE(summary->rowCount(), 2);
        const int fewer = cmp->record(0).parameters < cmp->record(1).parameters ? 0 : 1;
        QVERIFY(summary->isMarkedBest(fewer, kParameters));
        QVERIFY(!summary->isMarkedBest(1 - fewer, kParameters));
        QCOMPARE(summary->item(0, 2)->text(), QString("completed"));

        // Attention: the attention run shows a heatmap, the other says why it has none.
        QTRY_VERIFY(view->attention()->showsHeatmap(1));
        QVERIFY(!view->attention()->showsHeatmap(0));
        QCOMPARE(view->attention()->heatmap(1)->units(), 4);

        // Save, clear by reopening in a fresh window: the histories are drawn again.
        const QString path = QString::fromStdString(test::tempDir()) + "/set.json";
        QString error;
        QVERIFY2(cmp->save(path, &error), qPrintable(error));
        MainWindow w2;
        w2.setConfirmDiscard(false);
        QVERIFY2(w2.comparison()->open(path, &error), qPrintable(error));
        QCOMPARE(w2.comparisonView()->runsTable()->rowCount(), 2);
        QCOMPARE(w2.comparisonView()->chart(0)->trainGraph(1)->dataCount(), 3);
        QCOMPARE(w2.comparisonView()->summaryTable()->item(1, 3)->text(), QString("3"));
    }

    // Finding 1 of issue 13: with a completed run's row selected, adding, removing or opening
    // rebuilt the table while the selection changed, and the refresh reached a row without its
    // widgets (SIGSEGV in QProgressBar::setFormat). Adding a run also wiped the heatmaps of the
    // completed runs.
    void editsWithASelectedCompletedRun() {
        ComparisonWindow x;
        ComparisonView* view = x.view;
        ComparisonController* cmp = x.cmp;
        cmp->addRun(tiny("dense"), {});
        cmp->addRun(tinyAttention(), {});
        QSignalSpy done(cmp, &ComparisonController::allFinished);
        QVERIFY(view->trainAll(2));
        QVERIFY(done.count() > 0 || done.wait(120000));
        QTRY_VERIFY(view->attention()->showsHeatmap(1));

        view->runsTable()->selectRow(1);
        Experiment third = tiny("third");
        third.data["samples"] = 300;          // other data than run 1: the row says so
        QCOMPARE(cmp->addRun(third, {}), 2);  // crashed here
        QCOMPARE(view->runsTable()->rowCount(), 3);
        QTableWidgetItem* data = view->runsTable()->item(2, ComparisonRunsTable::kData);
        QVERIFY2(data->text().startsWith(QStringLiteral("≠ synthetic · 300")),
                 qPrintable(data->text()));
        QVERIFY(data->toolTip().contains(QStringLiteral("not comparable")));
        QVERIFY(!view->runsTable()->item(1, ComparisonRunsTable::kData)->text().startsWith("≠"));
        QVERIFY(view->attention()->showsHeatmap(1));   // the completed run keeps its heatmap
        QVERIFY(!view->attention()->showsHeatmap(2));  // the new one has none yet
        QCOMPARE(view->runsTable()->item(1, ComparisonRunsTable::kStatus)->text(),
                 QString("completed"));

        view->runsTable()->selectRow(0);
        QVERIFY(cmp->removeRun(0));  // and here
        QCOMPARE(view->runsTable()->rowCount(), 2);
        QVERIFY(view->attention()->showsHeatmap(0));  // the attention run, now first

        const QString path = QString::fromStdString(test::tempDir()) + "/set.json";
        QString error;
        QVERIFY2(cmp->save(path, &error), qPrintable(error));
        view->runsTable()->selectRow(1);
        QVERIFY2(cmp->open(path, &error), qPrintable(error));  // and here
        QCOMPARE(view->runsTable()->rowCount(), 2);
    }

    // An experiment with training.ensemble 2 in the set: Train All refuses with nnwb-cli
    // compare's words (comparisonEnsembleRefusal), shown above the runs, and nothing of the
    // loaded set is lost (before: it trained one network as the ensemble without a word).
    void refusesAnEnsembleAsCompareDoes() {
        ComparisonWindow x;
        ComparisonView* view = x.view;
        ComparisonController* cmp = x.cmp;
        cmp->addRun(tiny("single"), {});
        QSignalSpy done(cmp, &ComparisonController::allFinished);
        QVERIFY(view->trainAll(1));
        QVERIFY(done.count() > 0 || done.wait(60000));
        QCOMPARE(cmp->record(0).epochs.size(), size_t(1));
        Experiment ensemble = tiny("seeds");
        ensemble.training.ensemble = 2;
        QCOMPARE(cmp->addRun(ensemble, {}), 1);

        QVERIFY(!view->trainAll(1));
        auto* message = view->findChild<QLabel*>(QStringLiteral("comparisonMessage"));
        QVERIFY(message && message->isVisibleTo(view));
        const QString words = QString::fromStdString(comparisonEnsembleRefusal(ensemble));
        QVERIFY(words.startsWith(QStringLiteral("training.ensemble 2: ")));
        QCOMPARE(message->text(), QStringLiteral("seeds: ") + words);
        QVERIFY(!cmp->isBusy());
        QVERIFY(view->trainAllAction()->isEnabled());
        QCOMPARE(view->runsTable()->rowCount(), 2);
        QCOMPARE(cmp->record(0).status, RunStatus::Completed);  // nothing restarted or lost
        QCOMPARE(cmp->record(0).epochs.size(), size_t(1));
        QCOMPARE(view->chart(0)->trainGraph(0)->dataCount(), 1);
        QCOMPARE(cmp->record(1).status, RunStatus::Pending);
        QCOMPARE(done.count(), 1);

        QVERIFY(cmp->removeRun(1));  // without it the set trains again, message gone
        QVERIFY(view->trainAll(1));
        QVERIFY(!message->isVisibleTo(view));
        QVERIFY(done.wait(60000));
    }

    void stopsOneRun() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.show();
        ComparisonController* cmp = w.comparison();
        Experiment longRun = tiny("long");
        longRun.training.epochs = 20000;
        // Runs of one device train in turn (the one comparison engine's policy): the short
        // run first, then the long one is stopped on its own.
        cmp->addRun(tiny("short"), {});
        cmp->addRun(longRun, {});
        QSignalSpy done(cmp, &ComparisonController::allFinished);
        QVERIFY(w.comparisonView()->trainAll());
        QTRY_VERIFY_WITH_TIMEOUT(cmp->record(0).finished(), 60000);
        auto* stop = w.comparisonView()->runsTable()->findChild<QToolButton*>("stopRun1");
        QVERIFY(stop && stop->isEnabled());
        stop->click();
        QVERIFY(done.count() > 0 || done.wait(60000));
        QCOMPARE(cmp->record(1).status, RunStatus::Stopped);
        QCOMPARE(cmp->record(0).status, RunStatus::Completed);
        QVERIFY(!stop->isEnabled());
    }
};

QTEST_MAIN(TestComparisonView)
#include "tst_comparison_view.moc"
