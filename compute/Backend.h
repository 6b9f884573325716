// The compute interface every device implements: device buffers, transfers and the primitive
// ops (each a forward/backward pair where one is needed) that layers are written in.
// A Backend and its buffers belong to the one thread that created them (the training worker,
// the CLI, a test); nothing here is thread-safe across callers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compute/Buffer.h"
#include "compute/ComputeError.h"
#include "compute/Ops.h"

namespace nnwb {

struct DeviceInfo {
    std::string id;    // "cpu" or "opencl:P:D"
    std::string name;  // device name
    std::string vendor;
    std::string platform;
    std::string version;  // e.g. "OpenCL 3.0 PoCL ..." or "native C++"
    std::string type;     // "CPU", "GPU", "accelerator"
    int computeUnits = 0;
    uint64_t globalMemory = 0;  // bytes
    uint64_t maxAlloc = 0;      // bytes
    uint64_t localMemory = 0;   // bytes of local memory per work-group (OpenCL)
};

// The precision of float32 matrix products, as torch.set_float32_matmul_precision: Highest =
// float32 arithmetic (the default, the reference), High = operands rounded to TF32 (10-bit
// mantissa) on tensor cores with float32 sums, where the device has them.
enum class MatmulPrecision { Highest, High };
const char* matmulPrecisionName(MatmulPrecision p);  // "highest", "high"
// "highest" or "high"; false for anything else.
bool matmulPrecisionFromName(const std::string& name, MatmulPrecision& out);

class Backend {
public:
    virtual ~Backend() = default;
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    virtual DeviceInfo info() const = 0;
    // False for a backend that only measures what would be allocated (MeasuringBackend):
    // work that fills host copies first (weight initialization) is skipped there.
    virtual bool computes() const { return true; }

    // Buffers hold `count` float32 values (the CPU backend may keep double internally).
    virtual Buffer alloc(size_t count) = 0;
    virtual void upload(BufRef dst, const float* src, size_t count) = 0;
    virtual void download(BufRef src, float* dst, size_t count) = 0;
    // Double-precision transfers; exact only on a backend that stores doubles.
    virtual void uploadF64(BufRef dst, const double* src, size_t count);
    virtual void downloadF64(BufRef src, double* dst, size_t count);
    virtual void synchronize() = 0;

    // Whether attentionBlockForward/Backward run fused here for this shape (the device's
    // local memory and work-group limits, element-wise activations, not switched off); the
    // caller composes the block from the other ops where not. Default: never.
    virtual bool fusesAttentionBlock(const AttentionBlockShape& s) const {
        (void)s;
        return false;
    }

    // Float32 matrix products at precision p from now on; returns the precision this backend
    // then runs, Highest where it has no High path (the CPU; OpenCL devices without TF32
    // tensor cores). Default: Highest always.
    virtual MatmulPrecision setMatmulPrecision(MatmulPrecision p) {
        (void)p;
        return MatmulPrecision::Highest;
    }

    // ---- the ops (compute/Ops.h): one public entry per op ----
    // Each checks its arguments once (OpCheck: sizes, extents, buffers of this backend,
    // aliasing) and then runs the backend's implementation; an op the backend does not
    // implement throws ComputeError "<op>: not supported on <device>".
#define NNWB_OP_ENTRY(Name, name) void name(const Name##Args& args);
    NNWB_OPS(NNWB_OP_ENTRY)
#undef NNWB_OP_ENTRY
protected:
    Backend() = default;
    // The implementations, called with checked arguments. The defaults: the composite ops
    // (gemmBiasActivation, activationBiasBackward, addNormForward, addNormBackward) run their
    // parts through the entries; every other op throws "not supported".
#define NNWB_OP_IMPL(Name, name) virtual void name##Impl(const Name##Args& args);
    NNWB_OPS(NNWB_OP_IMPL)
#undef NNWB_OP_IMPL
    [[noreturn]] void unsupported(OpId op) const;
    friend class Buffer;
    virtual void release(void* handle) noexcept = 0;
};

}  // namespace nnwb
