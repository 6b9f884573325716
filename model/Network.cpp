#include "model/Network.h"

#include <algorithm>

#include "model/layers/DenseLayer.h"
#include "model/layers/LayerRegistry.h"

namespace nnwb {

namespace {
std::string describe(const std::vector<LayerPtr>& layers, size_t i) {
    return "layer " + std::to_string(i + 1) + " (" + layers[i]->type() + ")";
}
}  // namespace

std::vector<LayerPtr> Network::layersFromJson(const nlohmann::json& model) {
    if (!model.is_object() || !model.contains("layers") || !model["layers"].is_array())
        throw ShapeError(-1, "model: needs a \"layers\" array");
    std::vector<LayerPtr> out;
    const auto& arr = model["layers"];
    if (arr.empty()) throw ShapeError(-1, "model: the layer stack is empty");
    for (size_t i = 0; i < arr.size(); ++i) {
        try {
            out.push_back(makeLayer(arr[i]));
        } catch (const std::invalid_argument& e) {
            throw ShapeError(static_cast<int>(i),
                             "layer " + std::to_string(i + 1) + ": " + e.what());
        }
    }
    return out;
}

std::vector<Shape> Network::inferShapes(const std::vector<LayerPtr>& layers, const Shape& input) {
    if (layers.empty()) throw ShapeError(-1, "the layer stack is empty");
    std::vector<Shape> shapes;
    Shape cur = input;
    for (size_t i = 0; i < layers.size(); ++i) {
        try {
            cur = layers[i]->outputShape(cur);
        } catch (const std::invalid_argument& e) {
            const std::string from = i == 0 ? std::string("the input") : describe(layers, i - 1);
            throw ShapeError(static_cast<int>(i), describe(layers, i) + " cannot take " + from +
                                                      " of shape " + cur.str() + ": " + e.what());
        }
        shapes.push_back(cur);
    }
    return shapes;
}

Network::Network(std::vector<LayerPtr> layers, const Shape& input)
    : layers_(std::move(layers)), input_(input), shapes_(inferShapes(layers_, input)) {}

nlohmann::json Network::toJson() const {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& l : layers_) arr.push_back(l->toJson());
    return {{"layers", arr}};
}

size_t Network::parameterCount() const {
    size_t n = 0;
    Shape in = input_;
    for (size_t i = 0; i < layers_.size(); ++i) {
        n += layers_[i]->parameterCount(in);
        in = shapes_[i];
    }
    return n;
}

void Network::build(Backend& backend, int maxBatch) {
    if (maxBatch < 1) throw std::invalid_argument("batch size must be at least 1");
    backend_ = &backend;
    maxBatch_ = maxBatch;
    Shape in = input_;
    grads_.clear();
    arena_.reset();
    arena_ = std::make_unique<ParamArena>(backend, std::max<size_t>(parameterCount(), 1), models_);
    const int rows = maxBatch * models_;  // a population's layers see every model's rows
    for (size_t i = 0; i < layers_.size(); ++i) {
        layers_[i]->setParamArena(arena_.get());
        layers_[i]->build(backend, in, rows);
        if (i + 1 < layers_.size())
            grads_.push_back(backend.alloc(static_cast<size_t>(rows) * shapes_[i].size()));
        in = shapes_[i];
    }
    if (arena_->used() != parameterCount())
        throw std::logic_error("the layers took " + std::to_string(arena_->used()) +
                               " parameter values but count " + std::to_string(parameterCount()));
    findDenseRuns();
}

// Runs of 2 to kMaxDenseChain consecutive dense layers (a longer run is cut into such pieces).
void Network::findDenseRuns() {
    denseRuns_.clear();
    size_t i = 0;
    while (i < layers_.size()) {
        size_t n = 0;
        while (i + n < layers_.size() && n < size_t(kMaxDenseChain) &&
               dynamic_cast<DenseLayer*>(layers_[i + n].get()))
            ++n;
        if (n >= 2) denseRuns_.push_back({i, n});
        i += std::max<size_t>(n, 1);
    }
}

const Network::DenseRun* Network::runStartingAt(size_t i) const {
    for (const DenseRun& r : denseRuns_)
        if (r.first == i) return &r;
    return nullptr;
}

const Network::DenseRun* Network::runEndingAt(size_t i) const {
    for (const DenseRun& r : denseRuns_)
        if (r.first + r.count - 1 == i) return &r;
    return nullptr;
}

