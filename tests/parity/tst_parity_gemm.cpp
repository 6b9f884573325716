// Parity of gemm (kernels gemm_small, gemm_tiled, gemm_tiled_32/_16 — gemm.cl's GEMM_NAME — and
// gemm_reg_* (gemm_reg.cl), each built once per tiling, each also with split K and
// gemm_reduce_splits; gemm_longk (gemm_longk.cl) with split K reduced in its own launch), and
// of projectionGradient (the row sums of gemm_tiled and gemm_longk): every OpenCL device,
// once with the automatic choice and once forced to each kernel and split count, against the
// CpuBackend reference for all four transpose combinations, odd sizes (M, N, K from 1 to 130),
// padded leading dimensions, alpha/beta (beta = 0 with NaN-filled C must not read C), 2-level
// batches with strides (stride 0 for a shared B) and non-zero offsets, with guard values around A,
// B, C. Tolerance: 1e-5 + 2e-6 * K absolute + 1e-4 relative. Under oclgrind the forced kernels
// take turns, one per case besides the automatic choice (ParityDevices::turnsFrom), and K stays
// up to 64 (parityCheckingSkipsK).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/GemmCase.h"
#include "compute/OpenClBackend.h"
#include "parity/GemmEpilogueCase.h"
#include "parity/ParityHarness.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

ParityTolerance gemmTol(int k) {
    return ParityTolerance{{1e-5 + 2e-6 * k, 1e-4}, {}};
}

struct GemmCase {
    int m, n, k;
    bool ta, tb;
    float alpha, beta;
    int padA = 0, padB = 0, padC = 0;  // extra leading-dimension columns
    int batch0 = 1, batch1 = 1;
    bool sharedB = false;  // strideB0 = strideB1 = 0
};

std::string describe(const GemmCase& c) {
    std::ostringstream s;
    s << "gemm M=" << c.m << " N=" << c.n << " K=" << c.k << " transA=" << c.ta
      << " transB=" << c.tb << " alpha=" << c.alpha << " beta=" << c.beta << " padA=" << c.padA
      << " padB=" << c.padB << " padC=" << c.padC << " batch=" << c.batch0 << "x" << c.batch1
      << (c.sharedB ? " sharedB" : "");
    return s.str();
}

void runCase(const GemmCase& c) {
    if (parityCheckingSkipsK(c.k)) return;  // oclgrind: K up to 64
    // Storage of op(A) (M x K): K x M when transposed.
    const int aRows = c.ta ? c.k : c.m, aCols = c.ta ? c.m : c.k;
    const int bRows = c.tb ? c.n : c.k, bCols = c.tb ? c.k : c.n;
    const int lda = aCols + c.padA, ldb = bCols + c.padB, ldc = c.n + c.padC;
    const size_t sizeA = size_t(aRows) * lda, sizeB = size_t(bRows) * ldb,
                 sizeC = size_t(c.m) * ldc;
    // Batch strides with gaps between matrices (gaps must survive too).
    const size_t sA1 = sizeA + 3, sA0 = sA1 * c.batch1 + 5;
    const size_t sB1 = c.sharedB ? 0 : sizeB + 2, sB0 = c.sharedB ? 0 : sB1 * c.batch1 + 1;
    const size_t sC1 = sizeC + 4, sC0 = sC1 * c.batch1 + 3;
    const size_t totA = sA0 * (c.batch0 - 1) + sA1 * (c.batch1 - 1) + sizeA;
    const size_t totB = sB0 * (c.batch0 - 1) + sB1 * (c.batch1 - 1) + sizeB;
    const size_t totC = sC0 * (c.batch0 - 1) + sC1 * (c.batch1 - 1) + sizeC;
    std::vector<float> cInit = randomVector(totC, 203);
    if (c.beta == 0.0f)
        std::fill(cInit.begin(), cInit.end(), std::numeric_limits<float>::quiet_NaN());
    // With beta == 0 the NaN padding columns of C stay NaN on both backends (NaN matches NaN).
    NNWB_PARITY(
        [&](OpRun& r) {
            const BufRef a = r.in("A", randomVector(totA, 201));
            const BufRef b = r.in("B", randomVector(totB, 202));
            const BufRef out = r.out("C", cInit);
            r.be.gemm(gemmArgs(c, a, b, out, lda, ldb, ldc, {sA0, sA1, sB0, sB1, sC0, sC1}));
        },
        gemmTol(c.k), describe(c));
}

