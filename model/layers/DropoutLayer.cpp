#include "model/layers/DropoutLayer.h"

#include <stdexcept>
#include <vector>

#include "model/layers/LayerRegistry.h"

namespace nnwb {

DropoutLayer::DropoutLayer(double rate) : rate_(rate) {
    if (!(rate >= 0.0 && rate < 1.0))
        throw std::invalid_argument("rate: " + std::to_string(rate) + " is outside 0 <= rate < 1");
}

LayerPtr DropoutLayer::fromJson(const nlohmann::json& j) {
    return std::make_unique<DropoutLayer>(jsonReal(j, layerParam("dropout", "rate")));
}

nlohmann::json DropoutLayer::toJson() const {
    return {{"type", type()}, {"rate", rate_}};
}

Shape DropoutLayer::outputShape(const Shape& in) const {
    if (in.size() == 0) throw std::invalid_argument("empty input");
    return in;
}

void DropoutLayer::build(Backend& be, const Shape& in, int maxBatch) {
    be_ = &be;
    size_ = in.size();
    y_ = be.alloc(size_t(maxBatch) * size_);
    mask_ = be.alloc(size_t(maxBatch) * size_);
    if (models() > 1) bases_ = be.alloc(4 * size_t(models()));
    basesHost_.clear();
}

void DropoutLayer::forward(BufRef x, int batch, bool training) {
    const size_t n = size_t(batch) * size_;
    masked_ = training && rate_ > 0.0;
    if (masked_ && models() > 1) {
        std::vector<float> bases = dropoutBasesOf(0);
        if (bases != basesHost_) {  // the seeds stay for a run: one upload
            be_->upload(bases_, bases.data(), bases.size());
            basesHost_ = std::move(bases);
        }
        DropoutForwardArgs a{n, float(rate_), 0, x, mask_, y_};
        a.models = models();
        a.bases = bases_;
        a.step = dropoutStep();
        be_->dropoutForward(a);
    } else if (masked_)
        be_->dropoutForward({n, float(rate_), dropoutKeyOf(0), x, mask_, y_});
    else
        be_->copy({x, y_, n});
}

void DropoutLayer::backward(BufRef, BufRef dy, BufRef dx, int batch) {
    if (dx.empty()) return;
    const size_t n = size_t(batch) * size_;
    if (masked_)
        be_->dropoutBackward({n, mask_, dy, dx});
    else
        be_->copy({dy, dx, n});
}

}  // namespace nnwb
