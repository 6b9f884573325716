// Where a sweep's trials run: slots, each one trial at a time on one device. "cpu=N" gives N
// CPU slots that share the usable cores evenly (each trial process pinned to its share, so the
// CPU backend's thread pool sizes itself to it); "opencl:P:D=K" gives K slots on that OpenCL
// device. Default: one CPU slot per two usable cores (at least one). Pure functions; any
// thread.
#pragma once

#include <string>
#include <vector>

namespace nnwb {

struct Slot {
    std::string device;     // cpu or opencl:P:D
    std::vector<int> cpus;  // the cores a CPU slot's trial is pinned to (empty: not pinned)
    std::string label;      // "cpu#1", "opencl:0:0#2"
};

// The cores this process may run on (its affinity mask).
std::vector<int> usableCpus();
// Throws std::invalid_argument saying what is wrong with `text` ("cpu=2,opencl:0:1=3").
std::vector<Slot> parseSlots(const std::string& text, const std::vector<int>& cpus);
std::vector<Slot> defaultSlots(const std::vector<int>& cpus);

}  // namespace nnwb