// projectionGradient over `models` models of rows / models rows each: dz = dy f'(z) (withDy; dz
// aliasing dy when dzIsDy) or dz given, then db += column sums of dz and dW += dz^T x: the row
// sums of op(A) in gemm_tiled and gemm_longk (split K: gemm_longk adds them itself, the
// reduction of gemm_tiled adds the splits'), the default on gemm_reg and gemm_small.
void projectionGradientCase(int rows, int in, int out, int models, int act, bool withDy,
                            bool dzIsDy = false) {
    const int k = rows / models;
    if (parityCheckingSkipsK(k)) return;  // oclgrind: K up to 64
    const size_t nz = size_t(rows) * size_t(out), dbStride = models > 1 ? size_t(out) + 5 : 0;
    const OpFn op = [&](OpRun& r) {
        const BufRef x = r.in("x", randomVector(size_t(rows) * size_t(in), 91));
        BufRef z, y, dy, dz;
        if (withDy) {
            z = r.in("z", randomVector(nz, 92));
            y = r.in("y", randomVector(nz, 93, 0.05f, 0.95f));
            dy = dzIsDy ? r.out("dz", randomVector(nz, 94)) : r.in("dy", randomVector(nz, 94));
            dz = dzIsDy ? dy : r.out("dz", randomVector(nz, 95));
        } else {
            dz = r.in("dz", randomVector(nz, 95));
        }
        const size_t perW = size_t(out) * size_t(in);
        const BufRef dw = r.out("dW", randomVector(size_t(models) * perW, 96));
        const BufRef db =
            r.out("db", randomVector(perModelExtent(models, dbStride, size_t(out)), 97));
        const GemmArgs g =
            GemmArgs::product(TensorView::modelRows(dz, models, rows, out).t(),
                              TensorView::modelRows(x, models, rows, in),
                              TensorView::modelMatrices(dw, models, perW, out, in), 1.0f);
        r.be.projectionGradient({g, db, dbStride, Activation(act), z, y, dy});
    };
    NNWB_PARITY(op, gemmTol(k),
                "projectionGradient rows=" + std::to_string(rows) + " in=" + std::to_string(in) +
                    " out=" + std::to_string(out) + " models=" + std::to_string(models) + " act=" +
                    std::to_string(act) + (withDy ? " dy" : "") + (dzIsDy ? " dz=dy" : ""));
}

}  // namespace

// The parity devices, and each OpenCL device once more per gemm kernel and split count, forced.
class ParityGemm : public ParitySuite {
public:
    static void SetUpTestSuite() {
        ParitySuite::SetUpTestSuite();
        if (HasFatalFailure() || !paritySkipReason().empty()) return;
        // Every gemm kernel of every device, forced, with and without split K.
        auto& cl = parityDevices().cl;
        const size_t devices = cl.size();
        parityDevices().turnsFrom = devices;  // under oclgrind the forced kernels take turns
        for (size_t d = 0; d < devices; ++d) {
            const std::string id = cl[d].first;
            auto* be = dynamic_cast<OpenClBackend*>(cl[d].second.get());
            ASSERT_NE(be, nullptr);
            const auto kernels = be->gemmKernels();
            ASSERT_GE(kernels.size(), size_t(2));
            for (const std::string& k : kernels)
                for (int splits : {1, 3}) {
                    if (k == "gemm_small" && splits > 1) continue;
                    OpenClOptions o;
                    o.gemmKernel = k;
                    o.gemmSplits = splits;
                    cl.emplace_back(id + " " + k + " splits " + std::to_string(splits),
                                    OpenClBackend::create(id, o));
                }
        }
    }
};

