// A/B of the CPU matrix products of one training step: nnwb's CpuGemm (compute/CpuGemm, one
// thread, the instruction set it picks) against OpenBLAS's cblas_sgemm (Debian
// libopenblas-dev, one thread: openblas_set_num_threads(1)), on the large products of
// transformer-64 (batch 256) and mql5-fractal-12x12 (batch 64), with the transposes and beta
// that model/layers/LinearOps.cpp issues. Prints ms per product and GFLOP/s for each.
// Build: tools/gemm_ab/CMakeLists.txt (-DNNWB_GEMM_AB=ON). Run: openblas_gemm_ab
#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "compute/CpuGemm.h"
#include "tools/gemm_ab/AbShapes.h"

extern "C" void openblas_set_num_threads(int);

namespace {

using nnwb::ab::Shape;

const Shape kShapes[] = {
    {"t64 fwd qkv NT", false, true, 16384, 768, 64, 0.f},
    {"t64 fwd w0  NT", false, true, 16384, 64, 256, 0.f},
    {"t64 fwd ff1 NT", false, true, 16384, 256, 64, 0.f},
    {"t64 dW qkv  TN", true, false, 768, 64, 16384, 1.f},
    {"t64 dW w0   TN", true, false, 64, 256, 16384, 1.f},
    {"t64 dX qkv  NN", false, false, 16384, 64, 768, 0.f},
    {"t64 dX ff1  NN", false, false, 16384, 64, 256, 0.f},
    {"12x12 fwd qkv NT", false, true, 1280, 288, 24, 0.f},
    {"12x12 dense1 NT", false, true, 64, 1000, 480, 0.f},
    {"12x12 dense2 NT", false, true, 64, 1000, 1000, 0.f},
    {"12x12 dW d2  TN", true, false, 1000, 1000, 64, 1.f},
};

}  // namespace

int main() {
    openblas_set_num_threads(1);
    std::printf("CpuGemm micro-kernel: %s; OpenBLAS: %s\n", nnwb::cpugemm::isaName(),
                openblas_get_config());
    std::printf("%-18s %6s %6s %6s %10s %10s %9s\n", "product", "M", "N", "K", "nnwb ms",
                "openblas ms", "oblas/nnwb");
    for (const Shape& s : kShapes) {
        const int lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n, ldc = s.n;
        std::vector<float> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), c(size_t(s.m) * s.n);
        for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 97) * 0.01f - 0.4f;
        for (size_t i = 0; i < b.size(); ++i) b[i] = float(i % 89) * 0.01f - 0.45f;
        nnwb::cpugemm::Product<float> p;
        p.transA = s.ta;
        p.transB = s.tb;
        p.m = s.m;
        p.n = s.n;
        p.k = s.k;
        p.beta = s.beta;
        p.a = a.data();
        p.b = b.data();
        p.c = c.data();
        p.lda = lda;
        p.ldb = ldb;
        p.ldc = ldc;
        using nnwb::cpugemm::kTileCols;
        using nnwb::cpugemm::kTileRows;
        const double tn = nnwb::ab::msPerCall(
            [&] {
                for (int i0 = 0; i0 < s.m; i0 += kTileRows)
                    for (int j0 = 0; j0 < s.n; j0 += kTileCols)
                        nnwb::cpugemm::tile(p, i0, std::min(s.m, i0 + kTileRows), j0,
                                            std::min(s.n, j0 + kTileCols));
            },
            [] {}, 1, 0.5);
        const double to = nnwb::ab::msPerCall(
            [&] {
                cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans,
                            s.tb ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f, a.data(), lda,
                            b.data(), ldb, s.beta, c.data(), ldc);
            },
            [] {}, 1, 0.5);
        const double gf = 2.0 * s.m * s.n * s.k * 1e-9;
        std::printf("%-18s %6d %6d %6d %10.3f %10.3f %9.2f   (%.1f vs %.1f GFLOP/s)\n", s.what, s.m,
                    s.n, s.k, tn, to, to / tn, gf / tn * 1e3, gf / to * 1e3);
    }
    return 0;
}
