// One parity case of gemmBiasActivation (z = x W^T + b, y = f(z): the gemm kernels' fused
// bias/activation epilogue), shared by tst_parity_ops (the automatic kernel choice) and
// tst_parity_gemm (every gemm kernel forced). Main thread only, inside a ParitySuite test.
#pragma once

#include <string>

#include "compute/Ops.h"
#include "parity/ParityHarness.h"

namespace nnwb::test {

// yIsZ: y aliases z (the projections without activation keep one buffer; z ends as f(z)).
inline void gemmBiasActivationCase(int m, int n, int k, int act, bool bias, bool yIsZ = false) {
    if (parityCheckingSkipsK(k)) return;  // oclgrind: K up to 64
    NNWB_PARITY(
        [&](OpRun& r) {
            GemmArgs g;
            g.transB = true;
            g.m = m;
            g.n = n;
            g.k = k;
            g.a = r.in("x", randomVector(size_t(m) * k, 77));
            g.lda = k;
            g.b = r.in("w", randomVector(size_t(n) * k, 78, -0.3f, 0.3f));
            g.ldb = k;
            g.c = r.out("z", randomVector(size_t(m) * n, 79));
            g.ldc = n;
            BufRef b = bias ? r.in("b", randomVector(size_t(n), 80)) : BufRef();
            BufRef y = yIsZ ? g.c : r.out("y", randomVector(size_t(m) * n, 81));
            r.be.gemmBiasActivation({g, b, Activation(act), y});
        },
        ParityTolerance({{1e-5 + 2e-6 * k, 1e-4}, {}}),
        "gemmBiasActivation m=" + std::to_string(m) + " n=" + std::to_string(n) +
            " k=" + std::to_string(k) + " act=" + std::to_string(act) + (bias ? " bias" : "") +
            (yIsZ ? " y=z" : ""));
}

}  // namespace nnwb::test
