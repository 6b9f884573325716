#include "app/sweep/Slots.h"

#include <sched.h>

#include <algorithm>
#include <stdexcept>

#include "compute/OpenClBackend.h"

namespace nnwb {

std::vector<int> usableCpus() {
    std::vector<int> out;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) out.push_back(c);
    if (out.empty()) out.push_back(0);
    return out;
}

namespace {
void addCpuSlots(std::vector<Slot>& slots, int n, const std::vector<int>& cpus) {
    const int c = int(cpus.size());
    for (int i = 0; i < n; ++i) {
        Slot s;
        s.device = "cpu";
        s.label = "cpu#" + std::to_string(i + 1);
        if (n <= c) {
            for (int k = i * c / n; k < (i + 1) * c / n; ++k) s.cpus.push_back(cpus[size_t(k)]);
        } else {
            s.cpus.push_back(cpus[size_t(i % c)]);  // more slots than cores: they share
        }
        slots.push_back(s);
    }
}

void addDeviceSlots(std::vector<Slot>& slots, int n, const std::string& device) {
    for (int i = 0; i < n; ++i) slots.push_back({device, {}, device + "#" + std::to_string(i + 1)});
}

// "opencl:P:*": every OpenCL device of platform P, in the order listed.
std::vector<std::string> platformDevices(const std::string& device,
                                         const std::vector<DeviceInfo>& devices) {
    const std::string prefix = device.substr(0, device.size() - 1);  // "opencl:P:"
    const std::string p = prefix.substr(7, prefix.size() - 8);
    if (p.empty() || p.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("'" + device + "': the platform must be a number (opencl:0:*)");
    std::vector<std::string> out;
    std::string all;
    for (const DeviceInfo& d : devices) {
        if (d.id.rfind("opencl:", 0) != 0) continue;
        all += (all.empty() ? "" : ", ") + d.id;
        if (d.id.rfind(prefix, 0) == 0) out.push_back(d.id);
    }
    if (out.empty())
        throw std::invalid_argument("'" + device + "': no OpenCL device on platform " + p +
                                    " (devices: " + (all.empty() ? "none found" : all) + ")");
    return out;
}

bool isGpu(const DeviceInfo& d) {
    return d.type == "GPU" && d.id.rfind("opencl:", 0) == 0;
}
}  // namespace

std::vector<Slot> defaultSlots(const std::vector<int>& cpus,
                               const std::vector<DeviceInfo>& devices) {
    std::vector<Slot> slots;
    const auto gpu = std::find_if(devices.begin(), devices.end(), isGpu);
    if (gpu != devices.end()) {  // the first platform with a GPU: each of its GPUs
        const std::string platform = gpu->id.substr(0, gpu->id.rfind(':') + 1);
        for (const DeviceInfo& d : devices)
            if (isGpu(d) && d.id.rfind(platform, 0) == 0)
                addDeviceSlots(slots, kGpuSlotsPerDevice, d.id);
    }
    addCpuSlots(slots, std::max(1, int(cpus.size()) / 2), cpus);
    return slots;
}

std::vector<Slot> defaultSlots(const std::vector<int>& cpus) {
    return defaultSlots(cpus, OpenClBackend::enumerate());
}

std::vector<Slot> parseSlots(const std::string& text, const std::vector<int>& cpus) {
    return parseSlots(text, cpus,
                      text.find('*') == std::string::npos ? std::vector<DeviceInfo>()
                                                          : OpenClBackend::enumerate());
}

std::vector<Slot> parseSlots(const std::string& text, const std::vector<int>& cpus,
                             const std::vector<DeviceInfo>& devices) {
    std::vector<Slot> slots;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = text.find(',', start);
        const std::string item =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const size_t eq = item.rfind('=');
        if (eq == std::string::npos || eq == 0)
            throw std::invalid_argument("'" + item +
                                        "': a slot is DEVICE=COUNT (cpu=2, opencl:0:0=1)");
        const std::string device = item.substr(0, eq), count = item.substr(eq + 1);
        if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos ||
            count.size() > 4 || std::stoi(count) < 1)
            throw std::invalid_argument("'" + item + "': the count must be a whole number from 1");
        const int n = std::stoi(count);
        if (device == "cpu") {
            addCpuSlots(slots, n, cpus);
        } else if (device.rfind("opencl:", 0) == 0 && device.size() > 2 &&
                   device.compare(device.size() - 2, 2, ":*") == 0) {
            for (const std::string& d : platformDevices(device, devices))
                addDeviceSlots(slots, n, d);
        } else if (device.rfind("opencl:", 0) == 0) {
            addDeviceSlots(slots, n, device);
        } else {
            throw std::invalid_argument("'" + device + "' is not cpu, opencl:P:D or opencl:P:*");
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (slots.empty()) throw std::invalid_argument("no slots");
    return slots;
}

}  // namespace nnwb
