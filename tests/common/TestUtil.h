// Minimal helpers shared by the test suites (attention branch): the device ids to run on.
// The fuller version (random data, tolerant comparisons, guarded buffers) lives on other
// branches; the merge keeps theirs. Test threads only.
#pragma once

#include <string>
#include <vector>

namespace nnwb::test {

// "cpu" followed by every OpenCL device id listDevices() reports.
std::vector<std::string> deviceIds();
// Only the OpenCL device ids (empty on a machine without an OpenCL runtime).
std::vector<std::string> openclDeviceIds();

}  // namespace nnwb::test
