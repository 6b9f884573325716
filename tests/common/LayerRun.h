// Test helper: one Layer built on its own backend for a fixed batch, with host-side input,
// forward, backward from a given output gradient, and parameter/gradient access in double
// (exact on CpuBackend(Precision::Double)). The gradient checker that runs on it is in
// common/GradCheck.h. Header-only; test threads only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compute/Backend.h"
#include "compute/CpuBackend.h"
#include "model/Rng.h"
#include "model/layers/Layer.h"
#include "model/layers/LayerRegistry.h"

namespace nnwb::test {

inline std::vector<double> randomDoubles(size_t n, uint64_t seed, double lo = -1.0,
                                         double hi = 1.0) {
    Rng rng(seed);
    std::vector<double> v(n);
    for (auto& x : v) x = rng.uniform(lo, hi);
    return v;
}

class LayerRun {
public:
    static constexpr size_t kPad = 5;
    static constexpr float kSentinel = 12345.0f;

    LayerRun(std::unique_ptr<Backend> backend, LayerPtr layer, const Shape& in, int batch,
             uint64_t seed = 1)
        : be(std::move(backend)), layer(std::move(layer)), in(in), batch(batch) {
        out = this->layer->outputShape(in);
        this->layer->build(*be, in, batch);
        Rng rng(seed);
        this->layer->initWeights(rng);
        x = be->alloc(inCount());
        dy = be->alloc(outCount());
        dx = be->alloc(inCount() + 2 * kPad);
    }
    static std::unique_ptr<LayerRun> fromJson(std::unique_ptr<Backend> backend,
                                              const nlohmann::json& j, const Shape& in, int batch,
                                              uint64_t seed = 1) {
        return std::make_unique<LayerRun>(std::move(backend), makeLayer(j), in, batch, seed);
    }

    size_t inCount() const { return size_t(batch) * in.size(); }
    size_t outCount() const { return size_t(batch) * out.size(); }

    void setInput(const std::vector<double>& v) { be->uploadF64(x, v.data(), v.size()); }
    std::vector<double> forward(bool training = true) {
        if (beforeForward) beforeForward(*layer);
        layer->forward(x, batch, training);
        std::vector<double> y(outCount());
        be->downloadF64(layer->output(), y.data(), y.size());
        return y;
    }
    // Zeroes parameter gradients, runs backward from dyHost and returns dx (unless withDx is
    // false). The pads around dx are checked for out-of-bounds writes (sentinelError()).
    std::vector<double> backward(const std::vector<double>& dyHost, bool withDx = true) {
        for (Param* p : layer->params()) be->fill({p->grad, all(p), 0.0f});
        be->uploadF64(dy, dyHost.data(), dyHost.size());
        be->fill({dx, inCount() + 2 * kPad, kSentinel});
        layer->backward(x, dy, withDx ? BufRef(dx, kPad) : BufRef(), batch);
        std::vector<double> g(inCount());
        if (withDx) be->downloadF64(BufRef(dx, kPad), g.data(), g.size());
        return g;
    }
    std::string sentinelError() {
        std::vector<double> all(inCount() + 2 * kPad);
        be->downloadF64(dx, all.data(), all.size());
        for (size_t i = 0; i < kPad; ++i)
            if (all[i] != kSentinel || all[all.size() - 1 - i] != kSentinel)
                return "dx was written out of bounds";
        return {};
    }
    std::vector<double> read(BufRef b, size_t n) {
        std::vector<double> v(n);
        be->downloadF64(b, v.data(), n);
        return v;
    }
    // Every value of a parameter: all models' of a population layer (own storage: back to back).
    static size_t all(const Param* p) { return p->count() * size_t(p->models); }
    std::vector<double> value(Param* p) { return read(p->value, all(p)); }
    std::vector<double> grad(Param* p) { return read(p->grad, all(p)); }
    void setValue(Param* p, const std::vector<double>& v) {
        be->uploadF64(p->value, v.data(), v.size());
    }
    // Copies every parameter value from another run of a layer with the same parameters.
    void copyParamsFrom(LayerRun& o) {
        auto mine = layer->params(), theirs = o.layer->params();
        for (size_t i = 0; i < mine.size(); ++i) setValue(mine[i], o.value(theirs[i]));
    }

    std::unique_ptr<Backend> be;
    LayerPtr layer;
    Shape in, out;
    int batch;
    Buffer x, dy, dx;
    std::function<void(Layer&)> beforeForward;
};

}  // namespace nnwb::test
