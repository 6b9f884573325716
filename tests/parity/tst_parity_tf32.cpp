// Matmul precision high (TF32): every OpenCL device. NVIDIA's OpenCL runs the TF32 gemm kernels
// (kernels/gemm_reg.cl, TF32=1) on its tensor cores where the run-time probe passes; every other
// device runs them with the tensor-core product emulated (OpenClOptions::tf32Emulate, TF32=2),
// so PoCL and oclgrind check the tiles, the TF32 rounding, C's fragment layout, split K, the
// batch strides and the bias/activation epilogue. Each TF32 kernel, forced, with 1 and 3 K
// splits, against a double-precision product: |got - want| <= 2e-3 sum_k |alpha a b| + 1e-5
// (TF32 keeps 10 mantissa bits: each operand within 2^-11, each term within ~2^-10), and the
// errors must be larger than float32's somewhere (the TF32 kernels ran, not the FP32 ones).
// Without emulation a device that is not NVIDIA's runs `high` as FP32 and says so.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "common/GemmCase.h"
#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "compute/OpenClBackend.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

struct Tf32Case {
    int m, n, k;
    bool ta, tb;
    float alpha = 1.0f, beta = 0.0f;
    int pad = 0;                 // extra leading-dimension columns of A, B and C
    int batch0 = 1, batch1 = 1;  // strided batches, gaps between the matrices
    bool epilogue = false;       // gemmBiasActivation: z + bias, y = tanh(z)
};

std::string describe(const Tf32Case& c, const std::string& kernel, int splits) {
    std::ostringstream s;
    s << kernel << " splits " << splits << ": M=" << c.m << " N=" << c.n << " K=" << c.k
      << " transA=" << c.ta << " transB=" << c.tb << " alpha=" << c.alpha << " beta=" << c.beta
      << " pad=" << c.pad << " batch=" << c.batch0 << "x" << c.batch1
      << (c.epilogue ? " bias+tanh" : "");
    return s.str();
}

bool isNvidia(const std::string& id) {
    for (const DeviceInfo& d : listDevices())
        if (d.id == id) return d.platform.find("NVIDIA") != std::string::npos;
    return false;
}

