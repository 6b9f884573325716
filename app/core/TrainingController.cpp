#include "app/core/TrainingController.h"

#include "app/core/TrainingWorker.h"

namespace nnwb {

TrainingController::TrainingController(QObject* parent) : QObject(parent) {
    registerMetaTypes();
    thread_.setObjectName(QStringLiteral("nnwb-training"));
    worker_ = new TrainingWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &TrainingWorker::runStarted, this, &TrainingController::runStarted);
    connect(worker_, &TrainingWorker::progress, this, &TrainingController::progress);
    connect(worker_, &TrainingWorker::epochFinished, this, &TrainingController::epochFinished);
    connect(worker_, &TrainingWorker::attentionReady, this, &TrainingController::attentionReady);
    connect(worker_, &TrainingWorker::weightsSaved, this, &TrainingController::weightsSaved);
    connect(worker_, &TrainingWorker::runFinished, this,
            [this](RunEnd end, const QString& message) {
                control_.reset();
                setState(State::Idle);
                Q_EMIT runFinished(end, message);
            });
    thread_.start();
}

TrainingController::~TrainingController() { shutdown(); }

bool TrainingController::start(const Experiment& experiment, int epochs) {
    if (shutDown_ || state_ != State::Idle) return false;
    Experiment copy = experiment;
    if (epochs > 0) copy.training.epochs = epochs;
    control_ = std::make_shared<TrainControl>();
    auto control = control_;
    TrainingWorker* worker = worker_;
    setState(State::Running);
    QMetaObject::invokeMethod(
        worker_, [worker, copy, control] { worker->start(copy, control); },
        Qt::QueuedConnection);
    return true;
}

void TrainingController::pause() {
    if (state_ != State::Running || !control_) return;
    control_->pause();
    setState(State::Paused);
}

void TrainingController::resume() {
    if (state_ != State::Paused || !control_) return;
    control_->resume();
    setState(State::Running);
}

void TrainingController::stop() {
    if ((state_ != State::Running && state_ != State::Paused) || !control_) return;
    control_->requestStop();
    setState(State::Stopping);
}

void TrainingController::requestScores(int sample) {
    if (shutDown_) return;
    worker_->setScoreSample(sample);
    TrainingWorker* worker = worker_;
    QMetaObject::invokeMethod(
        worker_, [worker, sample] { worker->requestScores(sample); }, Qt::QueuedConnection);
}

void TrainingController::saveWeights(const QString& path) {
    if (shutDown_) return;
    TrainingWorker* worker = worker_;
    QMetaObject::invokeMethod(
        worker_, [worker, path] { worker->saveWeights(path); }, Qt::QueuedConnection);
}

void TrainingController::shutdown() {
    if (shutDown_) return;
    shutDown_ = true;
    if (control_) control_->requestStop();
    thread_.quit();
    thread_.wait();
    worker_ = nullptr;
    control_.reset();
    if (state_ != State::Idle) {
        state_ = State::Idle;
        Q_EMIT stateChanged(state_);
    }
}

void TrainingController::setState(State s) {
    if (s == state_) return;
    state_ = s;
    Q_EMIT stateChanged(s);
}

}  // namespace nnwb
