// The run's part of the window's status bar: the state label (with the last epoch's line),
// the epoch, speed, ETA and device labels and the epoch's progress bar, kept up to date from
// the TrainingController's signals. The window's own messages (errors, saves) stay its own.
// GUI thread only.
#pragma once

#include <functional>

#include <QObject>
#include <QString>

#include "app/core/TrainingController.h"

class QLabel;
class QProgressBar;
class QStatusBar;

namespace nnwb {

class ClauseLabel;
class DevicePicker;
class ExperimentDocument;

class RunStatusBar : public QObject {
    Q_OBJECT
public:
    // `lastEpoch`: the last epoch on the charts (0: none), for the line a run's end leaves.
    RunStatusBar(QStatusBar* bar, TrainingController* controller, ExperimentDocument* doc,
                 DevicePicker* devices, std::function<int()> lastEpoch);

    // A run is about to start: the previous run's progress goes.
    void runStarting();
    // No run on show (another experiment): progress and figures cleared.
    void clear();
    // Shows `data` + `rest` as the bar's message for `timeoutMs`, fitted left of the permanent
    // widgets (see fitted()); when it had to be elided, the whole line is the bar's tooltip
    // while it shows. A run's start and end messages.
    void showFitted(const QString& data, const QString& rest, int timeoutMs);

private:
    void addWidgets(QStatusBar* bar);
    void stateChanged(TrainingController::State s);
    void runStarted(const RunInfo& info);
    void progress(const TrainingProgress& p);
    void epochFinished(const EpochReport& r);
    void runFinished(RunEnd end, const QString& message);
    void showDocumentDevice();
    // `data` + `rest` as the status bar's message has room for it left of the permanent
    // widgets: whole, else shortened never inside a figure: with `rest` (the counts, kept
    // whole) the first clause of `data` (a file name) elided in its middle, its other clauses
    // whole, or only its leading clauses that fit; without `rest`, the leading clauses of
    // `data` that fit (ClauseText.h).
    QString fitted(const QString& data, const QString& rest) const;

    QStatusBar* bar_;
    TrainingController* controller_;
    ExperimentDocument* doc_;
    DevicePicker* devices_;
    std::function<int()> lastEpoch_;
    QString epochLine_;     // "epoch 3 done, best epoch 2" during a run
    QString subjectShown_;  // an elided message (showFitted) as shown: the whole is in the tip
    ClauseLabel* state_;
    QLabel* epoch_;
    QLabel* speed_;
    QLabel* eta_;
    QLabel* device_;
    QProgressBar* progress_;
};

}  // namespace nnwb
