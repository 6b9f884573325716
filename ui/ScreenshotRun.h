// The scripted demo behind `nnwb --experiment FILE --train-epochs N --screenshot OUT.png`
// (and `nnwb --compare A B ... --train-epochs N --screenshot OUT.png`): trains N epochs in the
// window (every run of the comparison set, on the Comparison tab), lets the charts draw,
// renders the whole window to a PNG (QWidget::grab) and reports an exit code. Works with
// QT_QPA_PLATFORM=offscreen. GUI thread.
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

    // Train the window's comparison set instead of its experiment.
    void setComparison(bool on) { comparison_ = on; }
    // Starts training (or, with epochs 0, just renders once the window has settled).
    void start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    void capture(bool trainingOk);
    void startComparison();

    MainWindow* window_;
    int epochs_;
    QString output_;
    bool comparison_ = false;
};

}  // namespace nnwb
