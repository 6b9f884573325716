#include "app/core/TrainingWorker.h"

#include <algorithm>
#include <exception>

#include <QMetaObject>

#include "model/Monitor.h"
#include "model/NetworkWeights.h"

namespace nnwb {

namespace {
QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString deviceLabel(const DeviceInfo& info) {
    if (info.id == "cpu") return QStringLiteral("CPU (native)");
    return q(info.name);
}
}  // namespace

TrainingWorker::TrainingWorker(QObject* parent) : QObject(parent) {}

TrainingWorker::~TrainingWorker() {
    releaseCompute();
}

void TrainingWorker::releaseCompute() {
    session_.reset();
}

void TrainingWorker::start(const Experiment& experiment, std::shared_ptr<TrainControl> control,
                           const RecordingOptions& recording) {
    ++runId_;
    // The previous run's device objects go first (they hold device memory); its last good
    // weights stay on the host until this run has started, so a run that cannot start loses
    // nothing that could still be saved.
    releaseCompute();
    experiment_ = experiment;
    control_ = std::move(control);
    epochsWanted_ = experiment_.training.epochs;
    epochSeconds_ = 0.0;
    running_ = true;
    try {
        session_ = std::make_unique<TrainingSession>(experiment_);
    } catch (const DataLoadError& e) {
        return failToStart(q(e.what()));
    } catch (const ShapeError& e) {
        return failToStart(QStringLiteral("Model: ") + q(e.what()));
    } catch (const ComputeError& e) {
        return failToStart(QStringLiteral("Device: ") + q(e.what()));
    } catch (const TrainingError& e) {
        return failToStart(q(e.what()));
    } catch (const std::exception& e) {
        return failToStart(q(e.what()));
    }
    keeper_ = EpochKeeper(experiment_.training, session_->trainer().monitor());
    runFailed_ = false;
    const DeviceInfo dev = session_->backend().info();
    recorder_ = std::make_unique<RunRecorder>(
        recording, [this](const std::string& m) { Q_EMIT recordingWarning(q(m)); });
    recorder_->begin(experiment_, session_->data(), dev, session_->network().parameterCount(),
                     epochsWanted_, monitorName(keeper_.monitor()));
    RunInfo info;
    info.recordedRunId = recorder_->recording() ? recorder_->runId() : 0;
    info.deviceId = q(dev.id);
    info.deviceName = deviceLabel(dev);
    info.dataDescription = q(session_->data().description);
    info.parameters = session_->network().parameterCount();
    info.trainSamples = session_->split().train.size();
    info.validationSamples = session_->split().validation.size();
    info.epochs = epochsWanted_;
    info.input = session_->network().inputShape();
    Q_EMIT runStarted(info);
    const int id = runId_;
    QMetaObject::invokeMethod(
        this, [this, id] { nextEpoch(id); }, Qt::QueuedConnection);
}

void TrainingWorker::nextEpoch(int runId) {
    if (runId != runId_ || !running_ || !session_) return;
    Trainer& trainer = session_->trainer();
    if (control_ && control_->stopRequested()) return finish(RunEnd::Stopped, {});
    const int epoch = trainer.epochsDone() + 1;
    const double avgEpoch = epoch > 1 ? epochSeconds_ / (epoch - 1) : 0.0;
    const int remainingAfter = epochsWanted_ - epoch;
    auto onProgress = [&](const ProgressReport& r) {
        TrainingProgress p;
        p.epoch = r.epoch;
        p.epochs = epochsWanted_;
        p.done = r.done;
        p.total = r.total;
        p.samplesPerSecond = r.samplesPerSecond;
        p.epochEtaSeconds = r.etaSeconds;
        double perEpoch = avgEpoch;
        if (perEpoch <= 0 && r.samplesPerSecond > 0) perEpoch = r.total / r.samplesPerSecond;
        p.runEtaSeconds = r.etaSeconds + std::max(0, remainingAfter) * perEpoch;
        if (recorder_) recorder_->heartbeat();
        Q_EMIT progress(p);
    };
    bool completed = false;
    EpochReport report;
    try {
        report = trainer.runEpoch(control_.get(), onProgress, &completed);
    } catch (const TrainingError& e) {
        return fail(q(e.what()));
    } catch (const ComputeError& e) {
        return fail(QStringLiteral("Device: ") + q(e.what()));
    } catch (const std::exception& e) {
        return fail(q(e.what()));
    }
    if (!completed) return finish(RunEnd::Stopped, {});
    epochSeconds_ += report.seconds;
    bool stopEarly = false;
    try {
        stopEarly = keeper_.afterEpoch(session_->network(), report);
    } catch (const TrainingError& e) {
        return fail(q(e.what()));
    } catch (const ComputeError& e) {
        return fail(QStringLiteral("Device: ") + q(e.what()));
    }
    if (recorder_) recorder_->epoch(report);
    Q_EMIT epochFinished(report);
    emitScores(scoreSample_.load());
    if (stopEarly || trainer.epochsDone() >= epochsWanted_)
        return finish(RunEnd::Completed, q(keeper_.summary()));
    QMetaObject::invokeMethod(
        this, [this, runId] { nextEpoch(runId); }, Qt::QueuedConnection);
}

void TrainingWorker::requestScores(int sample) {
    scoreSample_.store(sample);
    if (session_ && session_->trainer().epochsDone() > 0) emitScores(sample);
}

void TrainingWorker::emitScores(int sample) {
    if (!session_) return;
    try {
        const DataSplit& split = session_->split();
        const size_t nVal = split.validation.size() ? split.validation.size() : split.train.size();
        if (nVal == 0) return;
        const size_t index = std::min(static_cast<size_t>(std::max(0, sample)), nVal - 1);
        auto snap = std::make_shared<AttentionSnapshot>();
        snap->layers = session_->trainer().validationScores(index);
        if (snap->layers.empty()) return;
        snap->epoch = session_->trainer().epochsDone();
        snap->sample = static_cast<int>(index);
        snap->validationSamples = nVal;
        Q_EMIT attentionReady(std::shared_ptr<const AttentionSnapshot>(std::move(snap)));
    } catch (const std::exception&) {
        // a failed read-back is not worth ending a run for; the next epoch tries again
    }
}

void TrainingWorker::saveWeights(const QString& path) {
    try {
        if (session_ && !runFailed_ && !keeper_.keepBest()) {
            saveWeightsFile(session_->network(), path.toStdString());
        } else if (!keeper_.result().empty()) {
            // The best epoch's host copy; after a failure (the device's copy may be lost or
            // diverged) or a run that could not start, the kept host copy.
            keeper_.result().save(path.toStdString());
        } else {
            Q_EMIT weightsSaved(false, tr("There are no trained weights yet."));
            return;
        }
        Q_EMIT weightsSaved(true, path);
    } catch (const std::exception& e) {
        Q_EMIT weightsSaved(false, q(e.what()));
    }
}

void TrainingWorker::failToStart(const QString& message) {
    releaseCompute();  // a half-built run is of no use; the kept weights stay
    runFailed_ = true;
    finish(RunEnd::Failed, message);
}

void TrainingWorker::fail(const QString& message) {
    QString text = message;
    const WeightsSnapshot& lastGood = keeper_.lastGood();
    if (!lastGood.empty()) {
        // The host copy is what Export Weights saves after a failure; putting it back on the
        // device as well is a courtesy that a lost device may refuse.
        if (session_) {
            try {
                lastGood.restore(session_->network());
            } catch (const std::exception&) {
            }
        }
        if (keeper_.result().epoch() != lastGood.epoch())
            text += tr("\nThe weights of epoch %1, the best one, were kept; Export Weights "
                       "saves them.")
                        .arg(keeper_.result().epoch());
        else
            text += tr("\nThe weights of epoch %1, the last good one, were kept; Export Weights "
                       "saves them.")
                        .arg(lastGood.epoch());
    } else {
        text += tr("\nNo epoch was completed, so there are no trained weights to keep.");
    }
    runFailed_ = true;
    finish(RunEnd::Failed, text);
}

void TrainingWorker::finish(RunEnd end, const QString& message) {
    running_ = false;
    if (recorder_) {
        const nlohmann::json model =
            session_ ? session_->network().toJson() : nlohmann::json::object();
        recorder_->bundle("best", keeper_.best(), model);
        recorder_->bundle("last", keeper_.lastGood(), model);
        const bool early = keeper_.stoppedEarlyAt() > 0;
        recorder_->finish(end == RunEnd::Completed
                              ? (early ? runstatus::kStoppedEarly : runstatus::kCompleted)
                          : end == RunEnd::Stopped ? runstatus::kStopped
                                                   : runstatus::kFailed,
                          end == RunEnd::Failed ? message.toStdString() : std::string());
        recorder_.reset();
    }
    Q_EMIT runFinished(end, message);
}

}  // namespace nnwb
