// The CPU matrix-product kernel behind CpuBackend::gemm: one row-major product
// C = alpha * op(A) * op(B) + beta * C, computed tile by tile with a register-blocked
// micro-kernel (AVX2 and, for large products, AVX-512 with FMA, chosen at run time on x86;
// plain vector code elsewhere; AVX-512 and AVX2 give the same bits except for products of at most 4
// rows times B^T, which are dot products summed across the vector's lanes). Stateless apart from
// thread-local packing scratch and the chosen instruction set: any thread may call it, and a C
// element's value never depends on how the product was split into tiles or threads.
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
    // When set (transA only): rowSums[i] += the sum over k of op(A)(i, k), k in ascending order,
    // for every row i of a tile whose first column is 0 (so once per row when the tiles cover
    // the product): a projection's bias gradient, the column sums of dz, folded into the
    // packing of dz^T for its weight gradient (CpuBackend's projectionGradient).
    T* rowSums = nullptr;
};

// The plain product c = op(a) op(b) of row-major matrices (m x n, depth k, alpha 1, beta 0),
// their leading dimensions lda, ldb, ldc.
template <typename T>
Product<T> rowMajorProduct(bool transA, bool transB, int m, int n, int k, const T* a, int lda,
                           const T* b, int ldb, T* c, int ldc) {
    Product<T> p;
    p.transA = transA;
    p.transB = transB;
    p.m = m;
    p.n = n;
    p.k = k;
    p.a = a;
    p.b = b;
    p.c = c;
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = ldc;
    return p;
}

// Row and column tile sizes: callers split a product into tiles of at most these sizes (any
// split gives bit-identical results; these keep a tile's working set in L1/L2).
constexpr int kTileRows = 96;
constexpr int kTileCols = 128;

// Computes rows [i0, i1) x columns [j0, j1) of the product (beta == 0 never reads C).
template <typename T>
void tile(const Product<T>& p, int i0, int i1, int j0, int j1);

// The instruction set the kernels use on this machine, e.g. "avx512+fma" or "generic".
const char* isaName();

// Instruction sets of the micro-kernel. By default AVX2 (else generic), and AVX-512 for
// products of 32 or more rows, columns and depth where the machine has it (faster there, slower
// on the presets' small products; the same bits either way). NNWB_CPU_GEMM_ISA=generic|avx2|
// avx512 fixes one for every product (A/B runs). setIsa and setDefaultIsa are for tests, called
// while no product runs. AVX-512 and AVX2 (both with FMA) give bit-identical results, except for
// the dot-product path (at most 4 rows of A times B^T), whose lane sums differ with the width.
enum class Isa { Generic, Avx2, Avx512 };
Isa isa();            // the instruction set of products that are not large
bool wideForLarge();  // whether large products use AVX-512
bool isaSupported(Isa isa);
bool setIsa(Isa isa);          // every product; false (and no change) when this machine lacks it
bool setDefaultIsa();          // back to the default; returns wideForLarge()
const char* isaName(Isa isa);  // "generic", "avx2", "avx512"

}  // namespace nnwb::cpugemm
