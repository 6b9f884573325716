// Learning-rate schedules, applied once per epoch before its first batch: constant; step
// (× gamma every stepEpochs epochs); cosine from the base rate down to `floor` over the run's
// epochs after optional linear warm-up epochs; reduce on plateau (× factor after `patience`
// epochs without an improvement of the monitored metric, never below `floor`). Settings are the
// experiment's training.lrSchedule section. Used by the thread that runs the Trainer.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/Monitor.h"

namespace nnwb {

struct LrScheduleConfig {
    std::string type = "constant";  // constant | step | cosine | plateau
    int stepEpochs = 10;            // step: epochs between reductions
    double gamma = 0.5;             // step: factor per reduction
    int warmupEpochs = 0;           // cosine: linear warm-up from base/warmup to base
    double floor = 0.0;             // cosine: final rate; plateau: lowest rate
    double factor = 0.5;            // plateau: factor per reduction
    int patience = 3;               // plateau: epochs without improvement before a reduction
};

class LrSchedule {
public:
    // `epochs`: the run's length (the cosine's span); `base`: the optimizer's learning rate.
    LrSchedule(const LrScheduleConfig& config, double base, int epochs);
    // The rate of 1-based `epoch`. Plateau: the rate after the epochs observed so far.
    double rate(int epoch) const;
    // Plateau only: the monitored value of the epoch that just finished.
    void observe(double value, Monitor monitor);
    // The plateau state, for checkpoints (model/TrainCheckpoint.h): {current, best, hasBest,
    // wait}; doubles round-trip exactly through nlohmann::json.
    nlohmann::json state() const;
    void setState(const nlohmann::json& state);

private:
    LrScheduleConfig cfg_;
    double base_;
    int epochs_;
    double current_;  // plateau
    double best_ = 0.0;
    bool hasBest_ = false;
    int wait_ = 0;
};

}  // namespace nnwb
