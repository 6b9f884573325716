#include "app/engine/RunEngine.h"

#include <algorithm>
#include <exception>

#include "app/engine/ContinueRule.h"
#include "app/engine/RunTrading.h"
#include "app/runs/Sha256.h"
#include "model/ModelBundle.h"
#include "model/Monitor.h"
#include "model/NetworkWeights.h"
#include "model/RunFailure.h"
#include "model/TrainCheckpoint.h"

namespace nnwb {

namespace {
RunResult stopped() {
    RunResult r;
    r.end = RunEnd::Stopped;
    return r;
}
}  // namespace

RunEngine::RunEngine(const Experiment& experiment, std::shared_ptr<const ExperimentData> data)
    : experiment_(experiment) {
    session_ = std::make_unique<TrainingSession>(experiment_, std::move(data));
    data_ = session_->sharedData();
    keeper_ = EpochKeeper(experiment_.training, session_->trainer().monitor());
}

std::string RunEngine::continueRefusal(const Experiment& next) const {
    if (failed_) return "the last run failed";
    if (!session_) return "its network is no longer on the device";
    return nnwb::continueRefusal(experiment_, next);
}

void RunEngine::adoptWeightsFile(const std::string& path, int epoch) {
    loadWeightsFile(network(), path);
    if (epoch < 0) {
        try {
            epoch = ModelBundle::load(path).epoch;
        } catch (const ModelBundleError&) {
            epoch = 0;
        }
    }
    keeper_ = EpochKeeper(experiment_.training, trainer().monitor());
    keeper_.adopt(network(), epoch);
    failed_ = false;
}

std::string RunEngine::checkpointFingerprint() const {
    nlohmann::json j = experiment_.toJson();
    if (j.contains("training")) j["training"].erase("device");
    if (j.contains("view")) j.erase("view");
    return sha256Hex(j.dump());
}

int RunEngine::resumeFromCheckpoint(const std::string& path) {
    const int epoch = loadCheckpoint(path, checkpointFingerprint(), trainer(), keeper_);
    resumed_ = true;
    failed_ = false;
    return epoch;
}

RunResult RunEngine::train(int epochs, StartMode mode, const RecordingOptions& recording,
                           RunEvents& events, TrainControl* control, bool sentenceErrors) {
    Trainer& tr = trainer();
    const bool continued = mode != StartMode::Restart;
    if (mode == StartMode::ContinueBest && !keeper_.best().empty()) {
        try {
            keeper_.best().restore(network());
        } catch (const std::exception& e) {  // nothing trained yet: nothing to record
            failed_ = true;
            return {RunEnd::Failed, false, describeRunFailure(e, sentenceErrors), e.what()};
        }
    }
    const int done = tr.epochsDone();
    // A run resumed from a checkpoint keeps the early-stopping counters it had.
    if (continued && !resumed_) keeper_.resume(done);
    resumed_ = false;
    epochsWanted_ = done + epochs;
    firstEpoch_ = done + 1;
    failed_ = false;
    RunRecorder recorder(recording, [&events](const std::string& m) { events.warning(m); });
    recorder.begin(experiment_, *data_, session_->backend().info(), network().parameterCount(),
                   epochsWanted_, monitorName(keeper_.monitor()));
    recordedRunId_ = recorder.recording() ? recorder.runId() : 0;
    events.started(*this);
    double epochSeconds = 0.0;  // over the epochs of this call, for the run's ETA
    while (tr.epochsDone() < epochsWanted_) {
        if (control && control->stopRequested()) return finish(stopped(), recorder);
        const int epoch = tr.epochsDone() + 1;
        const double perEpochSoFar =
            epoch > firstEpoch_ ? epochSeconds / (epoch - firstEpoch_) : 0.0;
        const int remainingAfter = std::max(0, epochsWanted_ - epoch);
        auto onProgress = [&](const ProgressReport& r) {
            TrainingProgress p;
            p.epoch = r.epoch;
            p.epochs = epochsWanted_;
            p.done = r.done;
            p.total = r.total;
            p.samplesPerSecond = r.samplesPerSecond;
            p.epochEtaSeconds = r.etaSeconds;
            double perEpoch = perEpochSoFar;
            if (perEpoch <= 0 && r.samplesPerSecond > 0) perEpoch = r.total / r.samplesPerSecond;
            p.runEtaSeconds = r.etaSeconds + remainingAfter * perEpoch;
            recorder.heartbeat();
            events.progress(p);
        };
        EpochReport report;
        bool stopEarly = false;
        try {
            bool completed = false;
            report = tr.runEpoch(control, onProgress, &completed);
            if (!completed) return finish(stopped(), recorder);
            stopEarly = keeper_.afterEpoch(network(), report);
        } catch (const std::exception& e) {
            return fail(e, sentenceErrors, recorder);
        }
        epochSeconds += report.seconds;
        if (!checkpointFile_.empty()) {
            try {
                saveCheckpoint(checkpointFile_, checkpointFingerprint(), tr, keeper_);
            } catch (const std::exception& e) {
                events.warning(std::string("the checkpoint was not written: ") + e.what());
            }
        }
        recorder.epoch(report);
        events.epoch(report);
        if (stopEarly || tr.epochsDone() >= epochsWanted_) break;
        events.betweenEpochs();
    }
    RunResult result;
    result.stoppedEarly = keeper_.stoppedEarlyAt() > 0;
    return finish(result, recorder);
}

RunResult RunEngine::fail(const std::exception& e, bool sentenceErrors, RunRecorder& recorder) {
    RunResult result;
    result.end = RunEnd::Failed;
    result.error = describeRunFailure(e, sentenceErrors);
    result.rawError = e.what();
    failed_ = true;
    // The host copy is the result after a failure; putting it back on the device as well is a
    // courtesy that a lost device may refuse.
    if (session_ && !keeper_.lastGood().empty()) {
        try {
            keeper_.lastGood().restore(network());
        } catch (const std::exception&) {
        }
    }
    return finish(result, recorder);
}

RunResult RunEngine::finish(RunResult result, RunRecorder& recorder) {
    const nlohmann::json model = session_ ? network().toJson() : nlohmann::json::object();
    recorder.bundle("best", keeper_.best(), model);
    recorder.bundle("last", keeper_.lastGood(), model);
    // The validation part traded with the best epoch's weights, stored with the run.
    trading_ = nullptr;
    if (session_ && result.end != RunEnd::Failed && recorder.active()) {
        trading_ = validationTrading(network(), trainer(), keeper_, *data_, experiment_.trading);
        recorder.trading(trading_);
    }
    // The one mapping from how a run ended to its stored status.
    const char* status = result.end == RunEnd::Failed    ? runstatus::kFailed
                         : result.end == RunEnd::Stopped ? runstatus::kStopped
                         : result.stoppedEarly           ? runstatus::kStoppedEarly
                                                         : runstatus::kCompleted;
    recorder.finish(status, result.end == RunEnd::Failed ? result.error : std::string());
    return result;
}

AttentionSnapshotPtr RunEngine::attentionSnapshot(int sample, bool ofBest) {
    if (!session_) return nullptr;
    const DataSplit& split = session_->split();
    const size_t nVal = split.validation.size() ? split.validation.size() : split.train.size();
    if (nVal == 0) return nullptr;
    const size_t index = std::min(static_cast<size_t>(std::max(0, sample)), nVal - 1);
    auto snap = std::make_shared<AttentionSnapshot>();
    const int done = trainer().epochsDone();
    const WeightsSnapshot& best = keeper_.best();
    Network& net = network();
    if (ofBest && !best.empty() && best.epoch() != done) {
        // The best epoch's weights for this one forward pass, then the latest ones back (host
        // copies; the optimizer state is untouched).
        WeightsSnapshot latest;
        if (!latest.capture(net, done)) return nullptr;
        best.restore(net);
        try {
            snap->layers = trainer().validationScores(index, &snap->outputs);
        } catch (...) {
            latest.restore(net);
            throw;
        }
        latest.restore(net);
        snap->epoch = best.epoch();
        snap->bestEpoch = true;
    } else {
        snap->layers = trainer().validationScores(index, &snap->outputs);
        snap->epoch = done > 0 ? done : keeper_.result().epoch();  // loaded: the file's
        snap->bestEpoch = done > 0 ? keeper_.bestEpoch() == done : false;
    }
    if (snap->layers.empty()) return nullptr;
    snap->sample = static_cast<int>(index);
    snap->validationSamples = nVal;
    const SampleSet& part = split.validation.size() ? split.validation : split.train;
    if (index < part.time.size()) snap->sampleTime = part.time[index];
    // A sequence of as many elements as the window has bars is the window's bars.
    if (data_->priceData) snap->windowBars = part.inputShape.units;
    if (index < part.size())
        snap->target.assign(part.target(index), part.target(index) + part.outputs);
    return snap;
}

}  // namespace nnwb
