#include "app/compare/ComparisonRunner.h"

#include <exception>
#include <map>
#include <thread>

#include "model/EpochKeeper.h"
#include "model/RunFailure.h"
#include "model/TrainingSession.h"

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
    auto end = [&](RunStatus status, const std::string& error) {
        std::lock_guard<std::mutex> lock(mutex_);
        records_[i].status = status;
        records_[i].error = error;
        if (cb.finished) cb.finished(i, records_[i]);
    };
    if (control.stopRequested()) return end(RunStatus::Stopped, {});
    try {
        TrainingSession session(e, data_);
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
        EpochKeeper keeper(e.training, session.trainer().monitor());
        for (int epoch = 0; epoch < e.training.epochs; ++epoch) {
            bool completed = false;
            EpochReport report = session.trainer().runEpoch(&control, {}, &completed);
            if (!completed) return end(RunStatus::Stopped, {});
            const bool stop = keeper.afterEpoch(session.network(), report);
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
