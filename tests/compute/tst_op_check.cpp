// compute/Ops.h's OpCheck, which every op entry runs on each buffer it touches: a passing check
// allocates nothing (its message strings were built on every call, about 7 % of a 5x8 b1 CPU
// training step), and a failing one still names the op, the argument and why.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "compute/CpuBackend.h"

namespace {
std::atomic<long> allocations{0};
}  // namespace

// Counts this program's heap allocations (malloc and free behind new and delete).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n > 0 ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}

using namespace nnwb;

namespace {

std::string failureOf(const OpCheck& c, BufRef r, size_t n) {
    try {
        c.buf(r, n, "C");
    } catch (const ComputeError& e) {
        return e.what();
    }
    return "(passed)";
}

TEST(OpCheck, passingBufferChecksAllocateNothing) {
    CpuBackend be(Precision::Float, 1);
    Buffer b = be.alloc(64);
    // A real op's name and argument: the message's start, "projectionGradient gradient: ", is
    // longer than a string keeps without the heap.
    const OpCheck c(&be, "projectionGradient");
    const long before = allocations.load();
    for (size_t off = 0; off < 64; ++off) {
        c.buf(BufRef(b) + off, 64 - off, "gradient");
        c.optional(BufRef(b) + off, 1, "bias gradient");
        c.buf(BufRef{}, 0, "unused");  // nothing accessed: nothing checked
    }
    EXPECT_EQ(allocations.load() - before, 0);
}

TEST(OpCheck, failingBufferChecksNameTheOpTheArgumentAndWhy) {
    CpuBackend be(Precision::Float, 1), other(Precision::Float, 1);
    Buffer b = be.alloc(64), o = other.alloc(64);
    const OpCheck c(&be, "gemm");
    EXPECT_EQ(failureOf(c, BufRef{}, 3), "gemm C: missing buffer");
    EXPECT_EQ(failureOf(c, o, 3), "gemm C: buffer belongs to another backend");
    EXPECT_EQ(failureOf(c, BufRef(b) + 60, 5),
              "gemm C: access of 5 values at offset 60 overruns a buffer of 64");
    EXPECT_EQ(failureOf(c, BufRef(b) + 65, 0), "(passed)");  // nothing accessed
    EXPECT_EQ(failureOf(c, BufRef(b) + 64, 1),
              "gemm C: access of 1 values at offset 64 overruns a buffer of 64");
}

}  // namespace
