#include "model/EpochKeeper.h"

#include <algorithm>
#include <cstdio>

namespace nnwb {

EpochKeeper::EpochKeeper(const TrainingConfig& config, Monitor monitor)
    : cfg_(config), tracker_(monitor, config.earlyStopping.minDelta) {}

bool EpochKeeper::afterEpoch(Network& net, EpochReport& report) {
    std::string problem;
    if (!lastGood_.capture(net, report.epoch, &problem))
        throw TrainingError("the weights became NaN or infinite in epoch " +
                            std::to_string(report.epoch) + " (checked after its last batch); " +
                            "first non-finite value: " + problem);
    lastEpoch_ = report.epoch;
    const Monitor m = tracker_.monitor();
    report.isBest = tracker_.update(report.epoch, monitorValue(m, report.train, report.validation));
    if (report.isBest) best_ = lastGood_;  // a host copy: no second read from the device
    report.bestEpoch = tracker_.bestEpoch();
    const int since = report.epoch - std::max(tracker_.bestEpoch(), patienceFrom_);
    report.stoppedEarly =
        cfg_.earlyStopping.enabled && tracker_.hasBest() && since >= cfg_.earlyStopping.patience;
    stoppedAt_ = report.stoppedEarly ? report.epoch : 0;
    return report.stoppedEarly;
}

void EpochKeeper::adopt(Network& net, int epoch) {
    std::string problem;
    if (!lastGood_.capture(net, epoch, &problem))
        throw TrainingError("the loaded weights are not usable: " + problem);
    best_ = lastGood_;
    lastEpoch_ = epoch;
}

const WeightsSnapshot& EpochKeeper::result() const {
    return cfg_.keepBest && !best_.empty() ? best_ : lastGood_;
}

std::string EpochKeeper::summary() const {
    if (lastEpoch_ == 0) return {};
    char value[64] = "";
    if (tracker_.hasBest())
        std::snprintf(value, sizeof value, " (%s %.6g)", monitorLabel(tracker_.monitor()).c_str(),
                      tracker_.bestValue());
    const std::string best =
        tracker_.hasBest() ? "best epoch " + std::to_string(tracker_.bestEpoch()) : "no best epoch";
    if (stoppedAt_ > 0)
        return "stopped early at epoch " + std::to_string(stoppedAt_) + ", " + best + value;
    return best + " of " + std::to_string(lastEpoch_) + value;
}

}  // namespace nnwb
