#include "model/LrSchedule.h"

#include <algorithm>
#include <cmath>

namespace nnwb {

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

nlohmann::json LrSchedule::state() const {
    return {{"current", current_}, {"best", best_}, {"hasBest", hasBest_}, {"wait", wait_}};
}

void LrSchedule::setState(const nlohmann::json& s) {
    current_ = s.at("current").get<double>();
    best_ = s.at("best").get<double>();
    hasBest_ = s.at("hasBest").get<bool>();
    wait_ = s.at("wait").get<int>();
}

}  // namespace nnwb
