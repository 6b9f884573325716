// Where a sweep's trials run: slots, each one trial (or one packed population) at a time on
// one device. "cpu=N" gives N CPU slots that share the usable cores evenly (each trial process
// pinned to its share, so the CPU backend's thread pool sizes itself to it); "opencl:P:D=K"
// gives K slots on that OpenCL device, "opencl:P:*=K" K slots on every device of platform P.
// Default: one CPU slot per two usable cores (at least one), and on a host with an OpenCL GPU
// also kGpuSlotsPerDevice slots on every GPU of the first platform that has one. Pure functions
// of the device list they are given; any thread (the overloads without one list the machine's).
#pragma once

#include <string>
#include <vector>

#include "compute/Backend.h"

namespace nnwb {

struct Slot {
    std::string device;     // cpu or opencl:P:D
    std::vector<int> cpus;  // the cores a CPU slot's trial is pinned to (empty: not pinned)
    std::string label;      // "cpu#1", "opencl:0:0#2"
};

// The cores this process may run on (its affinity mask).
std::vector<int> usableCpus();
// The default slots a GPU of the machine gets (the measured sweep in docs/sweeps.md).
constexpr int kGpuSlotsPerDevice = 8;

// Throws std::invalid_argument saying what is wrong with `text` ("cpu=2,opencl:0:1=3",
// "opencl:1:*=4"). `devices`: the machine's OpenCL devices (OpenClBackend::enumerate(); others
// are skipped); only "opencl:P:*" reads them.
std::vector<Slot> parseSlots(const std::string& text, const std::vector<int>& cpus,
                             const std::vector<DeviceInfo>& devices);
std::vector<Slot> defaultSlots(const std::vector<int>& cpus,
                               const std::vector<DeviceInfo>& devices);
// The same with this machine's devices (listed only when needed: an "opencl:P:*" or the default).
std::vector<Slot> parseSlots(const std::string& text, const std::vector<int>& cpus);
std::vector<Slot> defaultSlots(const std::vector<int>& cpus);

}  // namespace nnwb
