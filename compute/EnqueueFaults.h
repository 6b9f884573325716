// Test-only fault injection for the OpenCL backend: with NNWB_CL_FAIL_AFTER=N in the
// environment when a backend is created, its Nth enqueue (kernel launch, upload or download)
// and every one after it fail with CL_OUT_OF_RESOURCES, as on a lost or hung device. Off when
// the variable is unset. One per backend, used on the thread that owns the backend.
#pragma once

#include <cstdint>
#include <string>

#include <CL/cl.h>

namespace nnwb {

class EnqueueFaults {
public:
    EnqueueFaults();  // reads NNWB_CL_FAIL_AFTER
    // Counts one enqueue; CL_SUCCESS, or the injected error the caller must report instead of
    // enqueueing.
    cl_int next();
    // " (injected by NNWB_CL_FAIL_AFTER=N)" once a fault was injected, else empty.
    std::string note() const;
    uint64_t count() const { return count_; }

private:
    uint64_t failAt_ = 0;  // 0: never
    uint64_t count_ = 0;
};

}  // namespace nnwb
