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
    // Allocates `capacity` values and as many (zeroed) gradients.
    ParamArena(Backend& backend, size_t capacity);
    ParamArena(const ParamArena&) = delete;
    ParamArena& operator=(const ParamArena&) = delete;

    // The next `count` values and gradients; throws std::logic_error past the capacity.
    void take(Param& p);
    size_t capacity() const { return capacity_; }
    size_t used() const { return used_; }
    BufRef values() const { return values_; }
    BufRef grads() const { return grads_; }

private:
    size_t capacity_, used_ = 0;
    Buffer values_, grads_;
};

}  // namespace nnwb
