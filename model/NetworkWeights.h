// Copies a built network's parameters to and from host tensors named as in the safetensors
// file ("layers.2.weight"). Loading checks every name and shape first and changes nothing on
// a mismatch. Used by the thread owning the network's backend.
#pragma once

#include <string>

#include "model/Network.h"
#include "model/Safetensors.h"

namespace nnwb {

TensorMap readWeights(Network& net);
// Throws std::invalid_argument naming the first missing, extra or mis-shaped tensor.
void writeWeights(Network& net, const TensorMap& tensors);

void saveWeightsFile(Network& net, const std::string& path);
void loadWeightsFile(Network& net, const std::string& path);

}  // namespace nnwb
