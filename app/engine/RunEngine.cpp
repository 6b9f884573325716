#include "app/engine/RunEngine.h"

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "app/engine/ContinueRule.h"
#include "app/engine/RunOutcome.h"
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

RunEngine::RunEngine(const Experiment& experiment, std::shared_ptr<const ExperimentData> data,
                     std::shared_ptr<Backend> backend)
    : RunEngine(std::vector<Experiment>{experiment}, std::move(data), std::move(backend)) {}

RunEngine::RunEngine(const std::vector<Experiment>& members,
                     std::shared_ptr<const ExperimentData> data, std::shared_ptr<Backend> backend) {
    session_ = std::make_unique<TrainingSession>(members, std::move(data), std::move(backend));
    data_ = session_->sharedData();
    for (size_t m = 0; m < members.size(); ++m) {
        Member mb;
        mb.experiment = members[m];
        mb.keeper =
            EpochKeeper(mb.experiment.training, session_->trainer().monitor(), static_cast<int>(m));
        members_.push_back(std::move(mb));
    }
}

std::string RunEngine::continueRefusal(const Experiment& next) const {
    if (failed_) return "the last run failed";
    if (!session_) return "its network is no longer on the device";
    if (models() > 1) return "a population cannot be continued";
    return nnwb::continueRefusal(experiment(), next);
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
    adoptLoaded(epoch);
}

void RunEngine::adoptWeights(const TensorMap& tensors, int epoch) {
    writeWeights(network(), tensors);
    adoptLoaded(epoch);
}

void RunEngine::adoptLoaded(int epoch) {
    Member& mb = members_.front();
    mb.keeper = EpochKeeper(mb.experiment.training, trainer().monitor());
    mb.keeper.adopt(network(), epoch);
    mb.trained.clear();
    failed_ = false;
}

std::string RunEngine::checkpointFingerprint() const {
    nlohmann::json j = experiment().toJson();
    if (j.contains("training")) j["training"].erase("device");
    if (j.contains("view")) j.erase("view");
    return sha256Hex(j.dump());
}

int RunEngine::resumeFromCheckpoint(const std::string& path) {
    const int epoch =
        loadCheckpoint(path, checkpointFingerprint(), trainer(), members_.front().keeper);
    resumed_ = true;
    failed_ = false;
    return epoch;
}

RunResult RunEngine::train(int epochs, StartMode mode, const RecordingOptions& recording,
                           RunEvents& events, TrainControl* control, bool sentenceErrors) {
    Trainer& tr = trainer();
    const bool continued = mode != StartMode::Restart;
    if (models() > 1 && (continued || resumed_ || !checkpointFile_.empty())) {
        failed_ = true;
        const std::string why = "a population trains from the start, without checkpoints";
        return {RunEnd::Failed, false, why, why};
    }
    Member& first = members_.front();
    if (mode == StartMode::ContinueBest && !first.keeper.best().empty()) {
        try {
            first.keeper.best().restore(network());
        } catch (const std::exception& e) {  // nothing trained yet: nothing to record
            failed_ = true;
            return {RunEnd::Failed, false, describeRunFailure(e, sentenceErrors), e.what()};
        }
    }
    const int done = tr.epochsDone();
    // A run resumed from a checkpoint keeps the early-stopping counters it had.
    if (continued && !resumed_) first.keeper.resume(done);
    if (!continued)
        for (Member& mb : members_) mb.trained.clear();
    resumed_ = false;
    epochsWanted_ = done + epochs;
    firstEpoch_ = done + 1;
    failed_ = false;
    try {
        beginRecording(recording, events);
        return epochLoop(events, control, sentenceErrors);
    } catch (...) {  // a driver's callback threw: the runs end as stopped (~RunRecorder)
        for (Member& mb : members_) mb.recorder.reset();
        throw;
    }
}

