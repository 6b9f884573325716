#include "app/core/TrainingWorker.h"

#include <algorithm>
#include <exception>

#include <QMetaObject>

#include "model/ModelBundle.h"
#include "model/Monitor.h"
#include "model/NetworkWeights.h"
#ifdef NNWB_HAS_ONNX
#include "app/export/ExportSource.h"
#include "app/export/OnnxExport.h"
#endif
#include "model/RunFailure.h"

namespace nnwb {

namespace {
QString q(const std::string& s) {
    return QString::fromStdString(s);
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
    } catch (const std::exception& e) {
        return failToStart(q(describeRunFailure(e, true)));
    }
    keeper_ = EpochKeeper(experiment_.training, session_->trainer().monitor());
    runFailed_ = false;
    firstEpoch_ = 1;
    emitRunStarted(1, false, recording);
    const int id = runId_;
    QMetaObject::invokeMethod(
        this, [this, id] { nextEpoch(id); }, Qt::QueuedConnection);
}

void TrainingWorker::emitRunStarted(int firstEpoch, bool continued,
                                    const RecordingOptions& recording) {
    const DeviceInfo dev = session_->backend().info();
    recorder_ = std::make_unique<RunRecorder>(
        recording, [this](const std::string& m) { Q_EMIT recordingWarning(q(m)); });
    recorder_->begin(experiment_, session_->data(), dev, session_->network().parameterCount(),
                     epochsWanted_, monitorName(keeper_.monitor()));
    RunInfo info;
    info.recordedRunId = recorder_->recording() ? recorder_->runId() : 0;
    info.deviceId = q(dev.id);
    info.deviceName = q(dev.name);
    info.dataDescription = q(session_->data().description);
    info.parameters = session_->network().parameterCount();
    info.trainSamples = session_->split().train.size();
    info.validationSamples = session_->split().validation.size();
    info.epochs = epochsWanted_;
    info.firstEpoch = firstEpoch;
    info.continued = continued;
    info.input = session_->network().inputShape();
    const ExperimentData& data = session_->data();
    if (data.priceData && data.bars) {
        info.bars = data.bars;
        info.fractalRule = data.dataConfig.fractalRule();
        info.trainFirstBar = data.trainFirstBar;
        info.trainLastBar = data.trainLastBar;
        info.validationFirstBar = data.validationFirstBar;
        info.validationLastBar = data.validationLastBar;
    }
    session_->trainer().setKeepValidationOutputs(true);  // the price chart's signals
    Q_EMIT runStarted(info);
}

bool TrainingWorker::sameRun(const Experiment& e) const {
    return session_ && e.model == experiment_.model && e.data == experiment_.data &&
           e.baseDir == experiment_.baseDir && e.training.device == experiment_.training.device &&
           e.training.batchSize == experiment_.training.batchSize;
}

void TrainingWorker::continueRun(const Experiment& experiment,
                                 std::shared_ptr<TrainControl> control, StartMode mode,
                                 const RecordingOptions& recording) {
    if (mode == StartMode::Restart) return start(experiment, std::move(control), recording);
    ++runId_;
    control_ = std::move(control);
    if (!sameRun(experiment) || runFailed_) {
        running_ = false;
        Q_EMIT runFinished(
            RunEnd::Failed,
            tr("Cannot continue: %1 Train with \"Restart\" instead; the kept weights are "
               "still there.")
                .arg(runFailed_ ? tr("the last run failed.")
                                : tr("the model, the data, the device or the batch size changed "
                                     "since those weights were trained.")));
        return;
    }
    Trainer& trainer = session_->trainer();
    if (mode == StartMode::ContinueBest && !keeper_.best().empty()) {
        try {
            keeper_.best().restore(session_->network());
        } catch (const std::exception& e) {
            return fail(q(e.what()));
        }
    }
    const int done = trainer.epochsDone();
    keeper_.resume(done);
    epochsWanted_ = done + experiment.training.epochs;
    epochSeconds_ = 0.0;
    running_ = true;
    firstEpoch_ = done + 1;
    emitRunStarted(done + 1, true, recording);
    const int id = runId_;
    QMetaObject::invokeMethod(
        this, [this, id] { nextEpoch(id); }, Qt::QueuedConnection);
}

void TrainingWorker::loadWeights(const Experiment& experiment, const QString& path, int epoch) {
    if (running_) {
        Q_EMIT weightsLoaded(false, tr("A run is going; stop it before loading weights."));
        return;
    }
    // A fresh network, optimizer and epoch count for the loaded weights; the kept run is
    // replaced only once the file has passed every check.
    std::unique_ptr<TrainingSession> session;
    EpochKeeper keeper;
    try {
        session = std::make_unique<TrainingSession>(experiment);
        loadWeightsFile(session->network(), path.toStdString());
        // The loaded weights are the result (Predict, Export Model, ONNX, Export Weights),
        // named by the epoch given, else the one a model bundle says (0 for plain weights).
        if (epoch < 0) {
            try {
                epoch = ModelBundle::load(path.toStdString()).epoch;
            } catch (const ModelBundleError&) {
                epoch = 0;
            }
        }
        keeper = EpochKeeper(experiment.training, session->trainer().monitor());
        keeper.adopt(session->network(), epoch);
    } catch (const std::exception& e) {
        Q_EMIT weightsLoaded(false, q(e.what()));
        return;
    }
    releaseCompute();
    session_ = std::move(session);
    experiment_ = experiment;
    keeper_ = std::move(keeper);
    runFailed_ = false;
    Q_EMIT weightsLoaded(true, path);
}

void TrainingWorker::nextEpoch(int runId) {
    if (runId != runId_ || !running_ || !session_) return;
    Trainer& trainer = session_->trainer();
    if (control_ && control_->stopRequested()) return finish(RunEnd::Stopped, {});
    const int epoch = trainer.epochsDone() + 1;
    const double avgEpoch = epoch > firstEpoch_ ? epochSeconds_ / (epoch - firstEpoch_) : 0.0;
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
    } catch (const std::exception& e) {
        return fail(q(describeRunFailure(e, true)));
    }
    if (!completed) return finish(RunEnd::Stopped, {});
    epochSeconds_ += report.seconds;
    bool stopEarly = false;
    try {
        stopEarly = keeper_.afterEpoch(session_->network(), report);
    } catch (const std::exception& e) {
        return fail(q(describeRunFailure(e, true)));
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
    // After an epoch, or on loaded weights (no epoch of this session, a kept result).
    if (session_ && (session_->trainer().epochsDone() > 0 || !keeper_.result().empty()))
        emitScores(sample);
}

void TrainingWorker::emitScores(int sample) {
    if (!session_) return;
    try {
        const DataSplit& split = session_->split();
        const size_t nVal = split.validation.size() ? split.validation.size() : split.train.size();
        if (nVal == 0) return;
        const size_t index = std::min(static_cast<size_t>(std::max(0, sample)), nVal - 1);
        auto snap = std::make_shared<AttentionSnapshot>();
        const int done = session_->trainer().epochsDone();
        const WeightsSnapshot& best = keeper_.best();
        Network& net = session_->network();
        if (scoresOfBest_.load() && !best.empty() && best.epoch() != done) {
            // The best epoch's weights for this one forward pass, then the latest ones back
            // (host copies; the optimizer state is untouched).
            WeightsSnapshot latest;
            if (!latest.capture(net, done)) return;
            best.restore(net);
            try {
                snap->layers = session_->trainer().validationScores(index, &snap->outputs);
            } catch (...) {
                latest.restore(net);
                throw;
            }
            latest.restore(net);
            snap->epoch = best.epoch();
            snap->bestEpoch = true;
        } else {
            snap->layers = session_->trainer().validationScores(index, &snap->outputs);
            snap->epoch = done > 0 ? done : keeper_.result().epoch();  // loaded: the file's
            snap->bestEpoch = done > 0 ? keeper_.bestEpoch() == done : false;
        }
        if (snap->layers.empty()) return;
        snap->sample = static_cast<int>(index);
        snap->validationSamples = nVal;
        const SampleSet& part = split.validation.size() ? split.validation : split.train;
        if (index < part.time.size()) snap->sampleTime = part.time[index];
        // A sequence of as many elements as the window has bars is the window's bars.
        if (session_->data().priceData) snap->windowBars = part.inputShape.units;
        if (index < part.size())
            snap->target.assign(part.target(index), part.target(index) + part.outputs);
        Q_EMIT attentionReady(std::shared_ptr<const AttentionSnapshot>(std::move(snap)));
    } catch (const std::exception&) {
        // a failed read-back is not worth ending a run for; the next epoch tries again
    }
}

void TrainingWorker::saveWeights(const QString& path) {
    try {
        const WeightsSnapshot& kept = keeper_.result();
        if (session_ && !runFailed_ && (!keeper_.keepBest() || kept.empty())) {
            saveWeightsFile(session_->network(), path.toStdString());  // current (or loaded)
        } else if (!kept.empty()) {
            // The best epoch's host copy; after a failure (the device's copy may be lost or
            // diverged) or a run that could not start, the kept host copy.
            kept.save(path.toStdString());
        } else {
            Q_EMIT weightsSaved(false, tr("There are no trained weights yet."));
            return;
        }
        Q_EMIT weightsSaved(true, path);
    } catch (const std::exception& e) {
        Q_EMIT weightsSaved(false, q(e.what()));
    }
}

void TrainingWorker::makeBundle() {
    try {
        if (!session_)
            return Q_EMIT bundleReady(nullptr, tr("There is no trained model yet: train first."));
        // The run's result: the best epoch's weights with keepBest, else the last good ones
        // (host copies taken as each epoch completed, so the bundle names a real epoch).
        const WeightsSnapshot& kept = keeper_.result();
        if (kept.empty())
            return Q_EMIT bundleReady(nullptr,
                                      tr("There is no trained model yet: no epoch completed."));
        auto bundle = std::make_shared<const ModelBundle>(
            makeModelBundle(experiment_, session_->data(), kept.tensors(),
                            session_->network().toJson(), kept.epoch()));
        Q_EMIT bundleReady(bundle, QString());
    } catch (const std::exception& e) {
        Q_EMIT bundleReady(nullptr, q(e.what()));
    }
}

void TrainingWorker::exportOnnx(const QString& path, int batch) {
#ifdef NNWB_HAS_ONNX
    const WeightsSnapshot& result = keeper_.result();  // the best epoch's with keepBest
    if (result.empty()) {
        Q_EMIT onnxExported(false, tr("There are no trained weights yet."));
        return;
    }
    try {
        const int epoch = result.epoch();
        const std::string source =
            (keeper_.keepBest() ? "the best epoch's weights (epoch " : "the weights of epoch ") +
            std::to_string(epoch) + (keeper_.keepBest() ? ")" : "");
        const auto spec =
            session_ ? onnxexport::specFromExperimentData(experiment_, session_->data(),
                                                          result.tensors(), batch, epoch, source)
                     : onnxexport::specFromExperiment(experiment_, result.tensors(), batch, epoch,
                                                      source);
        onnxexport::exportModel(spec, path.toStdString());
        Q_EMIT onnxExported(true, path);
    } catch (const std::exception& e) {
        Q_EMIT onnxExported(false, q(e.what()));
    }
#else
    (void)path;
    (void)batch;
    Q_EMIT onnxExported(false,
                        tr("This build has no ONNX export (configure with -DNNWB_ONNX=ON)."));
#endif
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
