// Move-only RAII owners for OpenCL objects (context, queue, program, kernel, mem, event):
// each releases its object once when destroyed. Used by OpenClBackend on its owning thread.
#pragma once

#include <CL/cl.h>

#include <utility>

namespace nnwb {

inline void clReleaseHandle(cl_context h) {
    clReleaseContext(h);
}
inline void clReleaseHandle(cl_command_queue h) {
    clReleaseCommandQueue(h);
}
inline void clReleaseHandle(cl_program h) {
    clReleaseProgram(h);
}
inline void clReleaseHandle(cl_kernel h) {
    clReleaseKernel(h);
}
inline void clReleaseHandle(cl_mem h) {
    clReleaseMemObject(h);
}
inline void clReleaseHandle(cl_event h) {
    clReleaseEvent(h);
}

template <typename T>
class ClHandle {
public:
    ClHandle() = default;
    explicit ClHandle(T h) noexcept : h_(h) {}
    ~ClHandle() { reset(); }
    ClHandle(const ClHandle&) = delete;
    ClHandle& operator=(const ClHandle&) = delete;
    ClHandle(ClHandle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    ClHandle& operator=(ClHandle&& o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, nullptr);
        }
        return *this;
    }
    T get() const noexcept { return h_; }
    explicit operator bool() const noexcept { return h_ != nullptr; }
    T release() noexcept { return std::exchange(h_, nullptr); }
    void reset(T h = nullptr) noexcept {
        if (h_) clReleaseHandle(h_);
        h_ = h;
    }

private:
    T h_ = nullptr;
};

using ClContext = ClHandle<cl_context>;
using ClQueue = ClHandle<cl_command_queue>;
using ClProgram = ClHandle<cl_program>;
using ClKernel = ClHandle<cl_kernel>;
using ClMem = ClHandle<cl_mem>;
using ClEvent = ClHandle<cl_event>;

}  // namespace nnwb
