#include "compute/EnqueueFaults.h"

#include <cstdlib>

namespace nnwb {

EnqueueFaults::EnqueueFaults() {
    const char* v = std::getenv("NNWB_CL_FAIL_AFTER");
    if (v && *v) failAt_ = std::strtoull(v, nullptr, 10);
}

cl_int EnqueueFaults::next() {
    ++count_;
    return failAt_ != 0 && count_ >= failAt_ ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
}

std::string EnqueueFaults::note() const {
    if (failAt_ == 0 || count_ < failAt_) return {};
    return " (injected by NNWB_CL_FAIL_AFTER=" + std::to_string(failAt_) + ")";
}

}  // namespace nnwb