// Kernels: gemm_tiled. Every combination of M, N, K in {1, 7, 33, 130} and the four
// transpose combinations.
TEST_F(ParityGemm, sizesAndTransposes) {
    // Under oclgrind without 130: its several tiles of a big kernel cost minutes there, and
    // oddShapes has rows and columns past one tile (130, 300).
    std::vector<int> sizes{1, 7, 33};
    if (!parityCheckingDevice()) sizes.push_back(130);
    for (int m : sizes)
        for (int n : sizes)
            for (int k : sizes)
                for (int t = 0; t < 4; ++t) {
                    runCase({m, n, k, bool(t & 1), bool(t & 2), 1.0f, 0.0f});
                    if (HasFatalFailure()) return;
                }
}

// Kernels: gemm_tiled. Odd shapes that are not multiples of any tile (3, 20, 65, 64 +- 1).
TEST_F(ParityGemm, oddShapes) {
    const int shapes[][3] = {{3, 20, 65},  {65, 3, 20},  {20, 65, 3},   {1, 1, 130}, {130, 1, 1},
                             {63, 65, 17}, {64, 64, 16}, {65, 63, 129}, {2, 300, 5}, {300, 2, 7}};
    for (const auto& s : shapes)
        for (int t = 0; t < 4; ++t) {
            runCase({s[0], s[1], s[2], bool(t & 1), bool(t & 2), 1.0f, 0.0f});
            if (HasFatalFailure()) return;
        }
}

// Kernels: gemm_tiled. alpha/beta: beta = 0 over NaN-filled C, beta = 1 accumulation,
// general alpha and beta; padded leading dimensions.
TEST_F(ParityGemm, alphaBetaAndLeadingDims) {
    const float ab[][2] = {{1.0f, 0.0f}, {0.5f, 0.0f}, {1.0f, 1.0f}, {-0.7f, 0.3f}};
    for (const auto& x : ab)
        for (int t = 0; t < 4; ++t) {
            GemmCase c{20, 33, 7, bool(t & 1), bool(t & 2), x[0], x[1], 3, 1, 2};
            runCase(c);
            if (HasFatalFailure()) return;
            c = {65, 7, 130, bool(t & 1), bool(t & 2), x[0], x[1], 1, 4, 0};
            runCase(c);
            if (HasFatalFailure()) return;
        }
}

// Kernels: gemm_tiled. K == 0 gives C = beta * C (0 for beta == 0) without reading A, B.
TEST_F(ParityGemm, emptyK) {
    runCase({7, 20, 0, false, false, 1.0f, 0.0f});
    runCase({7, 20, 0, true, true, 1.0f, 0.5f});
}

// Kernels: gemm_tiled. 2-level batches with strides, including a B shared by every
// product (stride 0), as in multi-head attention.
TEST_F(ParityGemm, batched) {
    const int shapes[][3] = {{7, 20, 3}, {33, 33, 20}, {1, 65, 7}, {20, 7, 65}};
    for (const auto& s : shapes)
        for (int t = 0; t < 4; ++t)
            for (bool shared : {false, true}) {
                GemmCase c{s[0], s[1], s[2], bool(t & 1), bool(t & 2), 0.8f, 0.0f, 1, 2, 3};
                c.batch0 = 2;
                c.batch1 = 3;
                c.sharedB = shared;
                runCase(c);
                if (HasFatalFailure()) return;
                c.beta = 0.5f;
                c.batch0 = 3;
                c.batch1 = 1;
                runCase(c);
                if (HasFatalFailure()) return;
            }
}

// Kernels: gemm_reg_* (and the others, forced). Shapes whose rows are 16-byte aligned, so the
// register-tiled kernels take their float4 loads and stores, with whole and partial tiles.
TEST_F(ParityGemm, alignedRows) {
    const int shapes[][3] = {{256, 128, 64}, {68, 36, 20}, {128, 64, 520}, {72, 260, 8}};
    for (const auto& s : shapes)
        for (int t = 0; t < 4; ++t) {
            runCase({s[0], s[1], s[2], bool(t & 1), bool(t & 2), 1.0f, 0.0f});
            if (HasFatalFailure()) return;
            runCase({s[0], s[1], s[2], bool(t & 1), bool(t & 2), 0.5f, 1.0f, 4, 0, 4});
            if (HasFatalFailure()) return;
        }
}

