#include "model/layers/ParamArena.h"

#include <algorithm>
#include <stdexcept>

#include "model/layers/Layer.h"

namespace nnwb {

ParamArena::ParamArena(Backend& be, size_t capacity, int models)
    : capacity_(capacity),
      models_(models),
      values_(be.alloc(capacity * size_t(std::max(models, 1)))),
      grads_(be.alloc(capacity * size_t(std::max(models, 1)))) {
    if (models < 1)
        throw std::invalid_argument("parameter arena: models must be at least 1 (got " +
                                    std::to_string(models) + ")");
    be.fill({grads_, grads_.size(), 0.0f});
}

void ParamArena::take(Param& p) {
    const size_t n = p.count();
    if (used_ + n > capacity_)
        throw std::logic_error("parameter '" + p.name + "' (" + std::to_string(n) +
                               " values) does not fit the parameter arena: " +
                               std::to_string(used_) + " of " + std::to_string(capacity_) +
                               " values taken (a layer's parameterCount() disagrees with build())");
    p.value = BufRef(values_, used_);
    p.grad = BufRef(grads_, used_);
    p.modelStride = capacity_;
    used_ += n;
}

}  // namespace nnwb
