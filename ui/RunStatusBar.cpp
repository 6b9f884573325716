#include "ui/RunStatusBar.h"

#include <algorithm>
#include <cmath>

#include <QFontMetrics>
#include <QLabel>
#include <QLayout>
#include <QProgressBar>
#include <QStatusBar>

#include "app/core/ExperimentDocument.h"
#include "model/FigureText.h"
#include "ui/ClauseLabel.h"
#include "ui/ClauseText.h"
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
    state_ = new ClauseLabel(tr("Ready"));
    state_->setObjectName(QStringLiteral("runStateLabel"));
    // Its text (a run's end: "Finished: stopped early at epoch 7, best epoch 2 (…)") loses
    // whole clauses in a narrow window rather than setting the window's minimum width.
    state_->setMinimumWidth(60);
    epoch_ = new QLabel;
    epoch_->setObjectName(QStringLiteral("epochLabel"));
    speed_ = new QLabel;
    speed_->setObjectName(QStringLiteral("speedLabel"));
    eta_ = new QLabel;
    eta_->setObjectName(QStringLiteral("etaLabel"));
    // Room kept for their usual texts: the labels do not move when a run's figures arrive (the
    // message at a run's start is fitted to the room they leave).
    const QFontMetrics fm(bar->font());
    epoch_->setMinimumWidth(fm.horizontalAdvance(tr("epoch %1/%2").arg(999).arg(999)));
    speed_->setMinimumWidth(fm.horizontalAdvance(tr("%1 samples/s").arg(QStringLiteral("99,999"))));
    eta_->setMinimumWidth(fm.horizontalAdvance(tr("ETA %1").arg(QStringLiteral("9:59:59"))));
    device_ = new QLabel;
    device_->setObjectName(QStringLiteral("deviceLabel"));
    device_->setMaximumWidth(240);  // a long OpenCL device name must not widen the window
    progress_ = new QProgressBar;
    progress_->setObjectName(QStringLiteral("epochProgress"));
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setMaximumWidth(180);
    progress_->setTextVisible(true);
    progress_->setFormat(tr("epoch %p %"));
    progress_->setToolTip(tr("Progress of the current epoch over the training samples"));
    bar->addWidget(state_);
    for (QWidget* w : std::initializer_list<QWidget*>{epoch_, speed_, eta_, device_, progress_})
        bar->addPermanentWidget(w);
    // An elided message's whole text (showFitted) is the bar's tooltip while it shows.
    connect(bar, &QStatusBar::messageChanged, this, [this](const QString& message) {
        if (message != subjectShown_ && !subjectShown_.isEmpty()) {
            subjectShown_.clear();
            bar_->setToolTip(QString());
        }
    });
}

QString RunStatusBar::fitted(const QString& data, const QString& rest) const {
    const QString whole = data + rest;
    if (!bar_->isVisible()) return whole;
    if (bar_->layout()) bar_->layout()->activate();  // the permanent widgets' places now
    // Where QStatusBar draws a message: from x = 6 to 2 px before its first permanent widget.
    const int room = std::min(bar_->width() - 12, epoch_->x() - 2) - 6;
    const QFontMetrics fm(bar_->font());
    if (fm.horizontalAdvance(whole) <= room) return whole;
    // Cut by pixels, "…6 % (260 signals)" read as a figure of its own: whole clauses go.
    if (rest.isEmpty()) return leadingClauses(data, fm, room);
    // The data's first clause (the file name) gives way in its middle; its figures ("12323
    // bars, fold 2/3") stay whole, or go whole when even "…" and they leave no room.
    const int left = room - fm.horizontalAdvance(rest);
    const qsizetype name = firstClauseLength(data);
    const QString figures = data.mid(name);
    const int nameRoom = left - fm.horizontalAdvance(figures);
    if (nameRoom >= fm.horizontalAdvance(QChar(0x2026))) {
        const QString elided = fm.elidedText(data.left(name), Qt::ElideMiddle, nameRoom);
        return (elided.isEmpty() ? QString(QChar(0x2026)) : elided) + figures + rest;
    }
    return leadingClauses(data, fm, left) + rest;
}

void RunStatusBar::showDocumentDevice() {
    device_->setText(
        devices_->labelFor(QString::fromStdString(doc_->experiment().training.device)));
}

