#include "app/compare/ComparisonRunner.h"

#include <exception>
#include <thread>

#include <unistd.h>

#include "app/engine/RunEngine.h"
#include "model/RunFailure.h"

namespace nnwb {

ComparisonRunner::ComparisonRunner(std::vector<Experiment> experiments,
                                   std::vector<std::string> labels,
                                   std::shared_ptr<const ExperimentData> data)
    : experiments_(std::move(experiments)), data_(std::move(data)) {
    for (size_t i = 0; i < experiments_.size(); ++i) {
        RunRecord r;
        r.label = i < labels.size() ? labels[i] : experiments_[i].name;
        r.deviceId = experiments_[i].training.device;
        records_.push_back(std::move(r));
        controls_.push_back(std::make_shared<TrainControl>());
    }
    kept_.resize(experiments_.size());
}

ComparisonRunner::~ComparisonRunner() = default;

AttentionSnapshotPtr ComparisonRunner::scoresOf(size_t run, int sample) {
    if (run >= kept_.size() || !kept_[run] || !kept_[run]->hasCompute()) return nullptr;
    if (kept_[run]->trainer().epochsDone() == 0) return nullptr;
    try {
        return kept_[run]->attentionSnapshot(sample, false);
    } catch (const std::exception&) {
        return nullptr;
    }
}

void ComparisonRunner::setRecording(const RecordingOptions& options,
                                    std::vector<std::string> files) {
    recording_ = options;
    if (recording_.source == RecordingOptions().source) recording_.source = "cli-compare";
    files_ = std::move(files);
    if (recording_.comparison.empty())
        recording_.comparison = utcNowText() + "-" + std::to_string(::getpid());
}

void ComparisonRunner::run(const Callbacks& callbacks) {
    // One scheduling policy: the runs of one device in turn, the devices in parallel.
    std::map<std::string, std::vector<size_t>> byDevice;
    for (size_t i = 0; i < experiments_.size(); ++i)
        byDevice[experiments_[i].training.device].push_back(i);
    std::vector<std::thread> threads;
    for (const auto& group : byDevice) {
        const std::vector<size_t> runs = group.second;
        threads.emplace_back([this, runs, &callbacks] {
            for (size_t i : runs) trainOne(i, callbacks);
        });
    }
    for (std::thread& t : threads) t.join();
}

void ComparisonRunner::stop(size_t run) {
    if (run < controls_.size()) controls_[run]->requestStop();  // else no such run: nothing
}

void ComparisonRunner::stopAll() {
    for (auto& c : controls_) c->requestStop();
}

std::vector<RunRecord> ComparisonRunner::records() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_;
}

std::shared_ptr<const ExperimentData> ComparisonRunner::dataFor(const Experiment& e) {
    if (data_) return data_;
    // Loaded under the lock: a second run with the same data waits for the first load
    // instead of reading the file again.
    std::lock_guard<std::mutex> lock(dataMutex_);
    std::shared_ptr<const ExperimentData>& d = loaded_[e.dataWithAbsoluteFile().dump()];
    if (!d) d = std::make_shared<const ExperimentData>(loadExperimentData(e));
    return d;
}

void ComparisonRunner::trainOne(size_t i, const Callbacks& cb) {
    const Experiment& e = experiments_[i];
    TrainControl& control = *controls_[i];
    RecordingOptions ro = recording_;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        ro.name = records_[i].label;
        records_[i].restart();
    }
    if (ro.source == RecordingOptions().source) ro.source = "cli-compare";
    ro.experimentFile = i < files_.size() ? files_[i] : std::string();
    auto end = [&](RunStatus status, const std::string& error) {
        std::lock_guard<std::mutex> lock(mutex_);
        records_[i].status = status;
        records_[i].error = error;
        if (cb.finished) cb.finished(i, records_[i]);
    };
    if (control.stopRequested()) return end(RunStatus::Stopped, {});
    std::unique_ptr<RunEngine> run;
    try {
        std::shared_ptr<const ExperimentData> data = dataFor(e);
        if (!data->ok) throw DataLoadError(data->error);
        run = std::make_unique<RunEngine>(e, data);
    } catch (const std::exception& ex) {  // could not start: not recorded, as before
        return end(RunStatus::Failed, describeRunFailure(ex, sentenceErrors_));
    }
    RunEventHandlers events;
    events.onStarted = [&](RunEngine& r) {
        std::lock_guard<std::mutex> lock(mutex_);
        RunRecord& rec = records_[i];
        rec.deviceName = r.session().backend().info().name;
        rec.parameters = r.network().parameterCount();
        rec.trainSamples = r.data().split.train.size();
        rec.validationSamples = r.data().split.validation.size();
        rec.status = RunStatus::Running;
        if (cb.started) cb.started(i, rec);
    };
    events.onProgress = [&](const TrainingProgress& p) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (cb.progress) cb.progress(i, p);
    };
    events.onEpoch = [&](const EpochReport& report) {
        const int sample = scoreSample_.load();
        AttentionSnapshotPtr snap;
        if (sample >= 0 && cb.scores) {
            try {
                snap = run->attentionSnapshot(sample, false);
            } catch (const std::exception&) {  // a failed read-back: the next epoch tries again
            }
        }
        std::lock_guard<std::mutex> lock(mutex_);
        records_[i].epochs.push_back(report);
        if (cb.epoch) cb.epoch(i, records_[i], report);
        if (snap) cb.scores(i, snap);
    };
    events.onWarning = [&](const std::string& message) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (warned_) return;
        warned_ = true;
        if (cb.warning) cb.warning(message);
    };
    const RunResult result =
        run->train(e.training.epochs, StartMode::Restart, ro, events, &control, sentenceErrors_);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        records_[i].trading = run->trading();
    }
    if (keepRuns_ && result.end != RunEnd::Failed) kept_[i] = std::move(run);
    end(runStatusOf(result.end), result.error);
}

}  // namespace nnwb
