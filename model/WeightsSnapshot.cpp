#include "model/WeightsSnapshot.h"

#include "model/NetworkWeights.h"
#include "model/NonFiniteFinder.h"

namespace nnwb {

bool WeightsSnapshot::capture(Network& net, int epoch, std::string* problem, int model) {
    TensorMap now;
    // In layer order, so the problem names the first layer that went non-finite.
    for (size_t i = 0; i < net.layerCount(); ++i) {
        for (Param* p : net.layer(i).params()) {
            const std::string name = "layers." + std::to_string(i) + "." + p->name;
            HostTensor t;
            for (int d : p->shape) t.shape.push_back(d);
            t.values.resize(p->count());
            net.backend().download(p->value + size_t(model) * p->modelStride, t.values.data(),
                                   t.values.size());
            const std::string bad = firstNonFiniteValue(t.values);
            if (!bad.empty()) {
                if (problem)
                    *problem = "layer " + std::to_string(i + 1) + " (" + net.layer(i).type() +
                               "): tensor " + name + bad;
                return false;
            }
            now.emplace(name, std::move(t));
        }
    }
    tensors_ = std::move(now);
    model_ = net.toJson().dump();
    epoch_ = epoch;
    return true;
}

void WeightsSnapshot::restore(Network& net, int model) const {
    writeWeights(net, tensors_, model);
}

void WeightsSnapshot::save(const std::string& path) const {
    saveSafetensors(path, tensors_, {{"format", "nnwb"}, {"model", model_}});
}

void WeightsSnapshot::clear() {
    tensors_.clear();
    model_.clear();
    epoch_ = 0;
}

}  // namespace nnwb
