#include "model/Loss.h"

#include <stdexcept>

namespace nnwb {

std::string lossName(LossKind k) {
    return k == LossKind::Mse ? "mse" : "cross_entropy";
}

LossKind lossFromName(const std::string& s) {
    if (s == "mse") return LossKind::Mse;
    if (s == "cross_entropy") return LossKind::CrossEntropy;
    throw std::invalid_argument("unknown loss '" + s + "' (one of: mse, cross_entropy)");
}

Loss::Loss(Backend& be, LossKind kind, int outputs, int maxBatch)
    : be_(be), kind_(kind), outputs_(outputs) {
    const size_t n = static_cast<size_t>(maxBatch) * outputs;
    dy_ = be.alloc(n);
    loss_ = be.alloc(static_cast<size_t>(maxBatch));
    if (kind == LossKind::CrossEntropy) prob_ = be.alloc(n);
}

void Loss::compute(BufRef output, BufRef target, int batch, int models) {
    const float scale = 1.0f / static_cast<float>(batch);
    const int rows = batch * models;
    if (kind_ == LossKind::Mse)
        be_.mseLoss({rows, outputs_, output, target, dy_, loss_, scale});
    else
        be_.softmaxCrossEntropy({rows, outputs_, output, target, prob_, dy_, loss_, scale});
}

BufRef Loss::prediction(BufRef output) const {
    return kind_ == LossKind::Mse ? output : BufRef(prob_);
}

}  // namespace nnwb
