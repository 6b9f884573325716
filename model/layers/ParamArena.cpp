#include "model/layers/ParamArena.h"

#include <stdexcept>

#include "model/layers/Layer.h"

namespace nnwb {

ParamArena::ParamArena(Backend& be, size_t capacity)
    : capacity_(capacity), values_(be.alloc(capacity)), grads_(be.alloc(capacity)) {
    be.fill({grads_, capacity, 0.0f});
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
    used_ += n;
}

}  // namespace nnwb
