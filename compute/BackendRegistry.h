// The devices there are and the backend for each: the one place that knows the Backend
// subclasses by device id ("cpu" -> CpuBackend, "opencl:P:D" -> OpenClBackend), so
// Backend.h/.cpp know only the base class. Any thread may list devices or create a backend;
// the backend then belongs to the thread that uses it (Backend.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compute/Backend.h"

namespace nnwb {

// Creates the backend for a device id from listDevices(): "cpu" or "opencl:P:D".
// Throws ComputeError naming the id when it does not exist or cannot be opened.
std::unique_ptr<Backend> createBackend(const std::string& id);
// "cpu" first, then every OpenCL device; OpenCL enumeration failures are skipped silently
// (a machine without an ICD has only the CPU device).
std::vector<DeviceInfo> listDevices();

}  // namespace nnwb
