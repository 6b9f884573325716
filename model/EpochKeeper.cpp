#include "model/EpochKeeper.h"

#include <algorithm>
#include <cstdio>

namespace nnwb {

EpochKeeper::EpochKeeper(const TrainingConfig& config, Monitor monitor, int model)
    : cfg_(config), tracker_(monitor, config.earlyStopping.minDelta), model_(model) {}

bool EpochKeeper::afterEpoch(Network& net, EpochReport& report) {
    std::string problem;
    if (!lastGood_.capture(net, report.epoch, &problem, model_))
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
    if (!lastGood_.capture(net, epoch, &problem, model_))
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

namespace {
void putSnapshot(const WeightsSnapshot& s, const std::string& prefix, TensorMap& out,
                 nlohmann::json& state) {
    state[prefix] = {{"epoch", s.epoch()}, {"model", s.model()}, {"empty", s.empty()}};
    for (const auto& [name, t] : s.tensors()) out[prefix + "." + name] = t;
}

void takeSnapshot(WeightsSnapshot& s, const std::string& prefix, const TensorMap& in,
                  const nlohmann::json& state) {
    const nlohmann::json& j = state.at(prefix);
    if (j.at("empty").get<bool>()) {
        s.clear();
        return;
    }
    TensorMap tensors;
    const std::string start = prefix + ".";
    for (auto it = in.lower_bound(start); it != in.end() && it->first.rfind(start, 0) == 0; ++it)
        tensors[it->first.substr(start.size())] = it->second;
    if (tensors.empty()) throw std::runtime_error("the " + prefix + " weights are missing");
    s.assign(std::move(tensors), j.at("model").get<std::string>(), j.at("epoch").get<int>());
}
}  // namespace

nlohmann::json EpochKeeper::saveState(TensorMap& tensors) const {
    nlohmann::json s = {{"trackerBest", tracker_.bestValue()},
                        {"trackerBestEpoch", tracker_.bestEpoch()},
                        {"trackerLastEpoch", tracker_.lastEpoch()},
                        {"lastEpoch", lastEpoch_},
                        {"stoppedAt", stoppedAt_},
                        {"patienceFrom", patienceFrom_}};
    putSnapshot(lastGood_, "last", tensors, s);
    putSnapshot(best_, "best", tensors, s);
    return s;
}

void EpochKeeper::loadState(const nlohmann::json& s, const TensorMap& tensors) {
    tracker_.restore(s.at("trackerBest").get<double>(), s.at("trackerBestEpoch").get<int>(),
                     s.at("trackerLastEpoch").get<int>());
    lastEpoch_ = s.at("lastEpoch").get<int>();
    stoppedAt_ = s.at("stoppedAt").get<int>();
    patienceFrom_ = s.at("patienceFrom").get<int>();
    takeSnapshot(lastGood_, "last", tensors, s);
    takeSnapshot(best_, "best", tensors, s);
}

}  // namespace nnwb
