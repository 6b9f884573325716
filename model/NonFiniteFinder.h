// Finds where a diverged network first holds a NaN or Inf: the first parameter tensor in layer
// order, else the first layer whose output (of the last forward pass) does. Run only after a
// non-finite loss or weight was detected (it reads every parameter and activation back).
// Used on the thread that owns the network's backend.
#pragma once

#include <string>
#include <vector>

#include "model/Network.h"

namespace nnwb {

// "layer 2 (dense): tensor layers.1.weight[17] is NaN", "layer 3 (attention): output[5] is
// +Inf", or empty when everything is finite. `batch` is how many samples the last forward
// pass held (outputs beyond it are not looked at).
std::string firstNonFinite(Network& net, int batch);

// The first non-finite value of `values` as "[index] is NaN|+Inf|-Inf", or empty.
std::string firstNonFiniteValue(const std::vector<float>& values);

}  // namespace nnwb