// Runs one case on `be`; returns the failure text (empty: within the bound) and raises
// maxShare to the largest |got - want| / (sum_k |alpha a b| + 1e-30) seen.
std::string runCase(OpenClBackend& be, const Tf32Case& c, const std::string& what,
                    double& maxShare) {
    const int aRows = c.ta ? c.k : c.m, aCols = c.ta ? c.m : c.k;
    const int bRows = c.tb ? c.n : c.k, bCols = c.tb ? c.k : c.n;
    const int lda = aCols + c.pad, ldb = bCols + c.pad, ldc = c.n + c.pad;
    const size_t sA1 = size_t(aRows) * lda + 3, sA0 = sA1 * c.batch1 + 5;
    const size_t sB1 = size_t(bRows) * ldb + 2, sB0 = sB1 * c.batch1 + 1;
    const size_t sC1 = size_t(c.m) * ldc + 4, sC0 = sC1 * c.batch1 + 3;
    const size_t totA = sA0 * c.batch0, totB = sB0 * c.batch0, totC = sC0 * c.batch0;
    if (totA + totB + 2 * totC > parityMaxValues()) return {};  // NNWB_PARITY_MAX_VALUES
    const std::vector<float> a = randomVector(totA, 301), b = randomVector(totB, 302),
                             c0 = randomVector(totC, 303), bias = randomVector(size_t(c.n), 304);
    Buffer ba = be.alloc(totA), bb = be.alloc(totB), bc = be.alloc(totC), bbias = be.alloc(c.n),
           by = be.alloc(totC);
    be.upload(ba, a.data(), totA);
    be.upload(bb, b.data(), totB);
    be.upload(bc, c0.data(), totC);
    be.upload(by, c0.data(), totC);
    be.upload(bbias, bias.data(), size_t(c.n));
    const GemmArgs g = gemmArgs(c, ba, bb, bc, lda, ldb, ldc, {sA0, sA1, sB0, sB1, sC0, sC1});
    if (c.epilogue) {
        GemmBiasActivationArgs e;
        e.gemm = g;
        e.bias = bbias;
        e.act = Activation::Tanh;
        e.y = by;
        be.gemmBiasActivation(e);
    } else {
        be.gemm(g);
    }
    std::vector<float> got(totC), gotY(totC);
    std::vector<char> inside(totC, 0);
    be.download(bc, got.data(), totC);
    be.download(by, gotY.data(), totC);
    for (int p = 0; p < c.batch0; ++p)
        for (int q = 0; q < c.batch1; ++q)
            for (int i = 0; i < c.m; ++i)
                for (int j = 0; j < c.n; ++j) {
                    const size_t oa = p * sA0 + q * sA1, ob = p * sB0 + q * sB1,
                                 oc = p * sC0 + q * sC1 + size_t(i) * ldc + j;
                    inside[oc] = 1;
                    double sum = 0, abs = 0;
                    for (int l = 0; l < c.k; ++l) {
                        const double x = a[oa + (c.ta ? size_t(l) * lda + i : size_t(i) * lda + l)];
                        const double y = b[ob + (c.tb ? size_t(j) * ldb + l : size_t(l) * ldb + j)];
                        sum += x * y;
                        abs += std::fabs(x * y);
                    }
                    double want = c.alpha * sum + (c.beta != 0.0f ? c.beta * c0[oc] : 0.0);
                    abs *= std::fabs(c.alpha);
                    if (c.epilogue) want += bias[size_t(j)];
                    const double err = std::fabs(got[oc] - want);
                    maxShare = std::max(maxShare, err / (abs + 1e-30));
                    if (!(err <= 2e-3 * abs + 1e-5)) {
                        std::ostringstream s;
                        s << what << ": C[" << p << "][" << q << "][" << i << "][" << j
                          << "] = " << got[oc] << ", want " << want << " (sum |a b| " << abs << ")";
                        return s.str();
                    }
                    if (c.epilogue &&
                        !(std::fabs(gotY[oc] - std::tanh(got[oc])) <= 1e-5 * (1 + std::fabs(want))))
                        return what + ": y is not tanh(z)";
                }
    // Nothing outside the matrices is written (the gaps and the padding columns).
    for (size_t x = 0; x < totC; ++x)
        if (!inside[x] && !(got[x] == c0[x]))
            return what + ": C written outside the matrices at " + std::to_string(x);
    return {};
}

std::vector<Tf32Case> cases() {
    std::vector<Tf32Case> out;
    const int shapes[][3] = {
        {1, 1, 1}, {7, 33, 130}, {130, 70, 33}, {128, 128, 64}, {129, 65, 257}};
    for (const auto& s : shapes)
        for (int t = 0; t < 4; ++t) out.push_back({s[0], s[1], s[2], bool(t & 1), bool(t & 2)});
    out.push_back({67, 130, 45, false, true, -0.5f, 0.5f, 3});
    out.push_back({130, 67, 45, true, false, 2.0f, 1.0f, 5});
    out.push_back({33, 40, 70, false, false, 1.0f, 0.0f, 0, 2, 3});
    out.push_back({33, 40, 70, true, true, 1.0f, 0.5f, 1, 3, 1});
    out.push_back({100, 72, 90, false, true, 1.0f, 0.0f, 0, 1, 1, true});
    return out;
}

}  // namespace

class ParityTf32 : public ::testing::Test {
protected:
    void SetUp() override {
        if (openClDeviceIds().empty()) GTEST_SKIP() << "no OpenCL device";
    }
};

