// CpuBackend gemm (the blocked, register-tiled kernel of compute/CpuGemm) against a plain
// triple loop in long double, in float and double storage: sizes that hit every micro-kernel
// and tile edge (1, 3, 7, 17, 33, 65, 130, plus K past the k-block and M/N past one tile), all
// transpose combinations, padded leading dimensions, alpha/beta, 2-level batches with stride 0,
// NaN propagation from A and B, beta = 0 over NaN, K = 0, B^T panels packed through
// in-register transposes (every lane count), and bit-identical results for any
// thread count (1, 2, 3) and between the default choice (AVX2, AVX-512 for large products) and each
// instruction set this machine has fixed for the whole product (the generic one and the dot-product
// path of at most 4 rows times B^T, whose lane sums depend on the vector width, are checked against
// the reference only), and on each FMA instruction set every element one k-ordered FMA chain (the
// reason for that equality). Tolerance: 2e-7 * (K + 8) times the sum of |terms| (float), 1e-15 x
// (double).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>
#include <vector>

#include "common/GemmCase.h"
#include "common/TestUtil.h"
#include "compute/CpuBackend.h"
#include "compute/CpuGemm.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

struct Case {
    int m, n, k;
    bool ta, tb;
    float alpha = 1.0f, beta = 0.0f;
    int batch0 = 1, batch1 = 1;
    bool sharedB = false;
    int pad = 0;
};

std::string describe(const Case& c) {
    std::ostringstream s;
    s << "M=" << c.m << " N=" << c.n << " K=" << c.k << " ta=" << c.ta << " tb=" << c.tb
      << " alpha=" << c.alpha << " beta=" << c.beta << " batch=" << c.batch0 << "x" << c.batch1
      << (c.sharedB ? " sharedB" : "") << " pad=" << c.pad;
    return s.str();
}

// Host layout of one case: every matrix of the batch at its strided position.
struct Layout {
    int lda, ldb, ldc;
    size_t sA0, sA1, sB0, sB1, sC0, sC1, totA, totB, totC;
    explicit Layout(const Case& c) {
        const int aRows = c.ta ? c.k : c.m, aCols = c.ta ? c.m : c.k;
        const int bRows = c.tb ? c.n : c.k, bCols = c.tb ? c.k : c.n;
        lda = std::max(1, aCols + c.pad);
        ldb = std::max(1, bCols + c.pad);
        ldc = c.n + c.pad;
        const size_t sizeA = size_t(std::max(aRows, 1)) * lda,
                     sizeB = size_t(std::max(bRows, 1)) * ldb, sizeC = size_t(c.m) * ldc;
        sA1 = sizeA + 3;
        sA0 = sA1 * c.batch1 + 1;
        sB1 = c.sharedB ? 0 : sizeB + 2;
        sB0 = c.sharedB ? 0 : sB1 * c.batch1 + 5;
        sC1 = sizeC + 1;
        sC0 = sC1 * c.batch1 + 2;
        totA = sA0 * (c.batch0 - 1) + sA1 * (c.batch1 - 1) + sizeA;
        totB = sB0 * (c.batch0 - 1) + sB1 * (c.batch1 - 1) + sizeB;
        totC = sC0 * (c.batch0 - 1) + sC1 * (c.batch1 - 1) + sizeC;
    }
};

std::vector<double> runGemm(Backend& be, const Case& c, const Layout& l,
                            const std::vector<float>& a, const std::vector<float>& b,
                            const std::vector<float>& cInit) {
    Buffer A = be.alloc(a.size()), B = be.alloc(b.size()), C = be.alloc(cInit.size());
    be.upload(A, a.data(), a.size());
    be.upload(B, b.data(), b.size());
    be.upload(C, cInit.data(), cInit.size());
    be.gemm(gemmArgs(c, A, B, C, l.lda, l.ldb, l.ldc, {l.sA0, l.sA1, l.sB0, l.sB1, l.sC0, l.sC1}));
    std::vector<double> out(cInit.size());
    be.downloadF64(C, out.data(), out.size());
    return out;
}

