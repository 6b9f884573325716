#include "model/LrSchedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/ConfigKeys.h"

namespace nnwb {

nlohmann::json LrScheduleConfig::toJson() const {
    return {{"type", type},        {"stepEpochs", stepEpochs},
            {"gamma", gamma},      {"warmupEpochs", warmupEpochs},
            {"floor", floor},      {"factor", factor},
            {"patience", patience}};
}

LrScheduleConfig LrScheduleConfig::fromJson(const nlohmann::json& j) {
    const std::string path = "training.lrSchedule";
    requireObject(j, path);
    LrScheduleConfig c;
    c.type = readStringKey(j, path, "type", c.type);
    if (c.type != "constant" && c.type != "step" && c.type != "cosine" && c.type != "plateau")
        throw std::invalid_argument(path + ".type: '" + c.type +
                                    "' is not one of constant, step, cosine, plateau");
    c.stepEpochs = readIntKey(j, path, "stepEpochs", c.stepEpochs, 1, 1000000);
    c.gamma = readNumberKey(j, path, "gamma", c.gamma, 1e-6, 1.0);
    c.warmupEpochs = readIntKey(j, path, "warmupEpochs", c.warmupEpochs, 0, 1000000);
    c.floor = readNumberKey(j, path, "floor", c.floor, 0.0, 10.0);
    c.factor = readNumberKey(j, path, "factor", c.factor, 1e-6, 1.0);
    c.patience = readIntKey(j, path, "patience", c.patience, 1, 100000);
    return c;
}

LrSchedule::LrSchedule(const LrScheduleConfig& config, double base, int epochs)
    : cfg_(config), base_(base), epochs_(std::max(1, epochs)), current_(base) {}

double LrSchedule::rate(int epoch) const {
    const int e = std::max(1, epoch);
    if (cfg_.type == "step") return base_ * std::pow(cfg_.gamma, (e - 1) / cfg_.stepEpochs);
    if (cfg_.type == "plateau") return current_;
    if (cfg_.type == "cosine") {
        const int w = cfg_.warmupEpochs;
        if (e <= w) return base_ * e / w;
        const double floor = std::min(cfg_.floor, base_);
        const int span = epochs_ - w;  // epochs w+1 .. epochs_ run from base down to floor
        if (span <= 1 || e >= epochs_) return span <= 1 ? base_ : floor;
        const double t = static_cast<double>(e - w - 1) / (span - 1);
        return floor + (base_ - floor) * 0.5 * (1.0 + std::cos(M_PI * t));
    }
    return base_;
}

void LrSchedule::observe(double value, Monitor monitor) {
    if (cfg_.type != "plateau" || !std::isfinite(value)) return;
    const bool better = !hasBest_ || (higherIsBetter(monitor) ? value > best_ : value < best_);
    if (better) {
        best_ = value;
        hasBest_ = true;
        wait_ = 0;
        return;
    }
    if (++wait_ >= cfg_.patience) {
        current_ = std::max(std::min(cfg_.floor, base_), current_ * cfg_.factor);
        wait_ = 0;
    }
}

}  // namespace nnwb
