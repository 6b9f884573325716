#include "ui/RunStatusBar.h"

#include <cmath>

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>

#include "app/core/ExperimentDocument.h"
#include "model/FigureText.h"
#include "ui/DevicePicker.h"

namespace nnwb {

namespace {
QString duration(double seconds) {
    if (seconds < 0 || !std::isfinite(seconds)) return QStringLiteral("–");
    const qint64 s = static_cast<qint64>(seconds + 0.5);
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}
}  // namespace

RunStatusBar::RunStatusBar(QStatusBar* bar, TrainingController* controller, ExperimentDocument* doc,
                           DevicePicker* devices, std::function<int()> lastEpoch)
    : QObject(bar),
      bar_(bar),
      controller_(controller),
      doc_(doc),
      devices_(devices),
      lastEpoch_(std::move(lastEpoch)) {
    addWidgets(bar);
    showDocumentDevice();
    connect(doc_, &ExperimentDocument::trainingChanged, this, [this] {
        if (!controller_->isBusy()) showDocumentDevice();
    });
    using C = TrainingController;
    connect(controller_, &C::stateChanged, this, &RunStatusBar::stateChanged);
    connect(controller_, &C::runStarted, this, &RunStatusBar::runStarted);
    connect(controller_, &C::progress, this, &RunStatusBar::progress);
    connect(controller_, &C::epochFinished, this, &RunStatusBar::epochFinished);
    connect(controller_, &C::runFinished, this, &RunStatusBar::runFinished);
}

void RunStatusBar::addWidgets(QStatusBar* bar) {
    state_ = new QLabel(tr("Ready"));
    state_->setObjectName(QStringLiteral("runStateLabel"));
    // Its text (a run's end: "Finished: stopped early at epoch 7, best epoch 2 (…)") is clipped
    // in a narrow window rather than setting the window's minimum width.
    state_->setMinimumWidth(60);
    epoch_ = new QLabel;
    epoch_->setObjectName(QStringLiteral("epochLabel"));
    speed_ = new QLabel;
    eta_ = new QLabel;
    device_ = new QLabel;
    device_->setObjectName(QStringLiteral("deviceLabel"));
    device_->setMaximumWidth(240);  // a long OpenCL device name must not widen the window
    progress_ = new QProgressBar;
    progress_->setObjectName(QStringLiteral("epochProgress"));
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setMaximumWidth(260);
    progress_->setTextVisible(true);
    progress_->setFormat(tr("epoch %p %"));
    progress_->setToolTip(tr("Progress of the current epoch over the training samples"));
    bar->addWidget(state_);
    for (QWidget* w : std::initializer_list<QWidget*>{epoch_, speed_, eta_, device_, progress_})
        bar->addPermanentWidget(w);
}

void RunStatusBar::showDocumentDevice() {
    device_->setText(
        devices_->labelFor(QString::fromStdString(doc_->experiment().training.device)));
}

void RunStatusBar::runStarting() {
    epochLine_.clear();
    progress_->setFormat(tr("epoch %p %"));
    progress_->setValue(0);
    speed_->clear();
    eta_->clear();
}

void RunStatusBar::clear() {
    // An earlier run's end ("Finished: walk-forward, …") is not this experiment's.
    epochLine_.clear();
    state_->setText(tr("Ready"));
    progress_->setFormat(tr("epoch %p %"));
    progress_->setValue(0);
    epoch_->clear();
    speed_->clear();
    eta_->clear();
}

void RunStatusBar::stateChanged(TrainingController::State s) {
    using S = TrainingController::State;
    // The last epoch's line goes with the state ("Paused · epoch 3 done, …"); a run's end is
    // said by runFinished, after this.
    const QString state = s == S::Running    ? tr("Training")
                          : s == S::Paused   ? tr("Paused")
                          : s == S::Stopping ? tr("Stopping…")
                                             : tr("Ready");
    state_->setText(
        s == S::Idle || epochLine_.isEmpty() ? state : state + QStringLiteral(" · ") + epochLine_);
    // The state label is hidden under a temporary message: Paused and Stopping must be seen
    // at once.
    if (s == S::Paused || s == S::Stopping) bar_->clearMessage();
}

void RunStatusBar::runStarted(const RunInfo& info) {
    const QString label = devices_->labelFor(info.deviceId);
    device_->setText(label == info.deviceId ? info.deviceName : label);
    epoch_->setText(tr("epoch %1/%2").arg(info.firstEpoch).arg(info.epochs));
    bar_->showMessage(tr("%1 · %2 parameters · %3 training / %4 validation samples")
                          .arg(info.dataDescription)
                          .arg(QString::fromStdString(groupedCount(int64_t(info.parameters))))
                          .arg(info.trainSamples)
                          .arg(info.validationSamples),
                      10000);
}

void RunStatusBar::progress(const TrainingProgress& p) {
    epoch_->setText(tr("epoch %1/%2").arg(p.epoch).arg(p.epochs));
    speed_->setText(
        tr("%1 samples/s")
            .arg(QString::fromStdString(groupedCount(std::llround(p.samplesPerSecond)))));
    eta_->setText(tr("ETA %1").arg(duration(p.runEtaSeconds)));
    progress_->setValue(p.total ? static_cast<int>(1000.0 * p.done / p.total) : 0);
}

void RunStatusBar::epochFinished(const EpochReport& r) {
    if (r.bestEpoch <= 0) return;
    const QString text = r.stoppedEarly ? tr("epoch %1: stopping early, best epoch %2")
                                        : tr("epoch %1 done, best epoch %2");
    epochLine_ = text.arg(r.epoch).arg(r.bestEpoch);
    // In the state label, which a temporary message would hide (then "Paused" was never seen).
    const bool paused = controller_->state() == TrainingController::State::Paused;
    state_->setText((paused ? tr("Paused") : tr("Training")) + QStringLiteral(" · ") + epochLine_);
}

void RunStatusBar::runFinished(RunEnd end, const QString& message) {
    progress_->setValue(end == RunEnd::Completed ? 1000 : progress_->value());
    // A stopped or failed run's bar does not go on saying "epoch 90 %".
    progress_->setFormat(end == RunEnd::Completed ? tr("done")
                         : end == RunEnd::Stopped ? tr("stopped")
                                                  : tr("failed"));
    eta_->clear();
    epochLine_.clear();
    // What stays in the status bar after the messages have gone.
    const int last = lastEpoch_();
    state_->setText(end == RunEnd::Failed    ? tr("Failed at epoch %1").arg(last + 1)
                    : end == RunEnd::Stopped ? (last > 0 ? tr("Stopped after epoch %1").arg(last)
                                                         : tr("Stopped before the first epoch"))
                    : message.isEmpty()      ? tr("Finished")
                                             : tr("Finished: %1").arg(message));
}

}  // namespace nnwb
