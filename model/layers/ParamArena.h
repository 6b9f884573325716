// One pair of device buffers (values, gradients) holding every parameter of a network back to
// back, so that zeroing gradients, an optimizer step, a weights snapshot or a finiteness check
// is one launch over the whole model. Layers take consecutive slices at build time.
// Used by the thread owning the backend.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "compute/Backend.h"

namespace nnwb {

struct Param;

class ParamArena {
public:
    // Allocates `capacity` values and as many (zeroed) gradients; with `models` > 1 (a
    // population, docs/decisions/population.md) that many copies back to back: model m's
    // parameters are the slice [m * capacity, (m + 1) * capacity), laid out as a single model's.
    ParamArena(Backend& backend, size_t capacity, int models = 1);
    ParamArena(const ParamArena&) = delete;
    ParamArena& operator=(const ParamArena&) = delete;

    // The next `count` values and gradients (of model 0; Param::modelStride to the others);
    // throws std::logic_error past the capacity.
    void take(Param& p);
    size_t capacity() const { return capacity_; }  // per model
    int models() const { return models_; }
    size_t used() const { return used_; }
    BufRef values() const { return values_; }
    BufRef grads() const { return grads_; }

private:
    size_t capacity_, used_ = 0;
    int models_ = 1;
    Buffer values_, grads_;
};

}  // namespace nnwb
