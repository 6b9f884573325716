// Helpers shared by the test suites: the device ids to run on (cpu plus every OpenCL device),
// seeded random host data, tolerant comparisons that report the first mismatch, and paths.
// Test threads only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnwb::test {

// "cpu" followed by every OpenCL device id listDevices() reports.
std::vector<std::string> deviceIds();
std::vector<std::string> openclDeviceIds();
std::vector<float> randomVector(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f);
// Empty string when |a-b| <= abs + rel*|b| everywhere, else a message naming the first index.
std::string compareVectors(const std::vector<float>& a, const std::vector<float>& b, double abs,
                           double rel);
std::string tempDir();  // a fresh directory under the system temp folder

// A synthetic data section: {"source":"synthetic","samples":N,"units":U,"window":W}.
nlohmann::json syntheticData(int samples = 256, int units = 4, int window = 6);
// A small experiment JSON (formatVersion 1) on synthetic data with a conv + dense stack that
// trains in well under a second per epoch on the CPU backend.
nlohmann::json tinyExperimentJson(int epochs = 3, int batch = 16);

}  // namespace nnwb::test