void RunEngine::beginRecording(const RecordingOptions& recording, RunEvents& events) {
    for (size_t m = 0; m < members_.size(); ++m) {
        Member& mb = members_[m];
        RecordingOptions opts = recording;
        if (models() > 1)
            opts.name = recording.name.empty()
                            ? mb.experiment.name
                            : recording.name + " [model " + std::to_string(m + 1) + "]";
        mb.recorder = std::make_unique<RunRecorder>(
            opts, [&events](const std::string& w) { events.warning(w); });
        mb.recorder->begin(mb.experiment, *data_, session_->backend().info(),
                           network().parameterCount(), epochsWanted_,
                           monitorName(mb.keeper.monitor()));
        // A continued run is recorded with the epochs it goes on from (docs/runs.md): its best
        // epoch, best figures and curves are those of the whole training of its weights.
        for (const EpochReport& r : mb.trained) mb.recorder->epoch(r);
        mb.runId = mb.recorder->recording() ? mb.recorder->runId() : 0;
        mb.result = RunResult();
        mb.open = true;
    }
}

RunResult RunEngine::epochLoop(RunEvents& events, TrainControl* control, bool sentenceErrors) {
    Trainer& tr = trainer();
    events.started(*this);
    double epochSeconds = 0.0;  // over the epochs of this call, for the run's ETA
    while (tr.epochsDone() < epochsWanted_) {
        if (control && control->stopRequested()) return finish(stopped());
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
            for (Member& mb : members_) mb.recorder->heartbeat();
            events.progress(p);
        };
        std::vector<EpochReport> reports;
        try {
            bool completed = false;
            reports = tr.runEpochAll(control, onProgress, &completed);
            if (!completed) return finish(stopped());
        } catch (const std::exception& e) {
            return fail(e, sentenceErrors);
        }
        epochSeconds += reports.front().seconds;
        bool anyOpen = false;
        for (size_t m = 0; m < members_.size(); ++m) {
            Member& mb = members_[m];
            if (!mb.open) continue;
            if (models() == 1) {  // a single run's failure ends it here
                try {
                    mb.open = !mb.keeper.afterEpoch(network(), reports[m]);
                } catch (const std::exception& e) {
                    return fail(e, sentenceErrors);
                }
            } else if (!afterEpoch(mb, reports[m], sentenceErrors)) {
                continue;
            }
            recordEpoch(mb, reports[m], events);
            anyOpen = anyOpen || mb.open;
        }
        if (!anyOpen || tr.epochsDone() >= epochsWanted_) break;
        events.betweenEpochs();
        // stopMember() may have ended every member between the epochs.
        if (std::none_of(members_.begin(), members_.end(), [](const Member& m) { return m.open; }))
            break;
    }
    return finish(RunResult());
}

void RunEngine::recordEpoch(Member& mb, const EpochReport& report, RunEvents& events) {
    if (!checkpointFile_.empty()) {
        try {
            saveCheckpoint(checkpointFile_, checkpointFingerprint(), trainer(), mb.keeper);
        } catch (const std::exception& e) {
            events.warning(std::string("the checkpoint was not written: ") + e.what());
        }
    }
    mb.recorder->epoch(report);
    mb.trained.push_back(report);
    mb.trained.back().validationOutputs.reset();  // not recorded; kept, it would pin them all
    events.epoch(report);
    if (!mb.open) {  // stopped early after this epoch
        mb.result.stoppedEarly = true;
        if (models() > 1) trainer().stopModel(mb.keeper.model());
    }
}

bool RunEngine::afterEpoch(Member& mb, EpochReport& report, bool sentenceErrors) {
    if (!report.error.empty()) {
        failMember(mb, report.error, sentenceErrors);
        return false;
    }
    try {
        mb.open = !mb.keeper.afterEpoch(network(), report);
    } catch (const std::exception& e) {
        failMember(mb, e.what(), sentenceErrors);
        return false;
    }
    return true;
}

void RunEngine::stopMember(int m) {
    Member& mb = members_.at(static_cast<size_t>(m));
    if (!mb.open) return;
    mb.open = false;
    mb.result = stopped();
    if (models() > 1) trainer().stopModel(mb.keeper.model());
}

