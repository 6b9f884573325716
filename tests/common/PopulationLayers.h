// Population layers under test (docs/decisions/population.md): one layer run as a population of
// P models, or P single layers, on a backend, with the same per-model seeds, inputs and output
// gradients; what each gives (outputs, input gradient, every parameter gradient) in the
// population's layout, so that the two can be compared. Header-only; test threads only.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common/TestUtil.h"
#include "model/layers/Layer.h"

namespace nnwb::test {

struct LayerOutcome {
    std::vector<float> y, dx, params, grads;  // all models back to back
};

// `make` gives a fresh layer; `rows` per model; model m is initialized from Rng(seed + m) and
// draws dropout masks from seed 1000 + m at step 3.
inline LayerOutcome runPopulationLayer(Backend& be, const std::function<LayerPtr()>& make,
                                       const Shape& in, int models, int rows, bool together,
                                       uint64_t seed = 40) {
    const Shape out = make()->outputShape(in);
    const size_t inPer = size_t(rows) * in.size(), outPer = size_t(rows) * out.size();
    const std::vector<float> x = randomVector(models * inPer, 7, -2.0f, 2.0f);
    const std::vector<float> dy = randomVector(models * outPer, 8);
    std::vector<uint64_t> dropSeeds;
    for (int m = 0; m < models; ++m) dropSeeds.push_back(1000 + m);
    LayerOutcome o;
    auto append = [&](std::vector<float>& to, BufRef r, size_t n) {
        std::vector<float> v(n);
        be.download(r, v.data(), n);
        to.insert(to.end(), v.begin(), v.end());
    };
    // Biases start at 0 in every model: give model m's its own values (else a bias of the wrong
    // model would go unnoticed).
    auto ownBias = [&](Param* p, size_t i, int m, BufRef at) {
        if (p->name.size() < 4 || p->name.compare(p->name.size() - 4, 4, "bias") != 0) return;
        const std::vector<float> v = randomVector(p->count(), uint32_t(500 + 10 * i + m));
        be.upload(at, v.data(), v.size());
    };
    auto runOne = [&](Layer& l, int copies, size_t xo, size_t yo) {
        const int all = rows * copies;
        Buffer xb = be.alloc(size_t(all) * in.size()), dyb = be.alloc(size_t(all) * out.size()),
               dxb = be.alloc(size_t(all) * in.size());
        be.upload(xb, x.data() + xo, xb.size());
        be.upload(dyb, dy.data() + yo, dyb.size());
        l.forward(xb, all, true);
        l.backward(xb, dyb, dxb, all);
        append(o.y, l.output(), dyb.size());
        append(o.dx, dxb, dxb.size());
    };
    if (together) {
        LayerPtr l = make();
        l->setPopulation(models);
        l->build(be, in, models * rows);
        for (int m = 0; m < models; ++m) {
            Rng rng(seed + m);
            l->initWeightsOf(m, rng);
        }
        for (size_t i = 0; i < l->params().size(); ++i)
            for (int m = 0; m < models; ++m) {
                Param* p = l->params()[i];
                ownBias(p, i, m, p->value + m * p->modelStride);
            }
        l->setDropoutStreams(dropSeeds, 3);
        runOne(*l, models, 0, 0);
        for (Param* p : l->params()) {  // parameter by parameter, all models
            append(o.params, p->value, p->count() * size_t(models));
            append(o.grads, p->grad, p->count() * size_t(models));
        }
        return o;
    }
    std::vector<LayerPtr> singles;
    for (int m = 0; m < models; ++m) {
        singles.push_back(make());
        Layer& l = *singles.back();
        l.build(be, in, rows);
        Rng rng(seed + m);
        l.initWeights(rng);
        for (size_t i = 0; i < l.params().size(); ++i)
            ownBias(l.params()[i], i, m, l.params()[i]->value);
        l.setDropoutStream(dropSeeds[m], 3);
        runOne(l, 1, m * inPer, m * outPer);
    }
    const size_t nParams = singles[0]->params().size();
    for (size_t i = 0; i < nParams; ++i)
        for (int m = 0; m < models; ++m) {
            Param* p = singles[m]->params()[i];
            append(o.params, p->value, p->count());
            append(o.grads, p->grad, p->count());
        }
    return o;
}

}  // namespace nnwb::test
