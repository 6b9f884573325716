#include "app/core/TrainingWorker.h"

#include <algorithm>
#include <exception>

#include <QMetaObject>
#include <QTemporaryDir>

#include "app/core/QtText.h"
#include "app/engine/RunSubject.h"
#include "app/ensemble/EnsembleKeep.h"
#include "model/ModelBundle.h"
#include "model/Monitor.h"
#include "model/NetworkWeights.h"
#ifdef NNWB_HAS_ONNX
#include "app/export/ExportSource.h"
#include "app/export/Mql5Expert.h"
#include "app/export/OnnxExport.h"
#endif
#include "model/RunFailure.h"

namespace nnwb {

TrainingWorker::TrainingWorker(QObject* parent) : TrainingSignals(parent) {}

TrainingWorker::~TrainingWorker() = default;

void TrainingWorker::start(const Experiment& experiment, std::shared_ptr<TrainControl> control,
                           const RecordingOptions& recording) {
    if (running_) {  // posted while a run goes: that run stops first
        deferred_ = [this, experiment, control, recording] {
            start(experiment, control, recording);
        };
        if (control_) control_->requestStop();
        return;
    }
    // The previous run's device objects go first (they hold device memory); its last good
    // weights stay on the host until this run has started, so a run that cannot start loses
    // nothing that could still be saved.
    if (engine_) engine_->releaseCompute();
    memberView_.reset();  // the last ensemble's member shown in the heatmaps
    experiment_ = experiment;
    control_ = std::move(control);
    if (experiment_.validation.walkForward()) {
        engine_.reset();  // a walk-forward keeps no model: Continue and exports have none
        runFailed_ = false;
        running_ = true;
        QMetaObject::invokeMethod(
            this, [this, recording] { walkForward(recording); }, Qt::QueuedConnection);
        return;
    }
    std::unique_ptr<RunEngine> next;
    try {
        const int n = experiment_.training.ensemble;
        next = n > 1 ? std::make_unique<RunEngine>(
                           seedEnsembleMembers(experiment_, n, "training.ensemble"))
                     : std::make_unique<RunEngine>(experiment_);
    } catch (const std::exception& e) {
        runFailed_ = true;
        return finish(RunEnd::Failed, q(describeRunFailure(e, true)));
    }
    engine_ = std::move(next);
    runFailed_ = false;
    trainSoon(experiment_.training.epochs, StartMode::Restart, recording);
}

void TrainingWorker::trainSoon(int epochs, StartMode mode, const RecordingOptions& recording) {
    // From the event loop, so that start() returns before the first epoch (as a slot called
    // directly, e.g. by a test, expects); the run counts as going from now on.
    running_ = true;
    QMetaObject::invokeMethod(
        this, [this, epochs, mode, recording] { train(epochs, mode, recording); },
        Qt::QueuedConnection);
}

void TrainingWorker::continueRun(const Experiment& experiment,
                                 std::shared_ptr<TrainControl> control, StartMode mode,
                                 const RecordingOptions& recording) {
    // A walk-forward trains every fold from the start: there is nothing to continue.
    if (mode == StartMode::Restart || experiment.validation.walkForward())
        return start(experiment, std::move(control), recording);
    if (running_) {
        deferred_ = [this, experiment, control, mode, recording] {
            continueRun(experiment, control, mode, recording);
        };
        if (control_) control_->requestStop();
        return;
    }
    control_ = std::move(control);
    // The one Continue rule (app/engine/ContinueRule.h), the window's too.
    const std::string refusal = runFailed_ ? std::string("the last run failed")
                                : engine_  ? engine_->continueRefusal(experiment)
                                           : std::string("there is no trained run to continue");
    if (!refusal.empty())
        return finish(
            RunEnd::Failed,
            tr("Cannot continue: %1. Train with \"Restart\" instead; the kept weights are "
               "still there.")
                .arg(q(refusal)));
    memberView_.reset();
    train(experiment.training.epochs, mode, recording);
}

void TrainingWorker::train(int epochs, StartMode mode, const RecordingOptions& recording) {
    if (engine_->models() > 1) return trainEnsemble(epochs, recording);
    running_ = true;
    RunEventHandlers events;
    events.onStarted = [this, mode](RunEngine&) { emitRunStarted(mode != StartMode::Restart); };
    events.onProgress = [this](const TrainingProgress& p) { Q_EMIT progress(p); };
    events.onEpoch = [this](const EpochReport& r) {
        Q_EMIT epochFinished(r);
        emitScores(scoreSample_.load());
    };
    events.onBetween = [this] { calls_.run(); };
    events.onWarning = [this](const std::string& m) { Q_EMIT recordingWarning(q(m)); };
    const RunResult result =
        engine_->train(epochs, mode, recording, events, control_.get(), /*sentenceErrors=*/true);
    if (result.end == RunEnd::Stopped) restoreLastEpoch();
    running_ = false;
    if (result.end == RunEnd::Failed)
        fail(q(result.error));
    else
        finish(result.end,
               result.end == RunEnd::Completed ? q(engine_->keeper().summary()) : QString());
    runDeferred();
}

void TrainingWorker::restoreLastEpoch() {
    // A stop inside an epoch leaves that epoch's half-trained weights in the network: the last
    // completed epoch's (the keeper's host copy, the store's "last" model) go back, so that
    // the heatmaps, signals, Export Weights and Continue show and use that epoch's weights.
    if (!hasCompute()) return;
    const WeightsSnapshot& last = engine_->keeper().lastGood();
    if (!last.empty() && last.epoch() == engine_->trainer().epochsDone())
        last.restore(engine_->network());
}

void TrainingWorker::runDeferred() {
    if (!deferred_) return;
    std::function<void()> next = std::move(deferred_);
    deferred_ = nullptr;
    next();
}

RunInfo TrainingWorker::runInfo(RunEngine& run, bool continued) {
    const RunSubject subject = runSubject(run);  // what the run trains on, as the CLI says
    RunInfo info;
    info.recordedRunId = run.recordedRunId();
    info.deviceId = q(subject.deviceId);
    info.deviceName = q(subject.deviceName);
    info.dataDescription = q(subject.data);
    info.parameters = subject.parameters;
    info.trainSamples = subject.trainSamples;
    info.validationSamples = subject.validationSamples;
    info.epochs = run.epochsWanted();
    info.firstEpoch = run.firstEpoch();
    info.continued = continued;
    info.input = run.network().inputShape();
    const ExperimentData& data = run.data();
    if (data.priceData && data.bars) {
        info.bars = data.bars;
        info.fractalRule = data.dataConfig.fractalRule();
        info.trainFirstBar = data.trainFirstBar;
        info.trainLastBar = data.trainLastBar;
        info.validationFirstBar = data.validationFirstBar;
        info.validationLastBar = data.validationLastBar;
    }
    return info;
}

void TrainingWorker::emitRunStarted(bool continued) {
    engine_->trainer().setKeepValidationOutputs(true);  // the price chart's signals
    Q_EMIT runStarted(runInfo(continued));
}

void TrainingWorker::emitModelSignals() {
    const ExperimentData& data = engine_->data();
    if (!hasCompute() || !data.priceData || !data.bars || data.split.validation.size() == 0) return;
    EpochReport report;
    report.epoch = report.bestEpoch = engine_->keeper().result().epoch();
    report.isBest = true;
    try {
        auto outputs = std::make_shared<std::vector<float>>();
        report.validation =
            engine_->trainer().evaluate(data.split.validation, nullptr, outputs.get());
        report.validationOutputs = std::move(outputs);
    } catch (const std::exception&) {
        return;  // the chart then says it has no signals; Predict… still works
    }
    Q_EMIT modelSignals(runInfo(false), report);
}

void TrainingWorker::loadWeights(const Experiment& experiment, const QString& path, int epoch) {
    if (running_) {
        Q_EMIT weightsLoaded(false, tr("A run is going; stop it before loading weights."));
        return;
    }
    // A fresh network, optimizer and epoch count for the loaded weights; the kept run is
    // replaced only once the file has passed every check.
    std::unique_ptr<RunEngine> next;
    try {
        next = std::make_unique<RunEngine>(experiment);
        // The loaded weights are the result (Predict, Export Model, ONNX, Export Weights),
        // named by the epoch given, else the one a model bundle says (0 for plain weights).
        next->adoptWeightsFile(path.toStdString(), epoch);
    } catch (const std::exception& e) {
        Q_EMIT weightsLoaded(false, q(e.what()));
        return;
    }
    engine_ = std::move(next);
    memberView_.reset();
    experiment_ = experiment;
    runFailed_ = false;
    Q_EMIT weightsLoaded(true, path);
    emitModelSignals();
}

RunEngine* TrainingWorker::scoresEngine() const {
    if (memberView_) return memberView_.get();
    return engine_ && engine_->hasCompute() && engine_->models() == 1 ? engine_.get() : nullptr;
}

void TrainingWorker::requestScores(int sample) {
    scoreSample_.store(sample);
    // After an epoch, or on loaded weights (no epoch of this session, a kept result).
    RunEngine* run = scoresEngine();
    if (run && (run->trainer().epochsDone() > 0 || !run->keeper().result().empty()))
        emitScores(sample);
}

void TrainingWorker::emitScores(int sample) {
    RunEngine* run = scoresEngine();
    if (!run) return;
    try {
        AttentionSnapshotPtr snap = run->attentionSnapshot(sample, scoresOfBest_.load());
        if (snap) Q_EMIT attentionReady(snap);
    } catch (const std::exception&) {
        // a failed read-back is not worth ending a run for; the next epoch tries again
    }
}

void TrainingWorker::saveWeights(const QString& path) {
    try {
        if (!engine_) {
            Q_EMIT weightsSaved(false, tr("There are no trained weights yet."));
            return;
        }
        const EpochKeeper& keeper = engine_->keeper();
        const WeightsSnapshot& kept = keeper.result();
        if (hasCompute() && !runFailed_ && (!keeper.keepBest() || kept.empty())) {
            saveWeightsFile(engine_->network(), path.toStdString());  // current (or loaded)
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
        if (!hasCompute())
            return Q_EMIT bundleReady(nullptr, tr("There is no trained model yet: train first."));
        // The run's result: the best epoch's weights with keepBest, else the last good ones
        // (host copies taken as each epoch completed, so the bundle names a real epoch).
        const WeightsSnapshot& kept = engine_->keeper().result();
        if (kept.empty())
            return Q_EMIT bundleReady(nullptr,
                                      tr("There is no trained model yet: no epoch completed."));
        auto bundle = std::make_shared<const ModelBundle>(engine_->resultBundle());
        Q_EMIT bundleReady(bundle, QString());
    } catch (const std::exception& e) {
        Q_EMIT bundleReady(nullptr, q(e.what()));
    }
}

void TrainingWorker::exportOnnx(const QString& path, int batch) {
#ifdef NNWB_HAS_ONNX
    if (!engine_ || engine_->keeper().result().empty()) {
        Q_EMIT onnxExported(false, tr("There are no trained weights yet."));
        return;
    }
    try {
        const EpochKeeper& keeper = engine_->keeper();
        const WeightsSnapshot& result = keeper.result();  // the best epoch's with keepBest
        const int epoch = result.epoch();
        const std::string source =
            (keeper.keepBest() ? "the best epoch's weights (epoch " : "the weights of epoch ") +
            std::to_string(epoch) + (keeper.keepBest() ? ")" : "");
        const auto spec =
            hasCompute() ? onnxexport::specFromExperimentData(
                               experiment_, engine_->data(), result.tensors(), batch, epoch, source)
                         : onnxexport::specFromExperiment(experiment_, result.tensors(), batch,
                                                          epoch, source);
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

void TrainingWorker::exportMql5(const QString& dir) {
#ifdef NNWB_HAS_ONNX
    if (!hasCompute() || engine_->keeper().result().empty()) {
        Q_EMIT mql5Exported(false, tr("There are no trained weights yet."));
        return;
    }
    try {
        const WeightsSnapshot& kept = engine_->keeper().result();
        const ModelBundle bundle = engine_->resultBundle();
        const std::string source = "epoch " + std::to_string(kept.epoch()) + " of " +
                                   (bundle.experiment.empty() ? "nnwb" : bundle.experiment);
        // Batch 1: the expert runs one window per call, as the CLI's --mql5.
        const auto written =
            onnxexport::writeMql5Export(onnxexport::specFromBundle(bundle, 1, source), bundle,
                                        dir.toStdString(), experiment_.trading);
        Q_EMIT mql5Exported(true, q(written.expertPath));
    } catch (const std::exception& e) {
        Q_EMIT mql5Exported(false, q(e.what()));
    }
#else
    (void)dir;
    Q_EMIT mql5Exported(false,
                        tr("This build has no ONNX export (configure with -DNNWB_ONNX=ON)."));
#endif
}

void TrainingWorker::fail(const QString& message) {
    // The engine kept the last good weights (and put them back on the device if it answered).
    QString text = message;
    const EpochKeeper& keeper = engine_->keeper();
    const WeightsSnapshot& lastGood = keeper.lastGood();
    if (!lastGood.empty()) {
        if (keeper.result().epoch() != lastGood.epoch())
            text += tr("\nThe weights of epoch %1, the best one, were kept; Export Weights "
                       "saves them.")
                        .arg(keeper.result().epoch());
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
    Q_EMIT runFinished(end, message);
}

}  // namespace nnwb
