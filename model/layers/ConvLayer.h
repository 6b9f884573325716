// The MQL5 "convolution" layer: a dense projection y = f(W w + b) applied to each window of
// `window` consecutive input values moved by `step`, `filters` outputs per position. Input is
// the flattened sample; output shape {positions, filters}. `window` 0 takes the input's values
// per element (so the layer follows the data's feature count), `step` 0 equals the window.
// Runs as a population (unfold over every model's rows, one product per model in one launch).
// Thread: the backend's owner.
#pragma once

#include "model/layers/Layer.h"

namespace nnwb {

class ConvLayer final : public Layer {
public:
    ConvLayer(int window, int step, int filters, Activation act)
        : cfgWindow_(window),
          cfgStep_(step),
          window_(window),
          step_(step),
          filters_(filters),
          act_(act) {}
    static LayerPtr fromJson(const nlohmann::json& j);

    std::string type() const override { return "conv"; }
    nlohmann::json toJson() const override;
    Shape outputShape(const Shape& in) const override;
    size_t parameterCount(const Shape& in) const override {
        return size_t(filters_) * (size_t(windowFor(in)) + 1);
    }
    void build(Backend& backend, const Shape& in, int maxBatch) override;
    void initWeights(Rng& rng) override;
    void forward(BufRef x, int batch, bool training) override;
    BufRef output() const override { return y_; }
    void backward(BufRef x, BufRef dy, BufRef dx, int batch) override;
    std::vector<Param*> params() override { return {&w_, &b_}; }
    bool supportsPopulation() const override { return true; }
    // The window and step this layer takes on input `in` (0 in the config: from the input)
    int windowFor(const Shape& in) const { return cfgWindow_ > 0 ? cfgWindow_ : in.window; }
    int stepFor(const Shape& in) const { return cfgStep_ > 0 ? cfgStep_ : windowFor(in); }

private:
    bool direct() const { return step_ == window_ && len_ == positions_ * window_; }
    int cfgWindow_, cfgStep_;  // as configured (0: from the input)
    int window_, step_;        // as built
    int filters_;
    Activation act_;
    Backend* be_ = nullptr;
    int len_ = 0, positions_ = 0;
    Param w_, b_;
    Buffer cols_, dcols_, z_, y_, dz_;
};

}  // namespace nnwb
