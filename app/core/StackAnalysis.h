// Checks a layer stack as it is edited: per-layer output shape and parameter count, the total,
// and — for a stack that does not fit — the offending layer (ShapeError::layer()) with the
// reason, including a final output that does not match the targets. Pure function; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/Shape.h"

namespace nnwb {

struct LayerCheck {
    bool ok = false;  // shape known for this layer
    Shape output;
    size_t parameters = 0;
};

struct StackAnalysis {
    bool valid = false;
    int errorLayer = -1;  // index of the offending layer, -1 for the stack as a whole
    std::string error;    // empty when valid
    std::vector<LayerCheck> layers;
    size_t totalParameters = 0;
    Shape input;
};

// `input` is the per-sample shape the data gives, `targets` the values per target.
StackAnalysis analyzeStack(const nlohmann::json& layers, const Shape& input, int targets);

}  // namespace nnwb
