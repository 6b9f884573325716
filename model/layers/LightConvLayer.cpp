#include "model/layers/LightConvLayer.h"

#include <cmath>
#include <stdexcept>

#include "model/layers/LayerRegistry.h"

namespace nnwb {

bool LightConvLayer::validKernelSize(int k) {
    return k == 3 || k == 5 || k == 7 || k == 15 || k == 31;
}

LightConvLayer::LightConvLayer(int units, int window, int heads, int kernelSize, Padding padding,
                               bool softmaxTaps)
    : units_(units),
      window_(window),
      heads_(heads),
      k_(kernelSize),
      padding_(padding),
      softmax_(softmaxTaps) {
    if (!validKernelSize(k_))
        throw std::invalid_argument("kernel_size: " + std::to_string(k_) +
                                    " is not one of 3, 5, 7, 15, 31");
}

LayerPtr LightConvLayer::fromJson(const nlohmann::json& j) {
    const std::string t = "lightconv";
    return std::make_unique<LightConvLayer>(
        jsonInt(j, layerParam(t, "units")), jsonInt(j, layerParam(t, "window")),
        jsonInt(j, layerParam(t, "heads")), jsonInt(j, layerParam(t, "kernel_size")),
        jsonChoice(j, layerParam(t, "padding_l")) == "causal" ? Padding::Causal : Padding::Centred,
        jsonBool(j, layerParam(t, "softmax_taps")));
}

nlohmann::json LightConvLayer::toJson() const {
    return {{"type", type()},
            {"units", units_},
            {"window", window_},
            {"heads", heads_},
            {"kernel_size", k_},
            {"padding_l", padding_ == Padding::Causal ? "causal" : "centred"},
            {"softmax_taps", softmax_}};
}

Shape LightConvLayer::outputShape(const Shape& in) const {
    if (window_ != 0 && in.window != window_)
        throw std::invalid_argument("window " + std::to_string(window_) +
                                    " does not match the input's " + std::to_string(in.window) +
                                    " values per element");
    if (units_ != 0 && in.units != units_)
        throw std::invalid_argument("units " + std::to_string(units_) +
                                    " does not match the input's " + std::to_string(in.units) +
                                    " elements");
    if (in.window % heads_ != 0)
        throw std::invalid_argument("the input's " + std::to_string(in.window) +
                                    " values per element are not divisible by " +
                                    std::to_string(heads_) + " heads");
    return in;
}

void LightConvLayer::build(Backend& be, const Shape& in, int maxBatch) {
    outputShape(in);
    be_ = &be;
    in_ = in;
    if (maxBatch % models() != 0)
        throw std::invalid_argument("batch " + std::to_string(maxBatch) +
                                    " is not a multiple of the population's " +
                                    std::to_string(models()) + " models");
    w_ = makeParam(be, arena(), "weight", {heads_, k_}, models());
    wsm_ = be.alloc(w_.count() * size_t(models()));
    y_ = be.alloc(size_t(maxBatch) * in.size());
}

void LightConvLayer::initWeights(Rng& rng) {
    // Xavier uniform of fairseq's weight tensor [heads, 1, K]: fan_in K, fan_out heads * K.
    initUniform(*be_, w_, rng, std::sqrt(6.0 / (k_ + double(heads_) * k_)));
}

void LightConvLayer::forward(BufRef x, int batch, bool) {
    LightConvForwardArgs a{batch,    in_.units, in_.window, heads_, k_, padLeft(),
                           softmax_, x,         w_.value,   wsm_,   y_};
    if (models() > 1) {
        a.models = models();
        a.weightStride = w_.modelStride;
    }
    be_->lightConvForward(a);
}

void LightConvLayer::backward(BufRef x, BufRef dy, BufRef dx, int batch) {
    LightConvBackwardArgs a{batch, in_.units, in_.window, heads_, k_, padLeft(), softmax_,
                            x,     w_.value,  wsm_,       dy,     dx, w_.grad};
    if (models() > 1) {
        a.models = models();
        a.weightStride = w_.modelStride;
    }
    be_->lightConvBackward(a);
}

}  // namespace nnwb
