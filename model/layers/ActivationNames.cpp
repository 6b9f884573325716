#include "model/layers/ActivationNames.h"

#include <stdexcept>

namespace nnwb {

const std::vector<std::string>& activationNames() {
    static const std::vector<std::string> names{"none",       "tanh",  "sigmoid", "relu",
                                                "leaky_relu", "swish", "softmax"};
    return names;
}

std::string activationName(Activation a) {
    return activationNames()[static_cast<int>(a)];
}

Activation activationFromName(const std::string& name) {
    const auto& n = activationNames();
    for (size_t i = 0; i < n.size(); ++i)
        if (n[i] == name) return static_cast<Activation>(i);
    std::string all;
    for (const auto& s : n) all += (all.empty() ? "" : ", ") + s;
    throw std::invalid_argument("unknown activation '" + name + "' (one of: " + all + ")");
}

}  // namespace nnwb
