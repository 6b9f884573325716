// GUI: quitting while a run is going with unsaved changes (issue 24, part 4): the window asks
// about the unsaved changes first and whether to stop the run last (the question whose Yes
// closes the window), and the run is paused while it asks, not training on behind the
// dialogs; Cancel on either question keeps the window open and the run going again. The run's
// question says truthfully what is kept (its best and last models, in the run store). Closing
// while a sweep runs asks too (issue 41: it asked nothing and the trial ran on out of sight);
// Yes stops the sweep, which ends "stopped" with its stopped trial queued again.
#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QSignalSpy>
#include <QtTest>

#include <fstream>

#include "app/core/ExperimentDocument.h"
#include "app/core/SweepPresenter.h"
#include "app/core/TrainingController.h"
#include "app/runs/RunStore.h"
#include "app/sweep/SweepStore.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"
#include "ui/MainWindow.h"

using namespace nnwb;

namespace {
struct Asked {
    QString text;
    TrainingController::State state;
};
}  // namespace

class TestQuitDuringTraining : public QObject {
    Q_OBJECT

    // Answers the next dialogs with `answers`, one each, noting what they asked and the
    // run's state while they were open.
    void answer(MainWindow& w, QList<QMessageBox::StandardButton> answers, QList<Asked>* asked) {
        if (answers.isEmpty()) return;
        QTimer::singleShot(100, this, [this, &w, answers, asked]() mutable {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            QTest::qWait(200);  // a run going on behind the dialog would leave Paused here
            asked->push_back({box->text(), w.controller()->state()});
            const QMessageBox::StandardButton which = answers.takeFirst();
            answer(w, answers, asked);
            box->button(which)->click();
        });
    }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_quit_during_training"));
    }

    void asksAboutChangesThenTheRunWhilePaused() {
        MainWindow w;
        w.setConfirmDiscard(true);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(100000, 1)));
        w.show();
        QVERIFY(w.startTraining());
        QTRY_VERIFY(w.controller()->state() == TrainingController::State::Running);
        TrainingConfig t = w.document()->experiment().training;
        t.batchSize = 2;  // an unsaved change
        w.document()->setTraining(t);
        QVERIFY(w.document()->isModified());

        // Cancel at the first question: nothing happens, the run goes on.
        QList<Asked> asked;
        answer(w, {QMessageBox::Cancel}, &asked);
        QVERIFY(!w.close());
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked[0].text.contains(QStringLiteral("unsaved changes")),
                 qPrintable(asked[0].text));
        QCOMPARE(asked[0].state, TrainingController::State::Paused);
        QTRY_VERIFY(w.controller()->state() == TrainingController::State::Running);

        // Discard, then Cancel at the run's question: still open, the run goes on.
        asked.clear();
        answer(w, {QMessageBox::Discard, QMessageBox::Cancel}, &asked);
        QVERIFY(!w.close());
        QCOMPARE(asked.size(), 2);
        QVERIFY2(asked[1].text.contains(QStringLiteral("A run is going")),
                 qPrintable(asked[1].text));
        QCOMPARE(asked[1].state, TrainingController::State::Paused);
        QTRY_VERIFY(w.controller()->state() == TrainingController::State::Running);

        // Discard, then Yes: the window closes and the run is stopped.
        asked.clear();
        answer(w, {QMessageBox::Discard, QMessageBox::Yes}, &asked);
        QVERIFY(w.close());
        QCOMPARE(asked.size(), 2);
        QVERIFY(asked[0].text.contains(QStringLiteral("unsaved changes")));
        QVERIFY(asked[1].text.contains(QStringLiteral("A run is going")));
        // What is kept, truthfully: the run store has the run's best and last models.
        QVERIFY2(asked[1].text.contains(QStringLiteral("best and last models")),
                 qPrintable(asked[1].text));
        QVERIFY2(!asked[1].text.contains(QStringLiteral("not saved")), qPrintable(asked[1].text));
        QCOMPARE(asked[1].state, TrainingController::State::Paused);
        QVERIFY(!w.controller()->isBusy());
    }

    void asksBeforeClosingDuringASweep() {
        const std::string dir = test::tempDir();
        const QString db = QString::fromStdString(dir + "/store/runs.sqlite");
        std::ofstream(dir + "/long.json")
            << R"({"formatVersion":1,"name":"long","data":{"source":"synthetic","samples":96,
            "units":2,"window":3},"model":{"layers":[{"type":"dense","neurons":4},
            {"type":"dense","neurons":3}]},"training":{"epochs":100000,"batchSize":8}})";
        qputenv("NNWB_CLI", NNWB_CLI_PATH);
        int64_t id = 0;
        {
            MainWindow w;
            w.setConfirmDiscard(true);
            w.setRunsDatabase(db, true);
            w.show();
            QSignalSpy started(w.sweeps(), &SweepPresenter::started);
            const QString spec = QString(R"({"name":"q","experiment":"%1/long.json",
                "method":"random","seed":1,"runCap":2,"parameters":[
                {"path":"training.optimizer.learningRate","min":0.001,"max":0.01}]})")
                                     .arg(QString::fromStdString(dir));
            QVERIFY(w.sweeps()->start(spec, {}, 1));
            QVERIFY(started.wait(60000));
            id = started.first().at(0).toLongLong();
            QList<Asked> asked;
            answer(w, {QMessageBox::Cancel}, &asked);
            QVERIFY(!w.close());  // asked, and Cancel keeps it open
            QCOMPARE(asked.size(), 1);
            QVERIFY2(asked[0].text.contains(QStringLiteral("A sweep is running")),
                     qPrintable(asked[0].text));
            QVERIFY(w.sweeps()->isRunning());
            asked.clear();
            answer(w, {QMessageBox::Yes}, &asked);
            QVERIFY(w.close());
            QCOMPARE(asked.size(), 1);
        }  // the window's end waits for the coordinator
        RunStore store(db.toStdString(), false);
        const auto sweep = SweepStore(store).sweep(id);
        QVERIFY(sweep);
        QCOMPARE(sweep->status, std::string("stopped"));  // a trial was cut short
    }
};

QTEST_MAIN(TestQuitDuringTraining)
#include "tst_quit_during_training.moc"
