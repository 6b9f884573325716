// GUI: the status bar says what the run is doing and how it ended (issue 24, part 4): a run
// that stopped early still says so after the temporary message has gone (it fell back to
// "Ready"), a paused run says "Paused" (the last epoch's message hid it), and after Stop the
// progress bar does not go on showing the interrupted epoch's share as if it were running.
// Another experiment: the previous run's end ("Finished: …") goes (issue 41: it stayed).
#include <QLabel>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStatusBar>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "common/TestUtil.h"
#include "ui/MainWindow.h"

using namespace nnwb;

namespace {
// What the status bar shows: its temporary message, if any, else its visible labels.
QString shownStatus(MainWindow& w) {
    QString s = w.statusBar()->currentMessage();
    for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
        if (l->isVisible()) s += QStringLiteral(" | ") + l->text();
    return s;
}
}  // namespace

class TestStatusMessages : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void earlyStopIsStillShownAfterTheMessage() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.show();
        // A run's end as the controller reports it (the worker's message is EpochKeeper's
        // summary): epoch 2 stopped early, epoch 1 the best.
        EpochReport r;
        r.epoch = 2;
        r.bestEpoch = 1;
        r.stoppedEarly = true;
        Q_EMIT w.controller()->epochFinished(r);
        Q_EMIT w.controller()->runFinished(
            RunEnd::Completed, QStringLiteral("stopped early at epoch 2, best epoch 1"));
        // The temporary message times out (here: at once); what stays says how the run ended.
        w.statusBar()->clearMessage();
        QTest::qWait(20);
        const QString shown = shownStatus(w);
        QVERIFY2(shown.contains(QStringLiteral("stopped early"), Qt::CaseInsensitive),
                 qPrintable(shown));
        QVERIFY2(!shown.contains(QStringLiteral("Ready")), qPrintable(shown));
    }

    void pausedRunSaysPaused() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(100000, 1)));
        w.show();
        QSignalSpy epochs(w.controller(), &TrainingController::epochFinished);
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(epochs.wait(60000));  // its message ("Epoch 1 done, …") is on show
        w.togglePause();
        QTRY_VERIFY(w.controller()->state() == TrainingController::State::Paused);
        QTest::qWait(50);
        const QString shown = shownStatus(w);
        QVERIFY2(shown.contains(QStringLiteral("Paused")), qPrintable(shown));
        w.togglePause();
        QTRY_VERIFY(w.controller()->state() == TrainingController::State::Running);
        QVERIFY2(!shownStatus(w).contains(QStringLiteral("Paused")), qPrintable(shownStatus(w)));
        w.stopTraining();
        QVERIFY(finished.count() > 0 || finished.wait(60000));
    }

    void stopDoesNotLeaveTheEpochsProgress() {
        MainWindow w;
        w.setConfirmDiscard(false);
        nlohmann::json j = test::tinyExperimentJson(100000, 1);
        j["data"]["samples"] = 400000;  // long epochs: Stop comes in the middle of one
        w.document()->reset(Experiment::fromJson(j));
        w.show();
        auto* progress = w.findChild<QProgressBar*>(QStringLiteral("epochProgress"));
        QVERIFY(progress);
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QTRY_VERIFY_WITH_TIMEOUT(progress->value() > 0, 60000);
        w.stopTraining();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Stopped);
        QTest::qWait(50);
        // Not "epoch 37 %" as if the epoch were going on: the bar says the run was stopped.
        QVERIFY2(progress->text().contains(QStringLiteral("stopped")),
                 qPrintable(progress->text()));
        QVERIFY2(shownStatus(w).contains(QStringLiteral("stopped"), Qt::CaseInsensitive),
                 qPrintable(shownStatus(w)));
    }

    void anotherExperimentDropsTheLastRunsEnd() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(1)));
        w.show();
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(finished.wait(60000));
        auto* state = w.statusBar()->findChild<QLabel*>(QStringLiteral("runStateLabel"));
        QTRY_VERIFY(state->text().startsWith(QStringLiteral("Finished")));
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(2)));
        QCOMPARE(state->text(), QStringLiteral("Ready"));
    }
};

QTEST_MAIN(TestStatusMessages)
#include "tst_status_messages.moc"
