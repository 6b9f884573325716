// OpenCL platform/device discovery: every (platform, device) pair with its "opencl:P:D" id,
// device properties as DeviceInfo, and parsing of device ids. Never throws on a machine
// without an OpenCL runtime (the list is just empty). Stateless; usable from any thread.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

#include "compute/Backend.h"

namespace nnwb {

struct ClDeviceRef {
    int platformIndex = 0, deviceIndex = 0;
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    std::string id() const;  // "opencl:P:D"
};

// Every device of every platform; empty on any failure (no ICD, no platforms, ...).
std::vector<ClDeviceRef> clAllDevices() noexcept;

// The properties of one device (strings empty, numbers 0 where a query fails).
DeviceInfo clDeviceInfo(const ClDeviceRef& ref);

std::string clDeviceString(cl_device_id dev, cl_device_info what);
std::string clPlatformString(cl_platform_id plat, cl_platform_info what);

// Parses "opencl:P:D" (decimal, no sign or spaces); false when malformed.
bool parseClDeviceId(const std::string& id, int& platformIndex, int& deviceIndex);

}  // namespace nnwb
