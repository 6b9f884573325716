// Packing a sweep's trials into populations (docs/sweeps.md "Packed trials"): which queued
// trials may train in one process with the first (model/PopulationCheck.h: the same
// architecture, batch size, data, ...; never a walk-forward), and how many of them fit the
// slot's device (model/MemoryCheck.h's need of the population against the device's memory,
// shared by the slots on that device). The coordinator's thread only.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compute/Backend.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"

namespace nnwb {

// The indexes of `candidates` (in order, the first always) that can train as one population
// with candidates[0], at most `size` of them (only the first for a walk-forward or a layer
// that cannot run as a population).
std::vector<size_t> packableWith(const std::vector<Experiment>& candidates, int size);

// The largest n (1..members.size()) such that the population of the first n members fits
// `share` of `device` (its global memory divided by the slots on it, and its largest single
// allocation); 1 when even one does not fit (the trial then fails as it would alone).
int membersThatFit(const std::vector<Experiment>& members, const DataSplit& data,
                   const DeviceInfo& device, int share);

// What the coordinator needs for the memory check: each device's properties (listed once) and
// the data of the last experiment checked (loaded again only when its data settings change).
class PackMemory {
public:
    // How many of `members` fit the slot's `device` with `share` slots on it; members.size()
    // when the device or the data are unknown (the trial process says what is wrong).
    int fitting(const std::vector<Experiment>& members, const std::string& device, int share);

private:
    std::vector<DeviceInfo> devices_;
    bool listed_ = false;
    std::string dataKey_;
    std::shared_ptr<const ExperimentData> data_;
};

}  // namespace nnwb
