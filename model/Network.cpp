#include "model/Network.h"

#include <algorithm>

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
    arena_ = std::make_unique<ParamArena>(backend, std::max<size_t>(parameterCount(), 1));
    for (size_t i = 0; i < layers_.size(); ++i) {
        layers_[i]->setParamArena(arena_.get());
        layers_[i]->build(backend, in, maxBatch);
        if (i + 1 < layers_.size())
            grads_.push_back(backend.alloc(static_cast<size_t>(maxBatch) * shapes_[i].size()));
        in = shapes_[i];
    }
    if (arena_->used() != parameterCount())
        throw std::logic_error("the layers took " + std::to_string(arena_->used()) +
                               " parameter values but count " + std::to_string(parameterCount()));
}

void Network::initWeights(uint64_t seed) {
    // Measuring what a run needs (a network of any size): no host copies to fill.
    if (backend_ && !backend_->computes()) return;
    for (size_t i = 0; i < layers_.size(); ++i) {
        Rng rng(seed * 1000003ull + i);
        layers_[i]->initWeights(rng);
    }
}

BufRef Network::forward(BufRef x, int batch, bool training) {
    BufRef cur = x;
    for (size_t i = 0; i < layers_.size(); ++i) {
        if (training) layers_[i]->setDropoutStream(dropoutSeed_ * 1000003ull + i, dropoutStep_);
        layers_[i]->forward(cur, batch, training);
        cur = layers_[i]->output();
    }
    if (training) ++dropoutStep_;
    return cur;
}

void Network::backward(BufRef x, BufRef dy, int batch) {
    BufRef grad = dy;
    for (size_t i = layers_.size(); i-- > 0;) {
        BufRef in = i == 0 ? x : layers_[i - 1]->output();
        BufRef dx = i == 0 ? BufRef() : BufRef(grads_[i - 1]);
        layers_[i]->backward(in, grad, dx, batch);
        grad = dx;
    }
}

void Network::zeroGrad() {
    if (arena_ && arena_->used() > 0) backend_->fill({arena_->grads(), arena_->used(), 0.0f});
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
