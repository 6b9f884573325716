#include "model/EarlyStopping.h"

#include <cmath>

#include "model/ConfigKeys.h"

namespace nnwb {

nlohmann::json EarlyStoppingConfig::toJson() const {
    return {{"enabled", enabled}, {"patience", patience}, {"minDelta", minDelta}};
}

EarlyStoppingConfig EarlyStoppingConfig::fromJson(const nlohmann::json& j) {
    const std::string path = "training.earlyStopping";
    requireObject(j, path);
    EarlyStoppingConfig c;
    c.enabled = readBoolKey(j, path, "enabled", c.enabled);
    c.patience = readIntKey(j, path, "patience", c.patience, 1, 100000);
    c.minDelta = readNumberKey(j, path, "minDelta", c.minDelta, 0.0, 1e6);
    return c;
}

bool BestEpochTracker::update(int epoch, double value) {
    lastEpoch_ = epoch;
    if (!std::isfinite(value)) return false;
    bool better = !hasBest();
    if (!better)
        better = higherIsBetter(monitor_) ? value - minDelta_ > best_ : value + minDelta_ < best_;
    if (better) {
        best_ = value;
        bestEpoch_ = epoch;
    }
    return better;
}

}  // namespace nnwb