DenseChainArgs Network::chainArgs(const DenseRun& run, BufRef x, int rows) {
    DenseChainArgs a;
    a.rows = rows;
    a.models = models_;
    a.layers = int(run.count);
    for (size_t k = 0; k < run.count; ++k)
        a.l[k] = static_cast<DenseLayer&>(*layers_[run.first + k]).chainLayer();
    a.x = x;
    return a;
}

void Network::initWeights(uint64_t seed) {
    // Measuring what a run needs (a network of any size): no host copies to fill.
    if (backend_ && !backend_->computes()) return;
    for (size_t i = 0; i < layers_.size(); ++i) {
        Rng rng(seed * 1000003ull + i);
        layers_[i]->initWeights(rng);
    }
}

void Network::setPopulation(int models) {
    if (backend_) throw std::logic_error("setPopulation after build()");
    for (size_t i = 0; i < layers_.size(); ++i) {
        try {
            layers_[i]->setPopulation(models);
        } catch (const std::invalid_argument& e) {
            throw ShapeError(int(i), "layer " + std::to_string(i) + ": " + e.what());
        }
    }
    models_ = models;
}

void Network::initWeights(const std::vector<uint64_t>& seeds) {
    if (seeds.size() != size_t(models_))
        throw std::invalid_argument(std::to_string(seeds.size()) + " seeds for a population of " +
                                    std::to_string(models_) + " models");
    if (backend_ && !backend_->computes()) return;
    for (int m = 0; m < models_; ++m)
        for (size_t i = 0; i < layers_.size(); ++i) {
            Rng rng(seeds[m] * 1000003ull + i);  // as initWeights(seeds[m])
            layers_[i]->initWeightsOf(m, rng);
        }
}

void Network::setDropoutSeeds(std::vector<uint64_t> seeds) {
    if (seeds.size() != size_t(models_))
        throw std::invalid_argument(std::to_string(seeds.size()) +
                                    " dropout seeds for a population of " +
                                    std::to_string(models_) + " models");
    dropoutSeeds_ = std::move(seeds);
}

BufRef Network::forward(BufRef x, int batch, bool training) {
    BufRef cur = x;
    batch *= models_;  // the layers count every model's rows
    for (size_t i = 0; i < layers_.size(); ++i) {
        if (training && models_ > 1) {
            std::vector<uint64_t> seeds(dropoutSeeds_.size());
            for (size_t m = 0; m < seeds.size(); ++m) seeds[m] = dropoutSeeds_[m] * 1000003ull + i;
            layers_[i]->setDropoutStreams(std::move(seeds), dropoutStep_);
        } else if (training) {
            layers_[i]->setDropoutStream(dropoutSeed_ * 1000003ull + i, dropoutStep_);
        }
        if (const DenseRun* run = runStartingAt(i)) {  // dense layers draw no dropout masks
            backend_->denseChainForward({chainArgs(*run, cur, batch)});
            i += run->count - 1;
        } else {
            layers_[i]->forward(cur, batch, training);
        }
        cur = layers_[i]->output();
    }
    if (training) ++dropoutStep_;
    return cur;
}

void Network::backward(BufRef x, BufRef dy, int batch) {
    BufRef grad = dy;
    batch *= models_;
    for (size_t i = layers_.size(); i-- > 0;) {
        const DenseRun* run = runEndingAt(i);
        if (run) i = run->first;
        BufRef in = i == 0 ? x : layers_[i - 1]->output();
        BufRef dx = i == 0 ? BufRef() : BufRef(grads_[i - 1]);
        if (run) {
            DenseChainArgs a = chainArgs(*run, in, batch);
            a.dy = grad;
            a.dx = dx;
            backend_->denseChainBackward({a});
        } else {
            layers_[i]->backward(in, grad, dx, batch);
        }
        grad = dx;
    }
}

void Network::zeroGrad() {
    if (!arena_ || arena_->used() == 0) return;
    // A population's models back to back, each a whole arena (capacity) apart.
    backend_->fill(
        {arena_->grads(), arena_->capacity() * size_t(models_ - 1) + arena_->used(), 0.0f});
}

std::vector<NamedParam> Network::params() {
    std::vector<NamedParam> out;
    for (size_t i = 0; i < layers_.size(); ++i)
        for (Param* p : layers_[i]->params())
            out.push_back({"layers." + std::to_string(i) + "." + p->name, p});
    return out;
}

std::vector<AttentionScores> Network::readScores(int sample) {
    std::vector<AttentionScores> out;
    for (size_t i = 0; i < layers_.size(); ++i)
        for (auto& s : layers_[i]->readScores(sample)) {
            s.name = "layers." + std::to_string(i) + (s.name.empty() ? "" : "." + s.name);
            out.push_back(std::move(s));
        }
    return out;
}

}  // namespace nnwb