void RunStatusBar::runStarting() {
    epochLine_.clear();
    eta_->show();
    progress_->setFormat(tr("epoch %p %"));
    progress_->setValue(0);
    speed_->clear();
    eta_->clear();
}

void RunStatusBar::clear() {
    // An earlier run's end ("Finished: walk-forward, …") is not this experiment's.
    epochLine_.clear();
    state_->setWhole(tr("Ready"));
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
    state_->setWhole(
        s == S::Idle || epochLine_.isEmpty() ? state : state + QStringLiteral(" · ") + epochLine_);
    // The state label is hidden under a temporary message: Paused and Stopping must be seen
    // at once.
    if (s == S::Paused || s == S::Stopping) bar_->clearMessage();
}

void RunStatusBar::runStarted(const RunInfo& info) {
    const QString label = devices_->labelFor(info.deviceId);
    device_->setText(label == info.deviceId ? info.deviceName : label);
    epoch_->setText(tr("epoch %1/%2").arg(info.firstEpoch).arg(info.epochs));
    auto count = [](size_t n) { return QString::fromStdString(groupedCount(int64_t(n))); };
    const QString counts =
        tr(" · %1 parameters · %2 training / %3 validation samples")
            .arg(count(info.parameters), count(info.trainSamples), count(info.validationSamples));
    // At 1280x720 the whole line was cut by the permanent widgets (a fold's, or beside a long
    // device name): the file name gives way, the counts stay, the whole line is the tooltip.
    showFitted(info.dataDescription, counts, 10000);
}

void RunStatusBar::showFitted(const QString& data, const QString& rest, int timeoutMs) {
    const QString shown = fitted(data, rest);
    const bool elided = shown != data + rest;
    // The tooltip is there as the message shows (messageChanged keeps it: it is subjectShown_).
    subjectShown_ = elided ? shown : QString();
    bar_->setToolTip(elided ? data + rest : QString());
    bar_->showMessage(shown, timeoutMs);
}

void RunStatusBar::progress(const TrainingProgress& p) {
    epoch_->setText(tr("epoch %1/%2").arg(p.epoch).arg(p.epochs));
    if (p.samplesPerSecond > 0) {  // 0: not known yet (a run's first report), keep what is shown
        speed_->setText(
            tr("%1 samples/s")
                .arg(QString::fromStdString(groupedCount(std::llround(p.samplesPerSecond)))));
        eta_->setText(tr("ETA %1").arg(duration(p.runEtaSeconds)));
        eta_->show();  // hidden at the last run's end
    }
    progress_->setValue(p.total ? static_cast<int>(1000.0 * p.done / p.total) : 0);
}

void RunStatusBar::epochFinished(const EpochReport& r) {
    if (r.bestEpoch <= 0) return;
    const QString text = r.stoppedEarly ? tr("epoch %1: stopping early, best epoch %2")
                                        : tr("epoch %1 done, best epoch %2");
    epochLine_ = text.arg(r.epoch).arg(r.bestEpoch);
    // In the state label, which a temporary message would hide (then "Paused" was never seen).
    const bool paused = controller_->state() == TrainingController::State::Paused;
    state_->setWhole((paused ? tr("Paused") : tr("Training")) + QStringLiteral(" · ") + epochLine_);
}

void RunStatusBar::runFinished(RunEnd end, const QString& message) {
    progress_->setValue(end == RunEnd::Completed ? 1000 : progress_->value());
    // A stopped or failed run's bar does not go on saying "epoch 90 %".
    progress_->setFormat(end == RunEnd::Completed ? tr("done")
                         : end == RunEnd::Stopped ? tr("stopped")
                                                  : tr("failed"));
    // No ETA after the end: its room goes to the end's message (with 3 seeds a walk-forward's
    // end is 721 px, against 677 px of room at 1280x720 beside the ETA label).
    eta_->clear();
    eta_->hide();
    epochLine_.clear();
    // What stays in the status bar after the messages have gone.
    const int last = lastEpoch_();
    state_->setWhole(end == RunEnd::Failed    ? tr("Failed at epoch %1").arg(last + 1)
                     : end == RunEnd::Stopped ? (last > 0 ? tr("Stopped after epoch %1").arg(last)
                                                          : tr("Stopped before the first epoch"))
                     : message.isEmpty()      ? tr("Finished")
                                              : tr("Finished: %1").arg(message));
}

}  // namespace nnwb