// Checks `got` against the long double reference; returns an empty string when it matches.
std::string check(const Case& c, const Layout& l, const std::vector<float>& a,
                  const std::vector<float>& b, const std::vector<float>& cInit,
                  const std::vector<double>& got, double relTol) {
    std::vector<bool> written(cInit.size(), false);
    for (int b0 = 0; b0 < c.batch0; ++b0)
        for (int b1 = 0; b1 < c.batch1; ++b1) {
            const size_t oa = b0 * l.sA0 + b1 * l.sA1, ob = b0 * l.sB0 + b1 * l.sB1,
                         oc = b0 * l.sC0 + b1 * l.sC1;
            for (int i = 0; i < c.m; ++i)
                for (int j = 0; j < c.n; ++j) {
                    long double s = 0, mag = 0;
                    for (int k = 0; k < c.k; ++k) {
                        const float av =
                            c.ta ? a[oa + size_t(k) * l.lda + i] : a[oa + size_t(i) * l.lda + k];
                        const float bv =
                            c.tb ? b[ob + size_t(j) * l.ldb + k] : b[ob + size_t(k) * l.ldb + j];
                        s += (long double)av * bv;
                        mag += std::fabs((long double)av * bv);
                    }
                    const size_t ci = oc + size_t(i) * l.ldc + j;
                    written[ci] = true;
                    const long double old = c.beta == 0.0f ? 0.0L : (long double)cInit[ci];
                    const long double want = (long double)c.alpha * s + c.beta * old;
                    const double tol = relTol * (c.k + 8) *
                                       double(std::fabs(c.alpha) * mag + std::fabs(c.beta * old));
                    const double g = got[ci];
                    const double w = double(want);
                    const bool ok = std::isnan(w)   ? std::isnan(g)
                                    : std::isinf(w) ? g == w
                                                    : std::fabs(g - w) <= tol;
                    if (!ok) {
                        std::ostringstream m;
                        m << describe(c) << ": C[" << b0 << "," << b1 << "][" << i << "][" << j
                          << "] = " << g << ", want " << double(want) << " (tol " << tol << ")";
                        return m.str();
                    }
                }
        }
    for (size_t i = 0; i < cInit.size(); ++i) {
        const bool same = std::isnan(cInit[i]) ? std::isnan(got[i]) : got[i] == cInit[i];
        if (!written[i] && !same) return describe(c) + ": wrote outside C at " + std::to_string(i);
    }
    return {};
}

void runCase(const Case& c, bool nanA = false, bool nanB = false) {
    const Layout l(c);
    std::vector<float> a = randomVector(l.totA, 11), b = randomVector(l.totB, 12),
                       cInit = randomVector(l.totC, 13);
    if (c.beta == 0.0f) std::fill(cInit.begin(), cInit.end(), std::nanf(""));
    if (nanA) a[l.totA / 2] = std::numeric_limits<float>::quiet_NaN();
    if (nanB) b[l.totB / 3] = std::numeric_limits<float>::infinity();
    CpuBackend f1(Precision::Float, 1), f2(Precision::Float, 2), f3(Precision::Float, 3),
        d2(Precision::Double, 2);
    const std::vector<double> got = runGemm(f1, c, l, a, b, cInit);
    const std::string err = check(c, l, a, b, cInit, got, 2e-7);
    ASSERT_TRUE(err.empty()) << err;
    const std::vector<double> got3 = runGemm(f3, c, l, a, b, cInit);
    for (size_t i = 0; i < got.size(); ++i)
        if (!(got3[i] == got[i] || (std::isnan(got3[i]) && std::isnan(got[i]))))
            FAIL() << describe(c) << ": 3 threads differ from 1 at " << i;
    const std::vector<double> got2 = runGemm(f2, c, l, a, b, cInit);
    for (size_t i = 0; i < got.size(); ++i)
        if (!(got2[i] == got[i] || (std::isnan(got2[i]) && std::isnan(got[i]))))
            FAIL() << describe(c) << ": 2 threads differ from 1 at " << i;
    const std::string errD = check(c, l, a, b, cInit, runGemm(d2, c, l, a, b, cInit), 1e-15);
    ASSERT_TRUE(errD.empty()) << "double " << errD;
    // Every instruction set of this machine, fixed for the whole product, against the default
    // choice (AVX2, and AVX-512 for large products): AVX2 and AVX-512 give the same bits.
    const bool defaultGeneric = cpugemm::isa() == cpugemm::Isa::Generic;
    for (cpugemm::Isa other : {cpugemm::Isa::Generic, cpugemm::Isa::Avx2, cpugemm::Isa::Avx512}) {
        if (!cpugemm::setIsa(other)) continue;
        const std::vector<double> gotIsa = runGemm(f1, c, l, a, b, cInit);
        cpugemm::setDefaultIsa();
        const std::string name = cpugemm::isaName(other);
        const bool dotPath = !c.ta && c.tb && c.m <= 4;
        if (other == cpugemm::Isa::Generic || defaultGeneric || dotPath) {
            const std::string e = check(c, l, a, b, cInit, gotIsa, 2e-7);
            ASSERT_TRUE(e.empty()) << name << ": " << e;
            continue;
        }
        for (size_t i = 0; i < got.size(); ++i)
            if (!(gotIsa[i] == got[i] || (std::isnan(gotIsa[i]) && std::isnan(got[i]))))
                FAIL() << describe(c) << ": " << name << " differs from the default ("
                       << cpugemm::isaName() << ") at " << i;
    }
}

