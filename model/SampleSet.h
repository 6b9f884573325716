// Training samples in memory, ready for a Network: inputs of one Shape per sample and a target
// vector per sample (for the fractal task [none, buy, sell], one-hot). Built by the data
// pipeline or by a synthetic generator; immutable once handed to a Trainer. Any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/Shape.h"

namespace nnwb {

struct SampleSet {
    Shape inputShape;      // per sample, e.g. {20 bars, 12 features}
    int outputs = 3;       // values per target
    std::vector<float> x;  // size() * inputShape.size()
    std::vector<float> y;  // size() * outputs
    std::vector<int64_t>
        time;  // bar open time (seconds since epoch) of each sample's last bar; may be empty
    size_t size() const { return inputShape.size() ? x.size() / inputShape.size() : 0; }
    const float* input(size_t i) const { return x.data() + i * inputShape.size(); }
    const float* target(size_t i) const { return y.data() + i * static_cast<size_t>(outputs); }
};

// The chronological split of one data set: training part first, validation = newest share.
struct DataSplit {
    SampleSet train;
    SampleSet validation;
    std::vector<std::string> classNames{"none", "buy", "sell"};
};

}  // namespace nnwb
