// A deterministic synthetic classification task for tests, examples and benchmarks: Gaussian
// inputs of a given shape labelled by a fixed random linear "teacher" (argmax of 3 scores).
// Same seed, same samples. Plain function; any thread.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "model/SampleSet.h"

namespace nnwb {

struct SyntheticConfig {
    int samples = 512;
    int units = 4;
    int window = 3;
    int classes = 3;
    double validationShare = 0.25;
    uint64_t seed = 7;
    // From the experiment's data section ({"source": "synthetic", ...}); throws
    // std::invalid_argument naming the key.
    static SyntheticConfig fromJson(const nlohmann::json& j);
};

DataSplit makeSyntheticSplit(const SyntheticConfig& cfg);

}  // namespace nnwb
