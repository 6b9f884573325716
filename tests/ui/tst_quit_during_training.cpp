// GUI: quitting while a run is going with unsaved changes (issue 24, part 4): the window asks
// about the unsaved changes first and whether to stop the run last (the question whose Yes
// closes the window), and the run is paused while it asks, not training on behind the
// dialogs; Cancel on either question keeps the window open and the run going again.
#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "common/TestUtil.h"
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
        QCOMPARE(asked[1].state, TrainingController::State::Paused);
        QVERIFY(!w.controller()->isBusy());
    }
};

QTEST_MAIN(TestQuitDuringTraining)
#include "tst_quit_during_training.moc"
