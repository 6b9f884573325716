// Finds where a diverged network first holds a NaN or Inf: the first parameter tensor in layer
// order, else the first layer whose output for the diverging batch does. Run only after a
// non-finite loss was detected (it reads every parameter and activation back, once).
// Used on the thread that owns the network's backend.
#pragma once

#include <string>
#include <vector>

#include "model/Network.h"

namespace nnwb {

// Runs a forward pass of the `batch` samples at x and names the first non-finite value:
// "layer 2 (dense): tensor layers.1.weight[17] is NaN", "layer 3 (attention): output[5] is
// +Inf"; when every parameter and output is finite, the layer with the largest output
// ("layer 2 (dense): output[4] = 3.1e+20 (all layers finite: ...)"), whose square or
// exponential overflowed the loss. Empty only for a network without outputs.
std::string firstNonFinite(Network& net, BufRef x, int batch);

// The first non-finite value of `values` as "[index] is NaN|+Inf|-Inf", or empty.
std::string firstNonFiniteValue(const std::vector<float>& values);

}  // namespace nnwb
