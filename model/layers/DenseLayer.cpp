#include "model/layers/DenseLayer.h"

#include <cmath>
#include <stdexcept>

#include "model/layers/ActivationNames.h"
#include "model/layers/LayerRegistry.h"

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
    w_ = makeParam(be, "weight", {neurons_, in_});
    b_ = makeParam(be, "bias", {neurons_});
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
    GemmArgs g;
    g.transB = true;
    g.m = batch;
    g.n = neurons_;
    g.k = in_;
    g.a = x;
    g.lda = in_;
    g.b = w_.value;
    g.ldb = in_;
    g.c = z_;
    g.ldc = neurons_;
    be_->gemm(g);
    be_->biasActivation(batch, neurons_, z_, b_.value, z_, y_, act_);
}

void DenseLayer::backward(BufRef x, BufRef dy, BufRef dx, int batch) {
    be_->activationBackward(batch, neurons_, z_, y_, dy, dz_, act_);
    GemmArgs gw;  // dW += dZ^T X
    gw.transA = true;
    gw.m = neurons_;
    gw.n = in_;
    gw.k = batch;
    gw.a = dz_;
    gw.lda = neurons_;
    gw.b = x;
    gw.ldb = in_;
    gw.c = w_.grad;
    gw.ldc = in_;
    gw.beta = 1.0f;
    be_->gemm(gw);
    be_->biasGradient(batch, neurons_, dz_, b_.grad);
    if (dx.empty()) return;
    GemmArgs gx;  // dX = dZ W
    gx.m = batch;
    gx.n = in_;
    gx.k = neurons_;
    gx.a = dz_;
    gx.lda = neurons_;
    gx.b = w_.value;
    gx.ldb = in_;
    gx.c = dx;
    gx.ldc = in_;
    be_->gemm(gx);
}

}  // namespace nnwb