const int kSizes[] = {1, 3, 7, 17, 33, 65, 130};

}  // namespace

TEST(CpuGemm, edgeSizesEveryTransposeCombination) {
    for (int t = 0; t < 4; ++t)
        for (int m : kSizes)
            for (int n : kSizes)
                for (int k : {1, 7, 33, 130}) runCase({m, n, k, bool(t & 1), bool(t & 2)});
}

TEST(CpuGemm, kPastOneBlockAndTilesPastOne) {
    for (int t = 0; t < 4; ++t) {
        runCase({7, 19, 300, bool(t & 1), bool(t & 2)});
        runCase({200, 290, 17, bool(t & 1), bool(t & 2), 0.5f, 0.0f, 1, 1, false, 3});
        runCase({101, 131, 520, bool(t & 1), bool(t & 2), -1.0f, 0.25f});
        runCase({3, 300, 600, bool(t & 1), bool(t & 2)});
    }
}

TEST(CpuGemm, alphaBetaAndPaddedLeadingDimensions) {
    for (int t = 0; t < 4; ++t)
        for (int m : {1, 4, 6, 17})
            for (int n : {1, 8, 16, 33}) {
                runCase({m, n, 9, bool(t & 1), bool(t & 2), 2.0f, 1.0f, 1, 1, false, 2});
                runCase({m, n, 9, bool(t & 1), bool(t & 2), -0.5f, 0.5f, 1, 1, false, 5});
                runCase({m, n, 9, bool(t & 1), bool(t & 2), 0.0f, 1.5f});
            }
}

TEST(CpuGemm, batchedWithSharedB) {
    for (int t = 0; t < 4; ++t) {
        runCase({20, 20, 4, bool(t & 1), bool(t & 2), 1.0f, 0.0f, 5, 8});
        runCase({20, 4, 20, bool(t & 1), bool(t & 2), 1.0f, 1.0f, 3, 2, true});
        runCase({7, 33, 17, bool(t & 1), bool(t & 2), 0.5f, 0.0f, 2, 3, true, 1});
        runCase({1, 9, 130, bool(t & 1), bool(t & 2), 1.0f, 0.0f, 4, 3});
    }
}

TEST(CpuGemm, nanAndInfPropagate) {
    for (int t = 0; t < 4; ++t)
        for (int m : {1, 3, 17})
            for (int n : {1, 17}) {
                runCase({m, n, 7, bool(t & 1), bool(t & 2)}, true, false);
                runCase({m, n, 7, bool(t & 1), bool(t & 2), 1.0f, 0.5f}, false, true);
                runCase({m, n, 7, bool(t & 1), bool(t & 2), 1.0f, 0.0f}, true, true);
            }
}

