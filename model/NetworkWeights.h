// Copies a built network's parameters to and from host tensors named as in the safetensors
// file ("layers.2.weight"). Loading checks every name and shape first and changes nothing on
// a mismatch. Used by the thread owning the network's backend.
#pragma once

#include <string>

#include "model/Network.h"
#include "model/Safetensors.h"

namespace nnwb {

// `model`: which model of a population (its slice of the arena; 0 for a single network).
TensorMap readWeights(Network& net, int model = 0);
// Throws std::invalid_argument naming the first missing, extra or mis-shaped tensor.
void writeWeights(Network& net, const TensorMap& tensors, int model = 0);

void saveWeightsFile(Network& net, const std::string& path);
void loadWeightsFile(Network& net, const std::string& path);

}  // namespace nnwb
