#include "model/layers/Layer.h"

#include <vector>

namespace nnwb {

Param makeParam(Backend& be, std::string name, std::vector<int> shape) {
    Param p;
    p.name = std::move(name);
    p.shape = std::move(shape);
    p.value = be.alloc(p.count());
    p.grad = be.alloc(p.count());
    be.fill(p.grad, p.count(), 0.0f);
    return p;
}

void Layer::initUniform(Backend& be, Param& p, Rng& rng, double limit) {
    std::vector<float> host(p.count());
    for (auto& v : host) v = static_cast<float>(rng.uniform(-limit, limit));
    be.upload(p.value, host.data(), host.size());
}

void Layer::initConstant(Backend& be, Param& p, float value) {
    be.fill(p.value, p.count(), value);
}

}  // namespace nnwb
