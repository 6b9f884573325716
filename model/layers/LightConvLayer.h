// Lightweight convolution (fairseq's LightweightConv1d, JSON type "lightconv"): a depthwise 1-D
// convolution over the sequence with `heads` kernels of `kernel_size` taps, kernel h shared by
// the window/heads channels of head h; left padding K-1 ("causal") or K/2 ("centred"); optional
// softmax over the taps. Param "weight" [heads][kernel_size], no bias. Shape preserving
// {units, window}; built on Backend::lightConvForward/Backward. Runs as a population (each
// model's taps, one launch per op for all models). Thread: the backend's owner.
#pragma once

#include "model/layers/Layer.h"

namespace nnwb {

class LightConvLayer final : public Layer {
public:
    enum class Padding { Causal, Centred };
    LightConvLayer(int units, int window, int heads, int kernelSize, Padding padding,
                   bool softmaxTaps);
    static LayerPtr fromJson(const nlohmann::json& j);
    static bool validKernelSize(int k);

    std::string type() const override { return "lightconv"; }
    nlohmann::json toJson() const override;
    Shape outputShape(const Shape& in) const override;
    size_t parameterCount(const Shape&) const override { return size_t(heads_) * k_; }
    void build(Backend& backend, const Shape& in, int maxBatch) override;
    void initWeights(Rng& rng) override;
    void forward(BufRef x, int batch, bool training) override;
    BufRef output() const override { return y_; }
    void backward(BufRef x, BufRef dy, BufRef dx, int batch) override;
    std::vector<Param*> params() override { return {&w_}; }
    bool supportsPopulation() const override { return true; }

    int padLeft() const { return padding_ == Padding::Causal ? k_ - 1 : k_ / 2; }

private:
    int units_, window_, heads_, k_;
    Padding padding_;
    bool softmax_;
    Backend* be_ = nullptr;
    Shape in_;
    Param w_;
    Buffer wsm_, y_;
};

}  // namespace nnwb
