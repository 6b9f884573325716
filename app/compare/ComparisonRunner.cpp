#include "app/compare/ComparisonRunner.h"

#include <exception>
#include <map>
#include <thread>

#include <unistd.h>

#include "model/EpochKeeper.h"
#include "model/Monitor.h"
#include "model/RunFailure.h"
#include "model/TrainingSession.h"
#include "model/WeightsSnapshot.h"

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
}

void ComparisonRunner::setRecording(const RecordingOptions& options,
                                    std::vector<std::string> files) {
    recording_ = options;
    files_ = std::move(files);
    if (recording_.comparison.empty())
        recording_.comparison = utcNowText() + "-" + std::to_string(::getpid());
}

void ComparisonRunner::run(const Callbacks& callbacks) {
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
    controls_.at(run)->requestStop();
}

std::vector<RunRecord> ComparisonRunner::records() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_;
}

void ComparisonRunner::trainOne(size_t i, const Callbacks& cb) {
    const Experiment& e = experiments_[i];
    TrainControl& control = *controls_[i];
    RecordingOptions ro = recording_;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        ro.name = records_[i].label;
    }
    ro.source = "cli-compare";
    ro.experimentFile = i < files_.size() ? files_[i] : std::string();
    RunRecorder recorder(ro, [this, &cb](const std::string& message) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (warned_) return;
        warned_ = true;
        if (cb.warning) cb.warning(message);
    });
    std::unique_ptr<EpochKeeper> keeper;  // once the network is built
    nlohmann::json model;
    auto end = [&](RunStatus status, const std::string& error) {
        if (keeper) {
            recorder.bundle("best", keeper->best(), model);
            recorder.bundle("last", keeper->lastGood(), model);
        }
        const bool early = keeper && keeper->stoppedEarlyAt() > 0;
        recorder.finish(status == RunStatus::Completed
                            ? (early ? runstatus::kStoppedEarly : runstatus::kCompleted)
                        : status == RunStatus::Failed ? runstatus::kFailed
                                                      : runstatus::kStopped,
                        error);
        std::lock_guard<std::mutex> lock(mutex_);
        records_[i].status = status;
        records_[i].error = error;
        if (cb.finished) cb.finished(i, records_[i]);
    };
    if (control.stopRequested()) return end(RunStatus::Stopped, {});
    try {
        TrainingSession session(e, data_);
        recorder.begin(e, *data_, session.backend().info(), session.network().parameterCount(),
                       e.training.epochs, monitorName(session.trainer().monitor()));
        model = session.network().toJson();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            RunRecord& r = records_[i];
            const DeviceInfo dev = session.backend().info();
            r.deviceName = dev.name;
            r.parameters = session.network().parameterCount();
            r.trainSamples = session.split().train.size();
            r.validationSamples = session.split().validation.size();
            r.status = RunStatus::Running;
            if (cb.started) cb.started(i, r);
        }
        keeper = std::make_unique<EpochKeeper>(e.training, session.trainer().monitor());
        for (int epoch = 0; epoch < e.training.epochs; ++epoch) {
            bool completed = false;
            EpochReport report = session.trainer().runEpoch(&control, {}, &completed);
            if (!completed) return end(RunStatus::Stopped, {});
            const bool stop = keeper->afterEpoch(session.network(), report);
            recorder.epoch(report);
            {
                std::lock_guard<std::mutex> lock(mutex_);
                records_[i].epochs.push_back(report);
                if (cb.epoch) cb.epoch(i, records_[i], report);
            }
            if (stop) break;
        }
    } catch (const std::exception& ex) {
        return end(RunStatus::Failed, describeRunFailure(ex));
    }
    end(RunStatus::Completed, {});
}

}  // namespace nnwb
