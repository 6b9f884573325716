// A sequential stack of layers on one Backend: shape checking with readable errors, buffer
// allocation once for the largest batch, seeded initialization, batched forward/backward,
// parameter naming ("layers.2.weight") and counting. Used by the thread owning the backend.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/layers/Layer.h"
#include "model/layers/ParamArena.h"

namespace nnwb {

// A stack that does not fit together; `layer` is the index of the offending layer.
class ShapeError : public std::invalid_argument {
public:
    ShapeError(int layer, const std::string& what) : std::invalid_argument(what), layer_(layer) {}
    int layer() const { return layer_; }

private:
    int layer_;
};

struct NamedParam {
    std::string name;  // e.g. "layers.2.weight"
    Param* param;
};

class Network {
public:
    // Builds layers from the model JSON ({"layers": [...]}); throws ShapeError naming the
    // layer index for bad parameters.
    static std::vector<LayerPtr> layersFromJson(const nlohmann::json& model);
    // The output shape of each layer for an input shape; throws ShapeError naming the two
    // layers and both shapes on a mismatch.
    static std::vector<Shape> inferShapes(const std::vector<LayerPtr>& layers, const Shape& input);

    Network(std::vector<LayerPtr> layers, const Shape& input);
    Network(const Network&) = delete;
    Network& operator=(const Network&) = delete;

    const Shape& inputShape() const { return input_; }
    const Shape& outputShape() const { return shapes_.back(); }
    const std::vector<Shape>& shapes() const { return shapes_; }
    size_t layerCount() const { return layers_.size(); }
    Layer& layer(size_t i) { return *layers_[i]; }
    nlohmann::json toJson() const;
    size_t parameterCount() const;  // works before build()

    // A population of `models` networks of this architecture (docs/decisions/population.md),
    // set before build(): every layer runs as a population, the parameters are one arena of
    // `models` copies (model m's slice laid out as a single network's arena), and
    // forward/backward take `batch` samples per model (x: models x batch rows, model m's the
    // m-th block). Throws std::invalid_argument naming the layer that cannot.
    void setPopulation(int models);
    int models() const { return models_; }

    void build(Backend& backend, int maxBatch);
    bool built() const { return backend_ != nullptr; }
    Backend& backend() { return *backend_; }
    int maxBatch() const { return maxBatch_; }
    void initWeights(uint64_t seed);
    // A population's initialization: model m exactly as initWeights(seeds[m]) initializes a
    // single network.
    void initWeights(const std::vector<uint64_t>& seeds);

    // A training forward draws its dropout masks from (seed of the layer, dropoutStep()) and
    // then advances the step, so every batch gets new masks; evaluation draws none.
    BufRef forward(BufRef x, int batch, bool training);
    // The dropout seed (the experiment's training seed; layer i uses a seed derived from it
    // and i) and the step of the next training forward (0 after construction).
    void setDropoutSeed(uint64_t seed) { dropoutSeed_ = seed; }
    // A population's dropout seeds, one per model (model m draws the masks of a single network
    // with setDropoutSeed(seeds[m])).
    void setDropoutSeeds(std::vector<uint64_t> seeds);
    uint64_t dropoutStep() const { return dropoutStep_; }
    void setDropoutStep(uint64_t step) { dropoutStep_ = step; }
    // Backward from dy (gradient of the loss w.r.t. the output); adds parameter gradients.
    void backward(BufRef x, BufRef dy, int batch);
    void zeroGrad();
    std::vector<NamedParam> params();
    std::vector<AttentionScores> readScores(int sample);
    // Every parameter back to back (after build): values and gradients of used() floats.
    const ParamArena& paramArena() const { return *arena_; }

private:
    // Consecutive dense layers [first, first + count) run as one dense chain op (count >= 2).
    struct DenseRun {
        size_t first = 0, count = 0;
    };
    void findDenseRuns();
    DenseChainArgs chainArgs(const DenseRun& run, BufRef x, int rows);
    const DenseRun* runStartingAt(size_t i) const;
    const DenseRun* runEndingAt(size_t i) const;

    std::vector<LayerPtr> layers_;
    std::vector<DenseRun> denseRuns_;
    Shape input_;
    std::vector<Shape> shapes_;
    Backend* backend_ = nullptr;
    int maxBatch_ = 0;
    std::unique_ptr<ParamArena> arena_;
    std::vector<Buffer> grads_;  // gradient w.r.t. the output of layers 0..n-2
    uint64_t dropoutSeed_ = 0, dropoutStep_ = 0;
    int models_ = 1;
    std::vector<uint64_t> dropoutSeeds_;  // a population's
};

}  // namespace nnwb
