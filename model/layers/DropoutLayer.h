// The dropout layer (JSON type "dropout", parameter rate, 0 <= rate < 1): in a training
// forward each value is zeroed with probability `rate` and the kept ones are scaled by
// 1 / (1 - rate) (inverted dropout; mask from the layer's dropout stream, Layer.h); outside
// training it is the identity. Shape preserving, no parameters. As a population, model m
// draws the masks of its own dropout stream (Layer::setDropoutStreams). Thread: the backend's
// owner.
#pragma once

#include "model/layers/Layer.h"

namespace nnwb {

class DropoutLayer final : public Layer {
public:
    explicit DropoutLayer(double rate);
    static LayerPtr fromJson(const nlohmann::json& j);

    double rate() const { return rate_; }
    std::string type() const override { return "dropout"; }
    nlohmann::json toJson() const override;
    Shape outputShape(const Shape& in) const override;
    size_t parameterCount(const Shape&) const override { return 0; }
    void build(Backend& backend, const Shape& in, int maxBatch) override;
    void initWeights(Rng&) override {}
    void forward(BufRef x, int batch, bool training) override;
    BufRef output() const override { return y_; }
    void backward(BufRef x, BufRef dy, BufRef dx, int batch) override;
    // The mask of the last training forward (0 or 1 / (1 - rate) per value).
    BufRef mask() const { return mask_; }
    bool supportsPopulation() const override { return true; }

private:
    double rate_;
    Backend* be_ = nullptr;
    size_t size_ = 0;      // values per sample
    bool masked_ = false;  // the last forward applied a mask
    Buffer y_, mask_;
    Buffer bases_;                  // a population's key bases on the device
    std::vector<float> basesHost_;  // what bases_ holds (uploaded again only when it changes)
};

}  // namespace nnwb