// The shapes of the presets' products (projections of 24, 64, 96, 256 and 768 columns, the
// per-head 20 x 20 x 8 and 64 x 64 x 32 products) across the AVX-512 panel widths.
TEST(CpuGemm, presetShapesAcrossInstructionSets) {
    for (int t = 0; t < 4; ++t) {
        runCase({130, 24, 96, bool(t & 1), bool(t & 2)});
        runCase({97, 288, 24, bool(t & 1), bool(t & 2)});
        runCase({20, 20, 8, bool(t & 1), bool(t & 2)});
        runCase({64, 64, 32, bool(t & 1), bool(t & 2)});
        runCase({200, 40, 300, bool(t & 1), bool(t & 2), 1.0f, 1.0f});
    }
}

// B^T packed through VL x VL transposes in registers (the per-head S = Q K^T and dP = dC V^T):
// whole blocks and edges of k and columns, rows of B far apart as in the QKV buffer (pad 736:
// ld 768), on every instruction set (the 4-, 8- and 16-lane blocks).
TEST(CpuGemm, transposedBPanelsInRegisterBlocks) {
    for (int ta = 0; ta < 2; ++ta) {
        runCase({64, 64, 32, bool(ta), true, 1.0f, 0.0f, 1, 1, false, 736});
        runCase({48, 40, 45, bool(ta), true, 1.0f, 0.0f, 1, 1, false, 3});
        runCase({35, 97, 50, bool(ta), true, 0.5f, 1.0f, 2, 1, false, 1});
    }
}

// A few row tiles that threads cannot share evenly (3 tiles of 96 rows on 2 threads: the weight
// gradient of a 256-wide layer) run as one taller tile per thread: the same bits as 1 thread.
TEST(CpuGemm, unevenRowTilesSplitPerThread) {
    runCase({256, 64, 300, true, false, 1.0f, 1.0f});
    runCase({200, 33, 150, true, false});
    runCase({250, 100, 40, false, false, 0.5f, 0.0f, 1, 1, false, 2});
}

// A^T B: A^T packed per k block in panels of the micro-tile's rows (12 on AVX-512, 6 on AVX2),
// B packed per column panel; rows past a multiple of 6, k past one block (accumulate), beta.
TEST(CpuGemm, transposedAWideColumnBlocks) {
    runCase({37, 100, 300, true, false, 0.5f, 1.0f, 1, 1, false, 3});
    runCase({96, 256, 520, true, false});
    runCase({64, 192, 33, true, false, 1.0f, 0.0f, 2, 1, true});
}

// A weight gradient's tiling (A^T B, K >= 1,024: one row tile per thread): A^T packed in padded
// panels (nine of 12 rows, the last of 4) and prefetched kPrefetchK rows ahead, through five k
// blocks (the last of 76 values, the prefetch stopping before A's end), beta 1 onto C.
TEST(CpuGemm, weightGradientPackedPanelsPastSeveralKBlocks) {
    runCase({100, 40, 1100, true, false, 1.0f, 1.0f});
    runCase({37, 64, 1031, true, false});
}