// Kernels: every gemm kernel's bias/activation epilogue (gemmBiasActivation: z = x W^T + b,
// y = f(z)), aligned and not, each activation, y apart from z and y aliasing z; K of 2,100
// (split, then bias and activation, where the kernel splits K).
TEST_F(ParityGemm, biasActivationEpilogue) {
    const int shapes[][3] = {{36, 20, 12}, {33, 7, 130}, {2, 3, 2100}};
    for (const auto& sh : shapes)
        for (int act = 0; act <= 6; ++act) {
            for (bool yIsZ : {false, true}) {
                gemmBiasActivationCase(sh[0], sh[1], sh[2], act, true, yIsZ);
                if (HasFatalFailure()) return;
            }
        }
}

// Kernels: every gemm kernel under projectionGradient (the weight and bias gradients of a
// projection; gemm_tiled and gemm_longk add up op(A)'s rows themselves, the split reduction adds
// the splits' row sums), one model and a population of 3 (db slices with gaps), with and without
// the activation backward, dz apart from dy and aliasing it; 12x12's TN 24 x 96 x 1280 product
// among them. Out 70 and 65 take two tiles of rows on gemm_reg_64x64 (60 x 9 x 70 is small
// enough for oclgrind).
TEST_F(ParityGemm, projectionGradient) {
    const int shapes[][4] = {{1280, 96, 24, 1}, {60, 9, 70, 1}, {200, 33, 70, 1},
                             {201, 40, 35, 3},  {8, 5, 3, 1},   {3 * 130, 64, 65, 3}};
    for (const auto& s : shapes) {
        projectionGradientCase(s[0], s[1], s[2], s[3], 0, false);
        if (HasFatalFailure()) return;
        projectionGradientCase(s[0], s[1], s[2], s[3], int(Activation::Tanh), true);
        if (HasFatalFailure()) return;
        projectionGradientCase(s[0], s[1], s[2], s[3], int(Activation::LeakyRelu), true, true);
        if (HasFatalFailure()) return;
    }
}

// On gemm_tiled the bias gradient takes no launch of its own: one launch for the product (two
// with K split: the reduction adds the row sums too), one more for the activation backward. On
// gemm_longk the splits are reduced in the same launch: one launch with or without a split. The
// automatic choice runs 12x12's TN 24 x 96 x 1280 weight gradient in one launch (gemm_longk
// where gemm_tiled would split K; two launches before it).
TEST_F(ParityGemm, projectionGradientLaunches) {
    for (auto& [id, be] : parityDevices().cl) {
        auto* cl = dynamic_cast<OpenClBackend*>(be.get());
        if (cl == nullptr || id.find(' ') != std::string::npos) continue;  // the automatic choice
        // Launch counts do not depend on the shape: a small one, values uploaded (oclgrind
        // checks for reads of uninitialised memory, and runs this outside NNWB_PARITY's limits).
        auto launches = [&](int rows, int in, int out, bool withAct) {
            Buffer x = cl->alloc(size_t(rows) * in), dz = cl->alloc(size_t(rows) * out),
                   dw = cl->alloc(size_t(out) * in), db = cl->alloc(size_t(out));
            uint32_t seed = 71;
            for (Buffer* b : {&x, &dz, &dw, &db}) {
                const std::vector<float> v = randomVector(b->size(), seed++);
                cl->upload(*b, v.data(), v.size());
            }
            ProjectionGradientArgs a;
            a.gemm = GemmArgs::product(TensorView::matrix(dz, rows, out, out).t(),
                                       TensorView::matrix(x, rows, in, in),
                                       TensorView::matrix(dw, out, in, in), 1.0f);
            a.db = db;
            if (withAct) {
                a.act = Activation::Tanh;
                a.z = a.y = a.dy = dz;
            }
            const uint64_t n0 = cl->enqueueCount();
            cl->projectionGradient(a);
            const uint64_t n = cl->enqueueCount() - n0;
            cl->synchronize();
            return n;
        };
        for (const char* kernel : {"gemm_tiled", "gemm_longk"})
            for (int splits : {1, 3}) {
                cl->forceGemm(kernel, splits);
                const uint64_t product = std::string(kernel) == "gemm_tiled" && splits > 1 ? 2 : 1;
                EXPECT_EQ(launches(48, 8, 6, false), product)
                    << id << " " << kernel << " " << splits;
                EXPECT_EQ(launches(48, 8, 6, true), product + 1)
                    << id << " " << kernel << " " << splits;
            }
        cl->forceGemm("", 0);
        // K = 1,280 is too slow to interpret under oclgrind.
        if (!parityCheckingDevice()) {
            EXPECT_EQ(launches(1280, 96, 24, false), 1u) << id;
        }
    }
}

