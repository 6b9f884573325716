#include "app/sweep/TrialPacking.h"

#include <algorithm>

#include "compute/BackendRegistry.h"
#include "model/MemoryCheck.h"
#include "model/Network.h"
#include "model/PopulationCheck.h"

namespace nnwb {

std::vector<size_t> packableWith(const std::vector<Experiment>& candidates, int size) {
    std::vector<size_t> out;
    if (candidates.empty()) return out;
    out.push_back(0);
    if (candidates[0].validation.walkForward()) return out;
    try {  // every layer must run as a population (docs/population.md "Which layers")
        for (const LayerPtr& l : Network::layersFromJson(candidates[0].model))
            if (!l->supportsPopulation()) return out;
    } catch (const std::exception&) {
        return out;  // the trial process says what is wrong
    }
    for (size_t i = 1; i < candidates.size() && int(out.size()) < size; ++i)
        if (populationRefusal({candidates[0], candidates[i]}).empty()) out.push_back(i);
    return out;
}

namespace {
bool populationFits(const std::vector<Experiment>& members, size_t n, const DataSplit& data,
                    const DeviceInfo& device, int share) {
    std::vector<TrainingConfig> configs;
    for (size_t m = 0; m < n; ++m) configs.push_back(members[m].training);
    DeviceInfo slotPart = device;
    slotPart.globalMemory = device.globalMemory / uint64_t(std::max(1, share));
    try {
        requireDeviceMemory(trainingMemoryNeed(members.front().model, configs, data), slotPart,
                            members.front().training.batchSize);
        return true;
    } catch (const std::exception&) {  // ComputeError (too big), or a Trainer that refuses
        return false;
    }
}
}  // namespace

int membersThatFit(const std::vector<Experiment>& members, const DataSplit& data,
                   const DeviceInfo& device, int share) {
    size_t lo = 1, hi = members.size();  // the answer lies in lo..hi; lo fits or is 1
    if (hi <= 1 || populationFits(members, hi, data, device, share)) return int(hi);
    while (hi - lo > 1) {  // hi does not fit
        const size_t mid = (lo + hi) / 2;
        (populationFits(members, mid, data, device, share) ? lo : hi) = mid;
    }
    return int(lo);
}

int PackMemory::fitting(const std::vector<Experiment>& members, const std::string& device,
                        int share) {
    const int all = int(members.size());
    if (all <= 1) return all;
    if (!listed_) {
        devices_ = listDevices();
        listed_ = true;
    }
    const DeviceInfo* info = nullptr;
    for (const DeviceInfo& d : devices_)
        if (d.id == device) info = &d;
    if (!info) return all;
    nlohmann::json key = members.front().toJson();
    for (const char* k : {"name", "model", "training", "view", "trading"}) key.erase(k);
    if (!data_ || key.dump() != dataKey_) {
        data_ = std::make_shared<const ExperimentData>(loadExperimentData(members.front()));
        dataKey_ = key.dump();
    }
    if (!data_->ok) return all;
    return membersThatFit(members, data_->split, *info, share);
}

}  // namespace nnwb