// Every TF32 kernel of every device, forced, 1 and 3 K splits, within TF32's bound; and the
// errors show TF32 rounding (> 2e-5 of sum |a b| somewhere), which the FP32 kernels never reach.
TEST_F(ParityTf32, everyTf32KernelWithinTf32Bound) {
    for (const std::string& id : openClDeviceIds()) {
        OpenClOptions o;
        o.tf32Emulate = !isNvidia(id);
        auto be = OpenClBackend::create(id, o);
        const MatmulPrecision p = be->setMatmulPrecision(MatmulPrecision::High);
        if (!o.tf32Emulate && p != MatmulPrecision::High) {
            std::fprintf(stderr, "%s: no TF32 tensor cores found; high runs FP32\n", id.c_str());
            continue;
        }
        ASSERT_EQ(p, MatmulPrecision::High) << id;
        std::vector<std::string> tf32;
        for (const std::string& k : be->gemmKernels())
            if (k.rfind("gemm_tf32_", 0) == 0) tf32.push_back(k);
        ASSERT_FALSE(tf32.empty()) << id << ": no TF32 gemm kernel built";
        double maxShare = 0;
        for (const std::string& k : tf32)
            for (int splits : {1, 3}) {
                be->forceGemm(k, splits);
                for (const Tf32Case& c : cases()) {
                    // Split K: the cases long enough to split (the epilogue runs unsplit).
                    if (splits > 1 && (c.epilogue || c.k < 64)) continue;
                    const std::string e =
                        runCase(*be, c, id + " " + describe(c, k, splits), maxShare);
                    ASSERT_TRUE(e.empty()) << e;
                }
            }
        EXPECT_GT(maxShare, 2e-5) << id
                                  << ": errors at float32's level; the TF32 kernels did not run";
    }
}

// `high` uses a TF32 kernel where the automatic choice picks a register-tiled gemm with
// K >= 512 (256 x 384 x 4096: on a device with many compute units split along K), keeps FP32
// for shorter K (256 x 256 x 64), and `highest` afterwards is float32 again.
TEST_F(ParityTf32, automaticChoiceAndBackToHighest) {
    for (const std::string& id : openClDeviceIds()) {
        OpenClOptions o;
        o.tf32Emulate = !isNvidia(id);
        auto be = OpenClBackend::create(id, o);
        if (be->setMatmulPrecision(MatmulPrecision::High) != MatmulPrecision::High) continue;
        const Tf32Case longK{256, 384, 4096, true, false}, shortK{256, 256, 64, false, true};
        if (size_t(256 + 384) * 4096 + 2 * 256 * 384 > parityMaxValues())
            GTEST_SKIP() << "larger than NNWB_PARITY_MAX_VALUES";
        double high = 0, highShort = 0, highest = 0;
        std::string e = runCase(*be, longK, id + " high", high);
        ASSERT_TRUE(e.empty()) << e;
        EXPECT_GT(high, 2e-5) << id << ": the automatic choice did not run a TF32 kernel";
        e = runCase(*be, shortK, id + " high, K 64", highShort);
        ASSERT_TRUE(e.empty()) << e;
        EXPECT_LT(highShort, 2e-6) << id << ": a TF32 kernel ran a product with K < 512";
        ASSERT_EQ(be->setMatmulPrecision(MatmulPrecision::Highest), MatmulPrecision::Highest);
        e = runCase(*be, longK, id + " highest", highest);
        ASSERT_TRUE(e.empty()) << e;
        EXPECT_LT(highest, 2e-6) << id << ": highest is not float32";
    }
}

