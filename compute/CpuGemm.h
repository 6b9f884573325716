// The CPU matrix-product kernel behind CpuBackend::gemm: one row-major product
// C = alpha * op(A) * op(B) + beta * C, computed tile by tile with a register-blocked
// micro-kernel (AVX2/FMA chosen at run time on x86, plain vector code elsewhere).
// Stateless apart from thread-local packing scratch: any thread may call it, and a C element's
// value never depends on how the product was split into tiles or threads.
#pragma once

#include <cstddef>

namespace nnwb::cpugemm {

template <typename T>
struct Product {
    bool transA = false, transB = false;
    int m = 0, n = 0, k = 0;
    T alpha = T(1), beta = T(0);
    const T* a = nullptr;  // may be null only when k == 0
    const T* b = nullptr;
    T* c = nullptr;
    int lda = 0, ldb = 0, ldc = 0;
};

// Row and column tile sizes: callers split a product into tiles of at most these sizes (any
// split gives bit-identical results; these keep a tile's working set in L1/L2).
constexpr int kTileRows = 96;
constexpr int kTileCols = 128;

// Computes rows [i0, i1) x columns [j0, j1) of the product (beta == 0 never reads C).
template <typename T>
void tile(const Product<T>& p, int i0, int i1, int j0, int j1);

// The instruction set the kernels use on this machine, e.g. "avx2+fma" or "generic".
const char* isaName();

}  // namespace nnwb::cpugemm
