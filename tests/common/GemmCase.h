// The GemmArgs of a gemm test case: the suites that check gemm against a reference
// (tst_cpu_gemm, tst_parity_gemm, tst_parity_tf32) each describe a case with the fields ta, tb,
// m, n, k, alpha, beta, batch0 and batch1 and lay it out in buffers of their own; this fills
// the arguments from both. One copy here instead of one per suite. Any thread.
#pragma once

#include <cstddef>

#include "compute/Ops.h"

namespace nnwb::test {

// Batch strides (elements) of A, B and C: over batch0 (0) and batch1 (1).
struct GemmStrides {
    size_t a0 = 0, a1 = 0, b0 = 0, b1 = 0, c0 = 0, c1 = 0;
};

template <class Case>
GemmArgs gemmArgs(const Case& c, BufRef a, BufRef b, BufRef out, int lda, int ldb, int ldc,
                  const GemmStrides& s) {
    GemmArgs g;
    g.transA = c.ta;
    g.transB = c.tb;
    g.m = c.m;
    g.n = c.n;
    g.k = c.k;
    g.alpha = c.alpha;
    g.beta = c.beta;
    g.a = a;
    g.b = b;
    g.c = out;
    g.lda = lda;
    g.ldb = ldb;
    g.ldc = ldc;
    g.batch0 = c.batch0;
    g.batch1 = c.batch1;
    g.strideA0 = s.a0;
    g.strideA1 = s.a1;
    g.strideB0 = s.b0;
    g.strideB1 = s.b1;
    g.strideC0 = s.c0;
    g.strideC1 = s.c1;
    return g;
}

}  // namespace nnwb::test
