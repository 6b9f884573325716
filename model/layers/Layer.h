// The layer interface of the sequential Network: shape inference, buffer allocation (once, at
// build, for the largest batch), seeded weight initialization, batched forward/backward on a
// Backend, JSON parameters and attention Score read-back. Used by the thread owning the backend.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/Backend.h"
#include "model/Rng.h"
#include "model/Shape.h"

namespace nnwb {

class ParamArena;

// Device storage of a parameter built outside a network (a layer under test).
struct ParamStorage {
    Buffer value, grad;
};

// A trainable tensor: its value and gradient live on the device, as slices of the network's
// ParamArena or, for a layer built on its own, of its own storage.
struct Param {
    std::string name;        // relative to the layer, e.g. "weight", "block.3.qkv.weight"
    std::vector<int> shape;  // row-major dimensions
    BufRef value;
    BufRef grad;
    std::shared_ptr<ParamStorage> storage;  // set when not in an arena
    // A population (docs/decisions/population.md): `models` copies, model m's at
    // value + m * modelStride (and grad + m * modelStride); count() is one model's.
    int models = 1;
    size_t modelStride = 0;
    size_t count() const {
        size_t n = 1;
        for (int d : shape) n *= static_cast<size_t>(d);
        return n;
    }
};

// Score matrices of one attention layer (or one block of a stack) for one sample.
struct AttentionScores {
    std::string name;          // e.g. "layers.1.block.0"
    int heads = 0, units = 0;  // values: [heads][units][units], rows sum to 1
    std::vector<float> values;
};

class Layer {
public:
    virtual ~Layer() = default;

    virtual std::string type() const = 0;
    // Parameters as JSON including "type"; fromJson(toJson()) gives the same layer.
    virtual nlohmann::json toJson() const = 0;
    // Output shape for an input shape; throws std::invalid_argument with the reason (no layer
    // names: the Network adds them) when the input does not fit.
    virtual Shape outputShape(const Shape& in) const = 0;
    // Number of trainable values for an input shape (known without building).
    virtual size_t parameterCount(const Shape& in) const = 0;
    // Allocates parameters, activations and scratch for up to maxBatch samples (with a
    // population: maxBatch rows over all models, a multiple of models()).
    virtual void build(Backend& backend, const Shape& in, int maxBatch) = 0;
    // Fills parameters from rng (host side, then upload): same seed, same weights anywhere.
    virtual void initWeights(Rng& rng) = 0;
    // Computes the output for `batch` samples of x (batch x in.size()). With a population,
    // `batch` counts the rows of all models (model m's are the m-th of models() equal blocks).
    virtual void forward(BufRef x, int batch, bool training) = 0;
    virtual BufRef output() const = 0;
    // From dy (gradient w.r.t. output, batch x out.size()): ADDS parameter gradients into
    // Param::grad and, unless dx is empty, WRITES the gradient w.r.t. x into dx. Needs the
    // activations of the last forward() with the same x.
    virtual void backward(BufRef x, BufRef dy, BufRef dx, int batch) = 0;
    virtual std::vector<Param*> params() { return {}; }
    // Score matrices for sample `sample` of the last forward batch; empty if not attention.
    virtual std::vector<AttentionScores> readScores(int /*sample*/) { return {}; }
    // A population of `models` models of this layer, each with its own parameters (set before
    // build(); docs/decisions/population.md). Throws std::invalid_argument for a layer type
    // that cannot run as a population yet (supportsPopulation() false) or models < 1.
    void setPopulation(int models);
    int models() const { return models_; }
    virtual bool supportsPopulation() const { return false; }
    // Fills model `model`'s parameters from rng as initWeights fills a single layer's: the
    // weights a single layer initialized from an equal rng gets.
    void initWeightsOf(int model, Rng& rng);
    // The dropout streams of a population: one seed per model (the step as setDropoutStream);
    // model m draws the masks a single layer with setDropoutStream(seeds[m], step) draws.
    void setDropoutStreams(std::vector<uint64_t> seeds, uint64_t step);
    // Where build() takes its parameters from (the network's arena); null: own storage.
    void setParamArena(ParamArena* arena) { arena_ = arena; }
    // Where the dropout masks of the next training forward() come from: (seed, step), see
    // compute/DropoutMask.h. The Network sets them before each training forward (a new step
    // per batch); the same (seed, step) gives the same masks. Layers without dropout ignore it.
    void setDropoutStream(uint64_t seed, uint64_t step) {
        dropoutSeed_ = seed;
        dropoutStep_ = step;
    }

protected:
    // Xavier/Glorot uniform init of a parameter and upload.
    static void initUniform(Backend& be, Param& p, Rng& rng, double limit);
    static void initConstant(Backend& be, Param& p, float value);
    ParamArena* arena() const { return arena_; }
    // The mask key of dropout site `site` (0, 1, ... within the layer) for the current stream.
    uint64_t dropoutKeyOf(uint64_t site) const;
    // A population's per-model key bases of site `site` as splitKeyLimbs (4 floats per model),
    // for DropoutForwardArgs::bases, and the step they go with.
    std::vector<float> dropoutBasesOf(uint64_t site) const;
    uint64_t dropoutStep() const { return dropoutStep_; }

private:
    ParamArena* arena_ = nullptr;
    uint64_t dropoutSeed_ = 0, dropoutStep_ = 0;
    std::vector<uint64_t> dropoutSeeds_;  // a population's, one per model
    int models_ = 1;
};

// A parameter's value and zeroed gradient: the next slice of `arena`, or own buffers on the
// backend when `arena` is null (with `models` copies back to back: a population).
Param makeParam(Backend& be, ParamArena* arena, std::string name, std::vector<int> shape,
                int models = 1);

using LayerPtr = std::unique_ptr<Layer>;

}  // namespace nnwb
