// Fully connected layer y = f(W x + b) over the whole (flattened) input of each sample, with
// any activation of docs/ARCHITECTURE.md §3. Output shape {1, neurons}. Runs as a population
// (one product per model in one launch). Thread: the backend's owner.
#pragma once

#include "model/layers/Layer.h"

namespace nnwb {

class DenseLayer final : public Layer {
public:
    DenseLayer(int neurons, Activation act) : neurons_(neurons), act_(act) {}
    static LayerPtr fromJson(const nlohmann::json& j);

    std::string type() const override { return "dense"; }
    nlohmann::json toJson() const override;
    Shape outputShape(const Shape& in) const override;
    size_t parameterCount(const Shape& in) const override {
        return size_t(neurons_) * in.size() + size_t(neurons_);
    }
    std::vector<Param*> params() override { return {&w_, &b_}; }
    bool supportsPopulation() const override { return true; }
    void build(Backend& backend, const Shape& in, int maxBatch) override;
    void initWeights(Rng& rng) override;
    void forward(BufRef x, int batch, bool training) override;
    BufRef output() const override { return y_; }
    void backward(BufRef x, BufRef dy, BufRef dx, int batch) override;
    // This layer as one layer of a dense chain (after build; Network runs consecutive dense
    // layers as one DenseChainForward / DenseChainBackward op).
    DenseChainLayer chainLayer();

private:
    int neurons_;
    Activation act_;
    Backend* be_ = nullptr;
    int in_ = 0;
    Param w_, b_;
    Buffer z_, y_, dz_;
};

}  // namespace nnwb