// Why AVX2 and AVX-512 give the same bits: on both, every C element (beyond the dot-product
// path, K within one k block, alpha 1, beta 0) is one FMA chain over k in ascending order from
// 0, which a compiler may break by leaving acc += a * b as a multiply and an add (GCC 13's
// AVX-512 tuning did: issue 48 item 7; compute/CMakeLists.txt). Checked against std::fma column
// by column for each FMA instruction set this machine has, in the micro-tile shapes (one row and
// 13 rows, half-width, full and double-width panels, A^T packed in panels of 12 or 6 rows).
template <typename T>
std::string fmaChainMismatch(cpugemm::Isa isa, int m, int n, int k, bool ta, bool tb) {
    const std::vector<float> av = randomVector(size_t(m) * k, 21),
                             bv = randomVector(size_t(k) * n, 22);
    const std::vector<T> a(av.begin(), av.end()), b(bv.begin(), bv.end());
    std::vector<T> c(size_t(m) * n, T(-7));
    cpugemm::tile(cpugemm::rowMajorProduct(ta, tb, m, n, k, a.data(), ta ? m : k, b.data(),
                                           tb ? k : n, c.data(), n),
                  0, m, 0, n);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            T want = 0;
            for (int q = 0; q < k; ++q)
                want = std::fma(ta ? a[size_t(q) * m + i] : a[size_t(i) * k + q],
                                tb ? b[size_t(j) * k + q] : b[size_t(q) * n + j], want);
            if (c[size_t(i) * n + j] != want) {
                std::ostringstream s;
                s.precision(std::numeric_limits<T>::max_digits10);
                s << cpugemm::isaName(isa) << " M=" << m << " N=" << n << " K=" << k << " ta=" << ta
                  << " tb=" << tb << ": C[" << i << "][" << j << "] is not the "
                  << "k-ordered FMA chain (" << double(c[size_t(i) * n + j]) << " against "
                  << double(want) << ")";
                return s.str();
            }
        }
    return {};
}

TEST(CpuGemm, fmaInstructionSetsAccumulateOneFmaChain) {
    int checked = 0;
    for (cpugemm::Isa isa : {cpugemm::Isa::Avx2, cpugemm::Isa::Avx512}) {
        if (!cpugemm::setIsa(isa)) continue;
        ++checked;
        for (int t = 0; t < 4; ++t)
            for (int m : {1, 13})
                for (int n : {5, 16, 17, 40, 70})
                    for (int k : {7, 33, 256}) {
                        const bool ta = t & 1, tb = t & 2;
                        if (!ta && tb && m <= 4) continue;  // the dot-product path
                        std::string e = fmaChainMismatch<float>(isa, m, n, k, ta, tb);
                        if (e.empty()) e = fmaChainMismatch<double>(isa, m, n, k, ta, tb);
                        if (!e.empty()) {
                            cpugemm::setDefaultIsa();
                            FAIL() << e;
                        }
                    }
    }
    cpugemm::setDefaultIsa();
    if (checked == 0) GTEST_SKIP() << "no FMA instruction set on this machine";
}

TEST(CpuGemm, instructionSetsReported) {
    ASSERT_TRUE(cpugemm::isaSupported(cpugemm::Isa::Generic));
    ASSERT_TRUE(cpugemm::isaSupported(cpugemm::isa()));
    ASSERT_TRUE(cpugemm::setIsa(cpugemm::Isa::Generic));
    ASSERT_STREQ(cpugemm::isaName(), "generic");
    ASSERT_FALSE(cpugemm::wideForLarge());
    ASSERT_EQ(cpugemm::setDefaultIsa(), cpugemm::isaSupported(cpugemm::Isa::Avx512));
    std::fprintf(stderr, "micro-kernel: %s (avx2 %s, avx512 %s)\n", cpugemm::isaName(),
                 cpugemm::isaSupported(cpugemm::Isa::Avx2) ? "yes" : "no",
                 cpugemm::isaSupported(cpugemm::Isa::Avx512) ? "yes" : "no");
}

TEST(CpuGemm, zeroKScalesC) {
    runCase({5, 7, 0, false, false, 1.0f, 0.5f});
    runCase({5, 7, 0, true, true, 1.0f, 0.0f});
}

