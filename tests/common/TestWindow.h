// The main window as the GUI tests drive it: no question before discarding changes, no run
// store, optionally a fixed size; train(), which starts training the document and waits for the
// run to end, showLaidOut() and stopAfterTheFirstFold(); and the settings of a GUI test
// (useTestSettings). One copy here instead of one per test file. GUI (test) thread only.
#pragma once

#include <QCoreApplication>
#include <QSignalSpy>
#include <QSize>
#include <QStandardPaths>
#include <QTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "ui/MainWindow.h"

namespace nnwb::test {

struct TestWindow {
    MainWindow w;
    explicit TestWindow(QSize size = QSize()) {
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        if (size.isValid()) w.resize(size);
    }
    // Trains `e` as the document; false when the run did not start or end within the time.
    bool train(const Experiment& e, int timeoutMs = 120000) {
        w.document()->reset(e);
        QSignalSpy done(w.controller(), &TrainingController::runFinished);
        if (!w.startTraining()) return false;
        return done.wait(timeoutMs);
    }
    // Lays the window out as the app starts it, shows it and waits until it is on the screen,
    // then 100 ms more (its first paint); false when it never came on the screen.
    bool showLaidOut() {
        w.applyDefaultLayout();
        w.show();
        if (!QTest::qWaitForWindowExposed(&w)) return false;
        QTest::qWait(100);
        return true;
    }
    // Starts training the document (a walk-forward or CPCV experiment), stops it once its first
    // fold has started and waits for the run's end, checking each step and that the run ended
    // as stopped: a Qt Test helper, the caller returns when QTest::currentTestFailed().
    // `started`: how many folds started.
    void stopAfterTheFirstFold(int& started) {
        QSignalSpy folds(w.controller(), &TrainingController::foldStarted);
        QSignalSpy done(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(folds.wait(60000));
        w.stopTraining();
        QVERIFY(done.count() == 1 || done.wait(60000));
        QCOMPARE(done.first().at(0).value<RunEnd>(), RunEnd::Stopped);
        started = folds.count();
    }
};

// A GUI test's settings: Qt's test mode (a settings folder of the tests' own) under the
// organisation nnwb-tests and the application `name` (the test's).
inline void useTestSettings(const char* name) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
    QCoreApplication::setApplicationName(QString::fromUtf8(name));
}

}  // namespace nnwb::test
