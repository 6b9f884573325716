#include "app/core/ComparisonController.h"

#include <QCoreApplication>

#include "app/core/TrainingController.h"

namespace nnwb {

ComparisonController::ComparisonController(QObject* parent) : QObject(parent) {
    registerMetaTypes();
}

ComparisonController::~ComparisonController() {
    shutdown();
}

bool ComparisonController::isBusy() const {
    for (const TrainingController* c : controllers_)
        if (c->isBusy()) return true;
    return false;
}

bool ComparisonController::isRunning(int run) const {
    return run >= 0 && run < runCount() && controllers_[size_t(run)]->isBusy();
}

AttentionSnapshotPtr ComparisonController::scores(int run) const {
    return run >= 0 && run < static_cast<int>(scores_.size()) ? scores_[size_t(run)] : nullptr;
}

int ComparisonController::indexOf(const QObject* controller) const {
    for (size_t i = 0; i < controllers_.size(); ++i)
        if (controllers_[i] == controller) return static_cast<int>(i);
    return -1;
}

TrainingController* ComparisonController::makeController() {
    auto* c = new TrainingController(this);
    connect(c, &TrainingController::runStarted, this, [this, c](const RunInfo& info) {
        const int i = indexOf(c);
        if (i < 0) return;
        RunRecord& r = set_.runs[size_t(i)].record;
        r.deviceName = info.deviceName.toStdString();
        r.parameters = info.parameters;
        r.trainSamples = info.trainSamples;
        r.validationSamples = info.validationSamples;
        r.status = RunStatus::Running;
        Q_EMIT runChanged(i);
    });
    connect(c, &TrainingController::progress, this, [this, c](const TrainingProgress& p) {
        const int i = indexOf(c);
        if (i >= 0) Q_EMIT runProgress(i, p);
    });
    connect(c, &TrainingController::epochFinished, this, [this, c](const EpochReport& report) {
        const int i = indexOf(c);
        if (i < 0) return;
        set_.runs[size_t(i)].record.epochs.push_back(report);
        Q_EMIT epochFinished(i, report);
        Q_EMIT runChanged(i);
    });
    connect(c, &TrainingController::recordingWarning, this,
            &ComparisonController::recordingWarning);
    connect(c, &TrainingController::attentionReady, this, [this, c](const AttentionSnapshotPtr& s) {
        const int i = indexOf(c);
        if (i < 0) return;
        scores_[size_t(i)] = s;
        Q_EMIT attentionReady(i, s);
    });
    connect(c, &TrainingController::runFinished, this,
            [this, c](RunEnd end, const QString& message) {
                const int i = indexOf(c);
                if (i < 0) return;
                RunRecord& r = set_.runs[size_t(i)].record;
                r.status = end == RunEnd::Completed ? RunStatus::Completed
                           : end == RunEnd::Stopped ? RunStatus::Stopped
                                                    : RunStatus::Failed;
                r.error = end == RunEnd::Failed ? message.toStdString() : std::string();
                Q_EMIT runChanged(i);
                Q_EMIT runFinished(i, end, message);
                if (!isBusy()) Q_EMIT allFinished();
            });
    return c;
}

int ComparisonController::addRun(const Experiment& experiment, const QString& file,
                                 const QString& device) {
    if (isBusy()) return -1;
    const size_t i = set_.addRun(experiment, file.toStdString(), device.toStdString());
    controllers_.push_back(makeController());
    scores_.emplace_back();
    Q_EMIT runsChanged();
    return static_cast<int>(i);
}

bool ComparisonController::removeRun(int run) {
    if (isBusy() || run < 0 || run >= runCount()) return false;
    TrainingController* c = controllers_[size_t(run)];
    controllers_.erase(controllers_.begin() + run);
    scores_.erase(scores_.begin() + run);
    set_.runs.erase(set_.runs.begin() + run);
    c->shutdown();
    c->deleteLater();
    Q_EMIT runsChanged();
    return true;
}

bool ComparisonController::setDevice(int run, const QString& device) {
    if (isBusy() || run < 0 || run >= runCount()) return false;
    set_.setDevice(size_t(run), device.toStdString());
    Q_EMIT runChanged(run);
    return true;
}

bool ComparisonController::setEpochs(int epochs) {
    if (isBusy() || epochs < 0) return false;
    set_.epochs = epochs;
    return true;
}

bool ComparisonController::start() {
    if (isBusy() || set_.runs.empty()) return false;
    const std::vector<Experiment> experiments = set_.trainingExperiments();
    for (size_t i = 0; i < experiments.size(); ++i) {
        set_.runs[i].record.restart();
        scores_[i].reset();
        Q_EMIT runChanged(static_cast<int>(i));
    }
    const std::string comparison = utcNowText() + "-" +
                                   std::to_string(QCoreApplication::applicationPid()) + "-" +
                                   std::to_string(++started_);
    for (size_t i = 0; i < experiments.size(); ++i) {
        RecordingOptions o = recording_;
        o.name = set_.runs[i].record.label;
        o.source = "window-compare";
        o.comparison = comparison;
        o.experimentFile = set_.runs[i].experimentFile;
        controllers_[i]->setRecording(o);
        controllers_[i]->start(experiments[i]);
    }
    return true;
}

void ComparisonController::stop(int run) {
    if (run >= 0 && run < runCount()) controllers_[size_t(run)]->stop();
}

void ComparisonController::stopAll() {
    for (TrainingController* c : controllers_) c->stop();
}

void ComparisonController::requestScores(int sample) {
    for (TrainingController* c : controllers_) c->requestScores(sample);
}

bool ComparisonController::save(const QString& path, QString* error) {
    try {
        set_.save(path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    filePath_ = path;
    return true;
}

bool ComparisonController::open(const QString& path, QString* error) {
    if (isBusy()) {
        if (error) *error = tr("Stop the running comparison first.");
        return false;
    }
    ComparisonSet loaded;
    try {
        loaded = ComparisonSet::load(path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    for (TrainingController* c : controllers_) {
        c->shutdown();
        c->deleteLater();
    }
    controllers_.clear();
    set_ = std::move(loaded);
    for (size_t i = 0; i < set_.runs.size(); ++i) controllers_.push_back(makeController());
    scores_.assign(set_.runs.size(), nullptr);
    filePath_ = path;
    Q_EMIT runsChanged();
    return true;
}

void ComparisonController::shutdown() {
    for (TrainingController* c : controllers_) c->shutdown();
}

}  // namespace nnwb
