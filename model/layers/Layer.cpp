#include "model/layers/Layer.h"

#include <vector>

#include "compute/DropoutMask.h"
#include "model/layers/ParamArena.h"

namespace nnwb {

Param makeParam(Backend& be, ParamArena* arena, std::string name, std::vector<int> shape) {
    Param p;
    p.name = std::move(name);
    p.shape = std::move(shape);
    if (arena) {
        arena->take(p);
        return p;
    }
    p.storage = std::make_shared<ParamStorage>();
    p.storage->value = be.alloc(p.count());
    p.storage->grad = be.alloc(p.count());
    be.fill({p.storage->grad, p.count(), 0.0f});
    p.value = p.storage->value;
    p.grad = p.storage->grad;
    return p;
}

void Layer::initUniform(Backend& be, Param& p, Rng& rng, double limit) {
    std::vector<float> host(p.count());
    for (auto& v : host) v = static_cast<float>(rng.uniform(-limit, limit));
    be.upload(p.value, host.data(), host.size());
}

void Layer::initConstant(Backend& be, Param& p, float value) {
    be.fill({p.value, p.count(), value});
}

uint64_t Layer::dropoutKeyOf(uint64_t site) const {
    return dropoutKey(dropoutMix(dropoutSeed_) + site, dropoutStep_);
}

}  // namespace nnwb