void RunEngine::failMember(Member& mb, const std::string& error, bool sentenceErrors) {
    const TrainingError e(error);
    mb.result.end = RunEnd::Failed;
    mb.result.error = describeRunFailure(e, sentenceErrors);
    mb.result.rawError = error;
    mb.open = false;
    trainer().stopModel(mb.keeper.model());
    if (!mb.keeper.lastGood().empty()) {
        try {
            mb.keeper.lastGood().restore(network(), mb.keeper.model());
        } catch (const std::exception&) {
        }
    }
}

RunResult RunEngine::fail(const std::exception& e, bool sentenceErrors) {
    RunResult result;
    result.end = RunEnd::Failed;
    result.error = describeRunFailure(e, sentenceErrors);
    result.rawError = e.what();
    failed_ = true;
    // The host copy is the result after a failure; putting it back on the device as well is a
    // courtesy that a lost device may refuse.
    for (Member& mb : members_) {
        if (!session_ || !mb.open || mb.keeper.lastGood().empty()) continue;
        try {
            mb.keeper.lastGood().restore(network(), mb.keeper.model());
        } catch (const std::exception&) {
        }
    }
    return finish(result);
}

RunResult RunEngine::finish(const RunResult& result) {
    const nlohmann::json model = session_ ? network().toJson() : nlohmann::json::object();
    std::vector<const EpochKeeper*> keepers;
    bool trade = false;
    for (Member& mb : members_) {
        if (mb.open) {
            const bool early = mb.result.stoppedEarly;
            mb.result = result;
            mb.result.stoppedEarly =
                result.end == RunEnd::Completed && (early || mb.keeper.stoppedEarlyAt() > 0);
            mb.open = false;
        }
        mb.recorder->bundle("best", mb.keeper.best(), model);
        mb.recorder->bundle("last", mb.keeper.lastGood(), model);
        keepers.push_back(&mb.keeper);
        mb.trading = nullptr;
        mb.tradingFull = nullptr;
        trade = trade || mb.result.end != RunEnd::Failed;
    }
    // The validation part traded with each model's best epoch, stored with its run.
    std::vector<nlohmann::json> trading(members_.size());
    if (session_ && trade)
        trading = validationTradingAll(network(), trainer(), keepers, *data_, experiment().trading);
    for (size_t m = 0; m < members_.size(); ++m) {
        Member& mb = members_[m];
        const RunResult& r = mb.result;
        if (session_ && r.end != RunEnd::Failed) {
            mb.recorder->trading(trading[m]);  // with its per-bar returns (RunReturns.h)
            mb.tradingFull = trading[m];
            mb.trading = trading[m];
            if (mb.trading.is_object()) mb.trading.erase("returnSeries");  // figures only
        }
        mb.recorder->finish(storedRunStatus({r.end, r.stoppedEarly}),
                            r.end == RunEnd::Failed ? r.error : std::string());
        mb.recorder.reset();
    }
    return members_.front().result;
}

ModelBundle RunEngine::resultBundle(int m) {
    const Member& mb = member(m);
    const WeightsSnapshot& kept = mb.keeper.result();
    if (kept.empty()) throw std::logic_error("no epoch completed: there is no model to save");
    const nlohmann::json model = session_ ? network().toJson() : mb.experiment.model;
    return makeModelBundle(mb.experiment, *data_, kept.tensors(), model, kept.epoch());
}

AttentionSnapshotPtr RunEngine::attentionSnapshot(int sample, bool ofBest) {
    if (!session_) return nullptr;
    const DataSplit& split = session_->split();
    const size_t nVal = split.validation.size() ? split.validation.size() : split.train.size();
    if (nVal == 0) return nullptr;
    const size_t index = std::min(static_cast<size_t>(std::max(0, sample)), nVal - 1);
    auto snap = std::make_shared<AttentionSnapshot>();
    const int done = trainer().epochsDone();
    const WeightsSnapshot& best = members_.front().keeper.best();
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
        snap->epoch =
            done > 0 ? done : members_.front().keeper.result().epoch();  // loaded: the file's
        snap->bestEpoch = done > 0 ? members_.front().keeper.bestEpoch() == done : false;
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
