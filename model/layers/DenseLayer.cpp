#include "model/layers/DenseLayer.h"

#include <cmath>
#include <stdexcept>

#include "model/layers/ActivationNames.h"
#include "model/layers/LayerRegistry.h"
#include "model/layers/LinearOps.h"

namespace nnwb {

LayerPtr DenseLayer::fromJson(const nlohmann::json& j) {
    const auto* t = findLayerType("dense");
    return std::make_unique<DenseLayer>(jsonInt(j, t->params[0]),
                                        activationFromName(jsonChoice(j, t->params[1])));
}

nlohmann::json DenseLayer::toJson() const {
    return {{"type", type()}, {"neurons", neurons_}, {"activation", activationName(act_)}};
}

Shape DenseLayer::outputShape(const Shape& in) const {
    if (in.size() == 0) throw std::invalid_argument("empty input");
    return Shape{1, neurons_};
}

void DenseLayer::build(Backend& be, const Shape& in, int maxBatch) {
    be_ = &be;
    in_ = static_cast<int>(in.size());
    w_ = makeParam(be, arena(), "weight", {neurons_, in_}, models());
    b_ = makeParam(be, arena(), "bias", {neurons_}, models());
    if (maxBatch % models() != 0)
        throw std::invalid_argument("batch " + std::to_string(maxBatch) +
                                    " is not a multiple of the population's " +
                                    std::to_string(models()) + " models");
    const size_t out = static_cast<size_t>(maxBatch) * neurons_;
    z_ = be.alloc(out);
    y_ = be.alloc(out);
    dz_ = be.alloc(out);
}

void DenseLayer::initWeights(Rng& rng) {
    initUniform(*be_, w_, rng, std::sqrt(6.0 / (in_ + neurons_)));
    initConstant(*be_, b_, 0.0f);
}

void DenseLayer::forward(BufRef x, int batch, bool) {
    linearForward(*be_, x, batch, in_, neurons_, w_, b_, z_, y_, act_);
}

DenseChainLayer DenseLayer::chainLayer() {
    // one model: no stride (a layer built without an arena has different ones per tensor)
    const size_t stride = w_.models > 1 ? w_.modelStride : 0;
    if (w_.models > 1 && w_.modelStride != b_.modelStride)
        throw std::logic_error("dense layer: weight and bias with different model strides");
    return {in_, neurons_, act_, w_.value, b_.value, w_.grad, b_.grad, stride, z_, y_, dz_};
}

void DenseLayer::backward(BufRef x, BufRef dy, BufRef dx, int batch) {
    linearBackward(*be_, x, batch, in_, neurons_, w_, b_, z_, y_, dy, dz_, dx, act_);
}

}  // namespace nnwb
