// The scripted demo behind `nnwb --experiment FILE --train-epochs N --screenshot OUT.png`:
// trains N epochs in the window, lets the charts draw, renders the whole window to a PNG
// (QWidget::grab) and reports an exit code. Works with QT_QPA_PLATFORM=offscreen. GUI thread.
#pragma once

#include <QObject>
#include <QString>

#include "app/core/TrainingTypes.h"

namespace nnwb {

class MainWindow;

class ScreenshotRun : public QObject {
    Q_OBJECT
public:
    ScreenshotRun(MainWindow* window, int epochs, QString output, QObject* parent = nullptr);

    // Starts training (or, with epochs 0, just renders once the window has settled).
    void start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    void capture(bool trainingOk);

    MainWindow* window_;
    int epochs_;
    QString output_;
};

}  // namespace nnwb
