#include "app/core/TrainingController.h"

#include "app/core/TrainingWorker.h"

namespace nnwb {

TrainingController::TrainingController(QObject* parent) : TrainingSignals(parent) {
    registerMetaTypes();
    thread_.setObjectName(QStringLiteral("nnwb-training"));
    worker_ = new TrainingWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    // The worker is deleted on its thread as the thread ends; this unlock is the last thing
    // nnwb code does there, and shutdown() locks the mutex after QThread::wait(), so the end
    // of the thread happens-before whatever follows, also for ThreadSanitizer (which cannot
    // see QThread::wait's own synchronization inside libQt6Core).
    connect(
        worker_, &QObject::destroyed, worker_,
        [this] { std::lock_guard<std::mutex> lock(workerEnd_); }, Qt::DirectConnection);
    // The worker's signals are taken on the worker thread (direct connections) and posted
    // here with their arguments copied, so that they cross the threads through fromWorker_.
    auto forward = [this](auto signal, auto handler) {
        connect(
            worker_, signal, worker_,
            [this, handler](const auto&... args) {
                fromWorker_.post([this, handler, args...] { (this->*handler)(args...); });
            },
            Qt::DirectConnection);
    };
    forward(&TrainingWorker::runStarted, &TrainingController::runStarted);
    forward(&TrainingWorker::modelSignals, &TrainingController::modelSignals);
    forward(&TrainingWorker::progress, &TrainingController::progress);
    forward(&TrainingWorker::epochFinished, &TrainingController::epochFinished);
    forward(&TrainingWorker::memberEpochFinished, &TrainingController::memberEpochFinished);
    forward(&TrainingWorker::ensembleKept, &TrainingController::ensembleKept);
    forward(&TrainingWorker::attentionReady, &TrainingController::attentionReady);
    forward(&TrainingWorker::weightsSaved, &TrainingController::weightsSaved);
    forward(&TrainingWorker::bundleReady, &TrainingController::bundleReady);
    forward(&TrainingWorker::weightsLoaded, &TrainingController::weightsLoaded);
    forward(&TrainingWorker::onnxExported, &TrainingController::onnxExported);
    forward(&TrainingWorker::mql5Exported, &TrainingController::mql5Exported);
    forward(&TrainingWorker::recordingWarning, &TrainingController::recordingWarning);
    forward(&TrainingWorker::walkForwardPlanned, &TrainingController::walkForwardPlanned);
    forward(&TrainingWorker::foldStarted, &TrainingController::foldStarted);
    forward(&TrainingWorker::foldEnded, &TrainingController::foldEnded);
    forward(&TrainingWorker::walkForwardFinished, &TrainingController::walkForwardFinished);
    forward(&TrainingWorker::runFinished, &TrainingController::finished);
    thread_.start();
}

TrainingController::~TrainingController() {
    shutdown();
}

bool TrainingController::start(const Experiment& experiment, int epochs, StartMode mode) {
    if (shutDown_ || state_ != State::Idle) return false;
    Experiment copy = experiment;
    if (epochs > 0) copy.training.epochs = epochs;
    control_ = std::make_shared<TrainControl>();
    auto control = control_;
    TrainingWorker* worker = worker_;
    const RecordingOptions recording = recording_;
    setState(State::Running);
    worker_->post([worker, copy, control, mode, recording] {
        worker->continueRun(copy, control, mode, recording);
    });
    return true;
}

void TrainingController::loadWeights(const Experiment& experiment, const QString& path, int epoch) {
    if (shutDown_ || state_ != State::Idle) return;
    TrainingWorker* worker = worker_;
    const Experiment copy = experiment;
    worker_->post([worker, copy, path, epoch] { worker->loadWeights(copy, path, epoch); });
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
    worker_->post([worker, sample] { worker->requestScores(sample); });
}

void TrainingController::setScoresOfBest(bool best) {
    if (shutDown_) return;
    worker_->setScoresOfBest(best);
    TrainingWorker* worker = worker_;
    worker_->post([worker] { worker->requestScores(worker->scoreSample()); });
}

void TrainingController::saveWeights(const QString& path) {
    if (shutDown_) return;
    TrainingWorker* worker = worker_;
    worker_->post([worker, path] { worker->saveWeights(path); });
}

void TrainingController::requestBundle() {
    if (shutDown_) return;
    TrainingWorker* worker = worker_;
    worker_->post([worker] { worker->makeBundle(); });
}

void TrainingController::exportOnnx(const QString& path, int batch) {
    if (shutDown_) return;
    TrainingWorker* worker = worker_;
    worker_->post([worker, path, batch] { worker->exportOnnx(path, batch); });
}

void TrainingController::exportMql5(const QString& dir) {
    if (shutDown_) return;
    TrainingWorker* worker = worker_;
    worker_->post([worker, dir] { worker->exportMql5(dir); });
}

void TrainingController::shutdown() {
    if (shutDown_) return;
    shutDown_ = true;
    if (control_) control_->requestStop();
    thread_.quit();
    thread_.wait();
    { std::lock_guard<std::mutex> lock(workerEnd_); }
    worker_ = nullptr;
    control_.reset();
    if (state_ != State::Idle) {
        state_ = State::Idle;
        Q_EMIT stateChanged(state_);
    }
}

void TrainingController::finished(RunEnd end, const QString& message) {
    control_.reset();
    setState(State::Idle);
    Q_EMIT runFinished(end, message);
}

void TrainingController::setState(State s) {
    if (s == state_) return;
    state_ = s;
    Q_EMIT stateChanged(s);
}

}  // namespace nnwb
