// Small helpers shared by the Qt Test suites: tiny synthetic experiments and temporary paths.
// Minimal version for the gui branch (the main branch may carry a fuller one). Test threads only.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnwb::test {

// A synthetic data section: {"source":"synthetic","samples":N,"units":U,"window":W}.
nlohmann::json syntheticData(int samples = 256, int units = 4, int window = 6);

// A small experiment JSON (formatVersion 1) on synthetic data with a conv + dense stack that
// trains in well under a second per epoch on the CPU backend.
nlohmann::json tinyExperimentJson(int epochs = 3, int batch = 16);

}  // namespace nnwb::test
