// The main window as the GUI tests drive it: no question before discarding changes, no run
// store, optionally a fixed size, and train(), which starts training the document and waits for
// the run to end. One copy here instead of one per test file. GUI (test) thread only.
#pragma once

#include <QSignalSpy>
#include <QSize>

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
};

}  // namespace nnwb::test
