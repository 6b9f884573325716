// Names of activations as written in experiment JSON ("none", "tanh", "sigmoid", "relu",
// "leaky_relu", "swish", "softmax") and their conversion. Any thread.
#pragma once

#include <string>
#include <vector>

#include "compute/Backend.h"

namespace nnwb {

const std::vector<std::string>& activationNames();
std::string activationName(Activation a);
// Throws std::invalid_argument naming the accepted values.
Activation activationFromName(const std::string& name);

}  // namespace nnwb
