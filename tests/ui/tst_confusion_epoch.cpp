// GUI: the confusion matrix shows the epoch the heatmaps' "latest / best epoch" picker names
// (issue 24, part 4): it always showed the latest epoch, also with "best epoch" picked. A run's
// model opened from the Runs tab in a window that has trained nothing shows the run's
// validation counts under "validation" (issue 41: it showed the training counts).
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "app/runs/RunStore.h"
#include "common/TestUtil.h"
#include "model/FigureText.h"
#include "ui/ConfusionTable.h"
#include "ui/MainWindow.h"
#include "ui/RunsView.h"

using namespace nnwb;

namespace {
EpochReport report(int epoch, int best) {
    EpochReport r;
    r.epoch = epoch;
    r.bestEpoch = best;
    r.isBest = epoch == best;
    r.taskMetrics = true;
    r.train.samples = 100;
    r.train.confusion[0][0] = 10 * epoch;  // tells the epochs apart in the table
    return r;
}
}  // namespace

class TestConfusionEpoch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void followsTheBestLatestPicker() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.show();
        auto* caption = w.confusionTable()->findChild<QLabel*>(QStringLiteral("confusionCaption"));
        auto* picker = w.findChild<QComboBox*>(QStringLiteral("attentionWeights"));
        QVERIFY(caption && picker);
        // A run's epochs as the controller reports them: epoch 2 stays the best.
        TrainingController* c = w.controller();
        for (int e = 1; e <= 4; ++e) Q_EMIT c->epochFinished(report(e, std::min(e, 2)));
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 4")), qPrintable(caption->text()));
        picker->setCurrentIndex(1);  // best epoch
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 2")), qPrintable(caption->text()));
        QCOMPARE(w.confusionTable()->table()->item(0, 0)->text().section(QLatin1Char('\n'), 0, 0),
                 QStringLiteral("20"));
        // A later epoch that is not better leaves the best one on show.
        Q_EMIT c->epochFinished(report(5, 2));
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 2")), qPrintable(caption->text()));
        Q_EMIT c->epochFinished(report(6, 6));
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 6")), qPrintable(caption->text()));
        Q_EMIT c->epochFinished(report(7, 6));
        picker->setCurrentIndex(0);  // latest epoch
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 7")), qPrintable(caption->text()));
    }

    void anOpenedModelShowsItsValidationCounts() {
        const std::string db = test::tempDir() + "/runs.sqlite";
        {
            MainWindow trainer;
            trainer.setConfirmDiscard(false);
            trainer.setRunsDatabase(QString::fromStdString(db), true);
            trainer.document()->reset(Experiment::fromJson(test::tinyExperimentJson(2)));
            QSignalSpy finished(trainer.controller(), &TrainingController::runFinished);
            QVERIFY(trainer.startTraining(2));
            QVERIFY(finished.wait(60000));
        }
        RunStore store(db, false);
        const auto runs = store.list();
        QCOMPARE(runs.size(), size_t(1));
        const StoredRun run = *store.get(runs[0].id);
        QVERIFY(run.hasValidation());
        const StoredBundle* best = run.bundle("best");
        QVERIFY(best);
        const EpochMetrics& v = run.epochs[size_t(best->epoch - 1)].report.validation;
        const EpochMetrics& t = run.epochs[size_t(best->epoch - 1)].report.train;
        QVERIFY(v.confusion[0][0] != t.confusion[0][0]);  // the parts tell apart

        // A second window session: nothing trained, Open Model on the run.
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString::fromStdString(db), true);
        w.show();
        w.showRuns();
        w.runsView()->refresh();
        w.runsView()->selectIds({run.id});
        auto* open = w.runsView()->findChild<QPushButton*>("runsOpenModel");
        QTRY_VERIFY(open->isEnabled());
        QSignalSpy loaded(w.controller(), &TrainingController::weightsLoaded);
        open->click();
        QVERIFY(loaded.wait(30000));
        QVERIFY(loaded.first().at(0).toBool());
        auto* part = w.confusionTable()->findChild<QComboBox*>();
        QCOMPARE(part->currentText(), QStringLiteral("validation"));
        const QString cell =
            w.confusionTable()->table()->item(0, 0)->text().section(QLatin1Char('\n'), 0, 0);
        QCOMPARE(cell, QString::fromStdString(groupedCount(v.confusion[0][0])));
    }
};

QTEST_MAIN(TestConfusionEpoch)
#include "tst_confusion_epoch.moc"