// projectionGradient on each TF32 kernel, forced, 1 and 3 K splits: the bias gradient is added
// up from the float32 values of dz, never their rounding to TF32 (bias_gradient, since the TF32
// kernels do not add up rows: docs/decisions/gemm-fold.md), so db is within float32's tolerance
// of the double sums (1e-6 of sum |dz| + 1e-5, some 5e-5 here; sums of the TF32-rounded values
// missed it by 9.8e-4 at db[1]) while dW is within TF32's bound. Out 70 takes two tiles of rows
// on the 64-row tiling.
TEST_F(ParityTf32, projectionGradientBiasIsFloat32) {
    for (const std::string& id : openClDeviceIds()) {
        OpenClOptions o;
        o.tf32Emulate = !isNvidia(id);
        auto be = OpenClBackend::create(id, o);
        if (be->setMatmulPrecision(MatmulPrecision::High) != MatmulPrecision::High) continue;
        const int rows = 32, in = 9, out = 70;
        const std::vector<float> x = randomVector(size_t(rows) * in, 311),
                                 dz = randomVector(size_t(rows) * out, 312, -1.0f, 3.0f);
        Buffer bx = be->alloc(x.size()), bdz = be->alloc(dz.size()),
               bdw = be->alloc(size_t(out) * in), bdb = be->alloc(size_t(out));
        be->upload(bx, x.data(), x.size());
        be->upload(bdz, dz.data(), dz.size());
        std::vector<std::string> tf32;
        for (const std::string& k : be->gemmKernels())
            if (k.rfind("gemm_tf32_", 0) == 0) tf32.push_back(k);
        ASSERT_FALSE(tf32.empty()) << id << ": no TF32 gemm kernel built";
        // Under oclgrind (NNWB_PARITY_MAX_VALUES set) only the smallest tiling, whose tiles of 64
        // rows split out 70 in two: the emulated TF32 product is slow to interpret.
        if (parityMaxValues() != size_t(-1)) tf32 = {tf32.back()};
        for (const std::string& k : tf32) {
            for (int splits : {1, 3}) {
                be->forceGemm(k, splits);
                be->fill({bdw, bdw.size(), 0.0f});
                be->fill({bdb, bdb.size(), 0.0f});
                ProjectionGradientArgs a;
                a.gemm = GemmArgs::product(TensorView::matrix(bdz, rows, out, out).t(),
                                           TensorView::matrix(bx, rows, in, in),
                                           TensorView::matrix(bdw, out, in, in), 1.0f);
                a.db = bdb;
                be->projectionGradient(a);
                std::vector<float> dw(bdw.size()), db(bdb.size());
                be->download(bdw, dw.data(), dw.size());
                be->download(bdb, db.data(), db.size());
                const std::string what = id + " " + k + " splits " + std::to_string(splits);
                for (int i = 0; i < out; ++i) {
                    double sum = 0, abs = 0;
                    for (int r = 0; r < rows; ++r) {
                        sum += dz[size_t(r) * out + i];
                        abs += std::fabs(dz[size_t(r) * out + i]);
                    }
                    ASSERT_NEAR(db[size_t(i)], sum, 1e-6 * abs + 1e-5)
                        << what << " db[" << i << "]";
                    for (int j = 0; j < in; ++j) {
                        double w = 0, wAbs = 0;
                        for (int r = 0; r < rows; ++r) {
                            const double t =
                                double(dz[size_t(r) * out + i]) * x[size_t(r) * in + j];
                            w += t;
                            wAbs += std::fabs(t);
                        }
                        ASSERT_NEAR(dw[size_t(i) * in + j], w, 2e-3 * wAbs + 1e-5)
                            << what << " dW[" << i << "][" << j << "]";
                    }
                }
            }
        }
    }
}

// Without tensor cores (every device but NVIDIA's, no emulation), high runs FP32 and says so.
TEST_F(ParityTf32, highIsFp32WithoutTensorCores) {
    for (const std::string& id : openClDeviceIds()) {
        if (isNvidia(id)) continue;
        auto be = OpenClBackend::create(id);
        EXPECT_EQ(be->setMatmulPrecision(MatmulPrecision::High), MatmulPrecision::Highest) << id;
        for (const std::string& k : be->gemmKernels())
            EXPECT_NE(k.rfind("gemm_tf32_", 0), 0u) << id << ": " << k << " built without TF32";
    }
}