// gemm_longk's per-tile counters are 0 again after a failed launch: one that stops part-way
// (failNextLaunchPartWay: every counter left at 1) would otherwise make the next split product's
// second group to arrive reduce before the third has stored its partial sums. The product after
// the failure must equal the reference (with the counters left at 1: stale partial sums of the
// first product, different inputs).
TEST_F(ParityGemm, countersZeroedAfterAFailedLaunch) {
    if (parityCheckingDevice()) GTEST_SKIP() << "the launch tests cover oclgrind";
    const int M = 5, N = 6, K = 96;
    for (auto& [id, be] : parityDevices().cl) {
        auto* cl = dynamic_cast<OpenClBackend*>(be.get());
        if (cl == nullptr || id.find(' ') != std::string::npos) continue;  // the automatic choice
        Buffer a = cl->alloc(size_t(M) * K), b = cl->alloc(size_t(K) * N), c = cl->alloc(M * N);
        auto product = [&](uint32_t seed) {
            const std::vector<float> av = randomVector(a.size(), seed),
                                     bv = randomVector(b.size(), seed + 1);
            cl->upload(a, av.data(), av.size());
            cl->upload(b, bv.data(), bv.size());
            cl->gemm(GemmArgs::product(TensorView::matrix(a, M, K, K),
                                       TensorView::matrix(b, K, N, N),
                                       TensorView::matrix(c, M, N, N)));
            std::vector<float> got(size_t(M) * N);
            cl->download(c, got.data(), got.size());
            double worst = 0;
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) {
                    double want = 0;
                    for (int k = 0; k < K; ++k)
                        want += double(av[size_t(i) * K + k]) * bv[size_t(k) * N + j];
                    worst = std::max(worst, std::abs(want - got[size_t(i) * N + j]));
                }
            return worst;
        };
        cl->forceGemm("gemm_longk", 3);
        EXPECT_LT(product(11), 1e-4) << id;
        cl->failNextLaunchPartWay();
        EXPECT_THROW(product(13), ComputeError) << id;
        EXPECT_LT(product(17), 1e-4) << id << ": the product after a failed launch";
        cl->forceGemm("", 0);
    }
}

// The bounds check names the gemm operand, as on the CPU backend.
TEST_F(ParityGemm, boundsError) {
    for (auto& [id, be] : parityDevices().cl) {
        Buffer a = be->alloc(12), b = be->alloc(12), c = be->alloc(8);
        GemmArgs g;
        g.m = 3;
        g.n = 3;
        g.k = 4;
        g.a = a;
        g.b = b;
        g.c = c;
        g.lda = 4;
        g.ldb = 3;
        g.ldc = 3;
        try {
            be->gemm(g);
            FAIL() << "gemm with a too small C did not throw on " << id;
        } catch (const ComputeError& e) {
            ASSERT_TRUE(std::string(e.what()).find("gemm C") != std::string::npos) << e.what();
        }
    }
}
