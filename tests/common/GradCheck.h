// The one finite-difference gradient checker of the layer tests: central differences of
// L = sum(c * y) for a random c, for every parameter tensor (all positions or a seeded sample)
// and the input, against the layer's analytic backward on a double-precision CpuBackend.
// Test threads only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "common/LayerRun.h"
#include "model/Shape.h"
#include "model/layers/Layer.h"

namespace nnwb::test {

struct GradCheckSettings {
    double eps = 1e-5;
    // A value passes when |analytic - numeric| <= max(abs, rel * max(|analytic|, |numeric|)).
    double rel = 1e-6;
    double abs = 1e-8;
    size_t maxPerTensor = 40;  // all positions when the tensor is at most this large
    bool checkInput = true;
    uint64_t seed = 99;
};

// Checks the layer of `r` (built on a double-precision backend). Returns "" or a message naming
// the tensor, index and both values; `checked` counts the values compared.
std::string gradCheck(LayerRun& r, const GradCheckSettings& s, size_t* checked = nullptr);

// The same for a fresh layer from `make`, built for `batch` samples of `input` on a private
// double-precision CpuBackend (one thread).
std::string gradCheckLayer(const std::function<LayerPtr()>& make, const Shape& input, int batch = 3,
                           const GradCheckSettings& s = {});

}  // namespace nnwb::test
