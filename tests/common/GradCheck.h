// Central finite-difference gradient checks of a Layer on the double-precision CPU backend:
// the loss is a fixed random linear functional of the output, and every parameter value (or a
// seeded sample of them) and the input are perturbed by ±eps. Test threads only.
#pragma once

#include <functional>
#include <string>

#include "model/Shape.h"
#include "model/layers/Layer.h"

namespace nnwb::test {

struct GradCheckOptions {
    int batch = 3;
    double eps = 1e-5;
    double tolerance = 1e-6;   // on |analytic - numeric| / max(1, |analytic|, |numeric|)
    size_t maxChecksPerTensor = 60;
    uint64_t seed = 11;
    bool checkInput = true;
};

// Returns an empty string when every checked gradient matches, else a message naming the
// tensor, index and both values.
// `make` creates a fresh, unbuilt layer (it is built on a private double-precision backend).
std::string gradCheckLayer(const std::function<LayerPtr()>& make, const Shape& input,
                           const GradCheckOptions& opt = {});

}  // namespace nnwb::test
