#include "model/layers/ConvLayer.h"

#include <cmath>
#include <stdexcept>

#include "model/layers/ActivationNames.h"
#include "model/layers/LayerRegistry.h"
#include "model/layers/LinearOps.h"

namespace nnwb {

LayerPtr ConvLayer::fromJson(const nlohmann::json& j) {
    const auto* t = findLayerType("conv");
    return std::make_unique<ConvLayer>(jsonInt(j, t->params[0]), jsonInt(j, t->params[1]),
                                       jsonInt(j, t->params[2]),
                                       activationFromName(jsonChoice(j, t->params[3])));
}

nlohmann::json ConvLayer::toJson() const {
    return {{"type", type()},
            {"window", cfgWindow_},
            {"step", cfgStep_},
            {"filters", filters_},
            {"activation", activationName(act_)}};
}

Shape ConvLayer::outputShape(const Shape& in) const {
    const int len = static_cast<int>(in.size());
    const int window = windowFor(in), step = stepFor(in);
    if (len < window)
        throw std::invalid_argument("window " + std::to_string(window) +
                                    " is longer than the input (" + std::to_string(len) +
                                    " values)");
    return Shape{(len - window) / step + 1, filters_};
}

void ConvLayer::build(Backend& be, const Shape& in, int maxBatch) {
    be_ = &be;
    window_ = windowFor(in);
    step_ = stepFor(in);
    len_ = static_cast<int>(in.size());
    positions_ = outputShape(in).units;
    if (maxBatch % models() != 0)
        throw std::invalid_argument("batch " + std::to_string(maxBatch) +
                                    " is not a multiple of the population's " +
                                    std::to_string(models()) + " models");
    w_ = makeParam(be, arena(), "weight", {filters_, window_}, models());
    b_ = makeParam(be, arena(), "bias", {filters_}, models());
    const size_t rows = static_cast<size_t>(maxBatch) * positions_;
    if (!direct()) {
        cols_ = be.alloc(rows * window_);
        dcols_ = be.alloc(rows * window_);
    }
    z_ = be.alloc(rows * filters_);
    y_ = be.alloc(rows * filters_);
    dz_ = be.alloc(rows * filters_);
}

void ConvLayer::initWeights(Rng& rng) {
    initUniform(*be_, w_, rng, std::sqrt(6.0 / (window_ + filters_)));
    initConstant(*be_, b_, 0.0f);
}

void ConvLayer::forward(BufRef x, int batch, bool) {
    BufRef cols = x;
    if (!direct()) {
        be_->unfold({batch, len_, window_, step_, positions_, x, cols_});
        cols = cols_;
    }
    linearForward(*be_, cols, batch * positions_, window_, filters_, w_, b_, z_, y_, act_);
}

void ConvLayer::backward(BufRef x, BufRef dy, BufRef dx, int batch) {
    const BufRef cols = direct() ? x : BufRef(cols_);
    const BufRef dcols = dx.empty() ? BufRef() : direct() ? dx : BufRef(dcols_);
    linearBackward(*be_, cols, batch * positions_, window_, filters_, w_, b_, z_, y_, dy, dz_,
                   dcols, act_);
    if (!dx.empty() && !direct()) be_->fold({batch, len_, window_, step_, positions_, dcols_, dx});
}

}  // namespace nnwb