// The CPU projectionGradient folds the bias gradient (db += the column sums of dz) into the
// weight-gradient product's packing of dz^T (cpugemm rowSums). It must give the bits of the
// composite it replaces, activationBiasBackward (or biasGradient) then gemm: db, dW and dz, for
// one model and a population of 3 (db at a stride), with and without dy (tanh), K short and past
// the long-K tiling (1,100 rows: one row tile per thread, A^T packed in long rows), rows past the
// micro-tiles' 6 and 12, on 1, 2 and 3 threads and each instruction set.
namespace {
struct Projection {
    int models, k, m, n;  // dz [models][k][m], x [models][k][n], dW [models][m][n]
    bool withDy;
};
struct ProjectionOut {
    std::vector<double> db, dw, dz;
};
ProjectionOut projectionGradient(Backend& be, const Projection& c, bool composite) {
    const size_t dzN = size_t(c.models) * c.k * c.m, xN = size_t(c.models) * c.k * c.n,
                 wN = size_t(c.models) * c.m * c.n, dbStride = size_t(c.m) + 3,
                 dbN = dbStride * c.models;
    auto upload = [&](size_t n, uint32_t seed) {
        Buffer b = be.alloc(n);
        const std::vector<float> v = randomVector(n, seed);
        be.upload(b, v.data(), n);
        return b;
    };
    Buffer dz = upload(dzN, 31), x = upload(xN, 32), dw = upload(wN, 33), db = upload(dbN, 34),
           z = upload(dzN, 35), y = upload(dzN, 36);
    GemmArgs g;
    g.transA = true;
    g.m = c.m;
    g.n = c.n;
    g.k = c.k;
    g.beta = 1.0f;
    g.a = dz;
    g.b = x;
    g.c = dw;
    g.lda = c.m;
    g.ldb = c.n;
    g.ldc = c.n;
    g.batch0 = c.models;
    g.strideA0 = size_t(c.k) * c.m;
    g.strideB0 = size_t(c.k) * c.n;
    g.strideC0 = size_t(c.m) * c.n;
    const size_t stride = c.models > 1 ? dbStride : 0;
    const Activation act = Activation::Tanh;
    const int rows = c.k * c.models;
    BufRef dy = c.withDy ? BufRef(dz) : BufRef();  // dz = dy * f'(z) in place
    if (composite) {
        if (c.withDy)
            be.activationBiasBackward({rows, c.m, z, y, dy, dz, act, db, c.models, stride});
        else
            be.biasGradient({rows, c.m, dz, db, c.models, stride});
        be.gemm(g);
    } else {
        be.projectionGradient({g, db, stride, act, z, y, dy});
    }
    ProjectionOut o{std::vector<double>(dbN), std::vector<double>(wN), std::vector<double>(dzN)};
    be.downloadF64(db, o.db.data(), dbN);
    be.downloadF64(dw, o.dw.data(), wN);
    be.downloadF64(dz, o.dz.data(), dzN);
    return o;
}
}  // namespace

TEST(CpuGemm, projectionGradientFoldsTheBiasSumsBitForBit) {
    const Projection cases[] = {{1, 37, 7, 5, false},
                                {1, 1100, 100, 40, true},
                                {3, 50, 40, 33, true},
                                {3, 1100, 13, 20, false},
                                {1, 1030, 30, 70, false}};
    for (const Projection& c : cases)
        for (int threads : {1, 2, 3})
            for (int isa = -1; isa < 3; ++isa) {
                if (isa >= 0 && !cpugemm::setIsa(cpugemm::Isa(isa))) continue;
                CpuBackend f(Precision::Float, threads), d(Precision::Double, threads);
                for (Backend* be : {static_cast<Backend*>(&f), static_cast<Backend*>(&d)}) {
                    const ProjectionOut want = projectionGradient(*be, c, true);
                    const ProjectionOut got = projectionGradient(*be, c, false);
                    const std::string what =
                        "models " + std::to_string(c.models) + " k " + std::to_string(c.k) + " m " +
                        std::to_string(c.m) + " n " + std::to_string(c.n) + " dy " +
                        std::to_string(c.withDy) + " threads " + std::to_string(threads) + " isa " +
                        std::to_string(isa) + (be == &d ? " double" : " float");
                    EXPECT_EQ(got.db, want.db) << "db, " << what;
                    EXPECT_EQ(got.dw, want.dw) << "dW, " << what;
                    EXPECT_EQ(got.dz, want.dz) << "dz, " << what;
                }
                cpugemm::setDefaultIsa();
            }
}
