#include "model/layers/Layer.h"

#include <stdexcept>
#include <vector>

#include "compute/DropoutMask.h"
#include "model/layers/ParamArena.h"

namespace nnwb {

Param makeParam(Backend& be, ParamArena* arena, std::string name, std::vector<int> shape,
                int models) {
    Param p;
    p.name = std::move(name);
    p.shape = std::move(shape);
    p.models = models;
    if (arena) {
        arena->take(p);
        if (arena->models() != models)
            throw std::logic_error("parameter '" + p.name + "' of " + std::to_string(models) +
                                   " models in an arena of " + std::to_string(arena->models()));
        return p;
    }
    p.modelStride = p.count();
    const size_t all = p.count() * size_t(models);
    p.storage = std::make_shared<ParamStorage>();
    p.storage->value = be.alloc(all);
    p.storage->grad = be.alloc(all);
    be.fill({p.storage->grad, all, 0.0f});
    p.value = p.storage->value;
    p.grad = p.storage->grad;
    return p;
}

void Layer::initUniform(Backend& be, Param& p, Rng& rng, double limit) {
    std::vector<float> host(p.count());
    for (int m = 0; m < p.models; ++m) {  // a population's models one after the other
        for (auto& v : host) v = static_cast<float>(rng.uniform(-limit, limit));
        be.upload(p.value + m * p.modelStride, host.data(), host.size());
    }
}

void Layer::initConstant(Backend& be, Param& p, float value) {
    for (int m = 0; m < p.models; ++m) be.fill({p.value + m * p.modelStride, p.count(), value});
}

void Layer::setPopulation(int models) {
    if (models < 1)
        throw std::invalid_argument("population: models must be at least 1 (got " +
                                    std::to_string(models) + ")");
    if (models > 1 && !supportsPopulation())
        throw std::invalid_argument("layer type '" + type() +
                                    "' cannot be trained as a population yet");
    models_ = models;
}

void Layer::initWeightsOf(int model, Rng& rng) {
    if (model < 0 || model >= models_)
        throw std::out_of_range("initWeightsOf: model " + std::to_string(model) + " of " +
                                std::to_string(models_));
    // Each parameter seen as model `model`'s single copy while initWeights runs.
    std::vector<Param> saved;
    for (Param* p : params()) {
        saved.push_back(*p);
        p->value = p->value + size_t(model) * p->modelStride;
        p->models = 1;
    }
    initWeights(rng);
    std::vector<Param*> ps = params();
    for (size_t i = 0; i < ps.size(); ++i) *ps[i] = saved[i];
}

void Layer::setDropoutStreams(std::vector<uint64_t> seeds, uint64_t step) {
    dropoutSeeds_ = std::move(seeds);
    dropoutStep_ = step;
}

std::vector<float> Layer::dropoutBasesOf(uint64_t site) const {
    if (dropoutSeeds_.size() != size_t(models_))
        throw std::logic_error("a population of " + std::to_string(models_) + " models has " +
                               std::to_string(dropoutSeeds_.size()) + " dropout seeds");
    std::vector<float> limbs(4 * dropoutSeeds_.size());
    for (size_t m = 0; m < dropoutSeeds_.size(); ++m)
        splitKeyLimbs(dropoutMix(dropoutSeeds_[m]) + site, limbs.data() + 4 * m);
    return limbs;
}

uint64_t Layer::dropoutKeyOf(uint64_t site) const {
    return dropoutKey(dropoutMix(dropoutSeed_) + site, dropoutStep_);
}

}  // namespace nnwb
