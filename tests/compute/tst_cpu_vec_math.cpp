// compute/CpuVecMath: the vectorized exp against std::exp in double over every 509th float bit
// pattern of [-103.9, 88.72] (relative error at most 1.5e-7 for normal results, one subnormal step
// below), the special values (-inf, +inf, NaN, overflow, underflow, 0), tails of every length 1-40
// giving the same bits as the full-vector path, and the softmax rows (forward and backward)
// against a double reference: lengths 1-70, negative and positive scales, in place, -inf scores
// (masked) giving exact zeros, NaN propagating, and the lane sums' documented order bit for bit;
// the block softmax (softmaxRows) bit for bit as softmaxRow row by row; the Adam step bit for bit
// against its formula done one IEEE operation at a time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "compute/CpuVecMath.h"

using namespace nnwb;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

float fromBits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

uint32_t bitsOf(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

float expOne(float x) {
    float y;
    cpumath::exp(&x, &y, 1);
    return y;
}

}  // namespace

TEST(CpuVecMath, expWithinBoundOverTheWholeRange) {
    std::vector<float> x;
    for (uint32_t b = 0; b < 0x7f800000u; b += 509) {  // every 509th positive float, and -x
        const float v = fromBits(b);
        if (v <= 88.72f) x.push_back(v);
        if (-v >= -103.9f) x.push_back(-v);
    }
    std::vector<float> y(x.size());
    cpumath::exp(x.data(), y.data(), x.size());
    double worstRel = 0.0, worstSub = 0.0;
    float worstAt = 0.0f;
    for (size_t i = 0; i < x.size(); ++i) {
        const double ref = std::exp(double(x[i]));
        const double err = std::fabs(double(y[i]) - ref);
        if (ref >= double(std::numeric_limits<float>::min())) {
            if (err / ref > worstRel) {
                worstRel = err / ref;
                worstAt = x[i];
            }
        } else {
            worstSub = std::max(worstSub, err);
        }
    }
    EXPECT_LE(worstRel, 1.5e-7) << "at x = " << worstAt << " (" << x.size() << " values)";
    // Subnormal results: within one step of the smallest subnormal (2^-149).
    EXPECT_LE(worstSub, double(std::numeric_limits<float>::denorm_min())) << cpumath::isaName();
}

TEST(CpuVecMath, expSpecialValues) {
    EXPECT_EQ(expOne(-kInf), 0.0f);
    EXPECT_EQ(expOne(kInf), kInf);
    EXPECT_TRUE(std::isnan(expOne(std::numeric_limits<float>::quiet_NaN())));
    EXPECT_EQ(expOne(88.73f), kInf);  // past FLT_MAX
    EXPECT_EQ(expOne(1000.0f), kInf);
    EXPECT_EQ(expOne(std::numeric_limits<float>::max()), kInf);
    EXPECT_TRUE(std::isfinite(expOne(88.72f)));
    EXPECT_EQ(expOne(-104.0f), 0.0f);
    EXPECT_EQ(expOne(-1000.0f), 0.0f);
    EXPECT_EQ(expOne(-std::numeric_limits<float>::max()), 0.0f);
    EXPECT_EQ(expOne(0.0f), 1.0f);
    EXPECT_EQ(expOne(-0.0f), 1.0f);
    EXPECT_GT(expOne(-103.0f), 0.0f);  // subnormal, not flushed
}

// A tail of n % 16 values goes through a padded vector; it must give the bits of the full path.
TEST(CpuVecMath, expTailsMatchFullVectors) {
    std::vector<float> all(48);
    for (size_t i = 0; i < all.size(); ++i) all[i] = -20.0f + 0.83f * float(i);
    std::vector<float> ref(all.size());
    cpumath::exp(all.data(), ref.data(), all.size());
    for (size_t n = 1; n <= 40; ++n) {
        std::vector<float> y(all.begin(), all.begin() + long(n));
        cpumath::exp(y.data(), y.data(), n);  // in place
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(bitsOf(y[i]), bitsOf(ref[i])) << n << " " << i;
    }
}

TEST(CpuVecMath, softmaxRowAgainstDoubleReference) {
    for (int n = 1; n <= 70; ++n)
        for (float scale : {1.0f, 0.17677669f, -0.5f}) {
            std::vector<float> x(n), y(n);
            for (int j = 0; j < n; ++j) x[j] = std::sin(0.7f * float(j) + float(n)) * 9.0f;
            cpumath::softmaxRow(x.data(), y.data(), n, scale);
            double mx = -1e300, sum = 0.0;
            for (int j = 0; j < n; ++j) mx = std::max(mx, double(x[j]) * double(scale));
            for (int j = 0; j < n; ++j) sum += std::exp(double(x[j]) * double(scale) - mx);
            for (int j = 0; j < n; ++j) {
                const double ref = std::exp(double(x[j]) * double(scale) - mx) / sum;
                ASSERT_NEAR(y[j], ref, 1e-6 * ref + 1e-12) << "n " << n << " j " << j;
            }
            std::vector<float> z = x;  // in place gives the same bits
            cpumath::softmaxRow(z.data(), z.data(), n, scale);
            for (int j = 0; j < n; ++j) ASSERT_EQ(bitsOf(z[j]), bitsOf(y[j]));
        }
}

// The documented order, bit for bit (a scalar model in float): 16 lane sums over the full
// vectors, lanes added pairwise (l + 8, + 4, + 2, + 1), then the tail in order; the lane sums
// run in registers, and a different order would change the last bits of rows of 32 and more.
static float pairwiseLaneSum(const std::vector<float>& v, int n) {
    const int full = n / 16 * 16;
    float lanes[16] = {};
    for (int j = 0; j < full; ++j) lanes[j % 16] = lanes[j % 16] + v[j];
    for (int w = 8; w >= 1; w /= 2)
        for (int i = 0; i < w; ++i) lanes[i] = lanes[i] + lanes[i + w];
    float s = full > 0 ? lanes[0] : 0.0f;
    for (int j = full; j < n; ++j) s = s + v[j];
    return s;
}

TEST(CpuVecMath, softmaxRowsSumLanesInTheDocumentedOrder) {
    for (int n : {16, 33, 64, 70}) {
        std::vector<float> x(n), y(n), e(n), dy(n), dx(n), prod(n);
        for (int j = 0; j < n; ++j) {
            x[j] = std::sin(1.3f * float(j) + 0.1f * float(n)) * 3.0f;
            dy[j] = std::cos(0.9f * float(j)) * 0.7f;
        }
        const float scale = 0.17677669f;
        cpumath::softmaxRow(x.data(), y.data(), n, scale);
        float mx = -kInf;
        for (int j = 0; j < n; ++j) mx = std::max(mx, x[j] * scale);
        for (int j = 0; j < n; ++j) e[j] = x[j] * scale - mx;
        cpumath::exp(e.data(), e.data(), size_t(n));
        const float inv = 1.0f / pairwiseLaneSum(e, n);
        for (int j = 0; j < n; ++j) ASSERT_EQ(bitsOf(y[j]), bitsOf(e[j] * inv)) << n << " " << j;
        cpumath::softmaxBackwardRow(y.data(), dy.data(), dx.data(), n, 1.0f);
        for (int j = 0; j < n; ++j) prod[j] = y[j] * dy[j];
        const float d = pairwiseLaneSum(prod, n);
        for (int j = 0; j < n; ++j)
            ASSERT_EQ(bitsOf(dx[j]), bitsOf(1.0f * y[j] * (dy[j] - d))) << n << " " << j;
    }
}

TEST(CpuVecMath, softmaxRowMaskedAndNan) {
    std::vector<float> x(21, 0.5f), y(21);
    x[3] = -kInf;
    x[20] = -kInf;  // in the tail
    cpumath::softmaxRow(x.data(), y.data(), 21, 1.0f);
    EXPECT_EQ(y[3], 0.0f);
    EXPECT_EQ(y[20], 0.0f);
    EXPECT_NEAR(y[0], 1.0 / 19.0, 1e-7);
    x[5] = std::numeric_limits<float>::quiet_NaN();
    cpumath::softmaxRow(x.data(), y.data(), 21, 1.0f);
    EXPECT_TRUE(std::isnan(y[0]));
    EXPECT_TRUE(std::isnan(y[5]));
}

TEST(CpuVecMath, softmaxBackwardRowAgainstDoubleReference) {
    for (int n = 1; n <= 70; ++n) {
        std::vector<float> y(n), dy(n), dx(n);
        for (int j = 0; j < n; ++j) {
            y[j] = 0.5f + 0.4f * std::cos(1.3f * float(j));
            dy[j] = std::sin(0.9f * float(j) + 0.2f);
        }
        const float scale = 0.125f;
        cpumath::softmaxBackwardRow(y.data(), dy.data(), dx.data(), n, scale);
        double dot = 0.0, mag = 0.0;
        for (int j = 0; j < n; ++j) {
            dot += double(y[j]) * double(dy[j]);
            mag += std::fabs(double(y[j]) * double(dy[j]));
        }
        for (int j = 0; j < n; ++j) {
            const double ref = double(scale) * y[j] * (double(dy[j]) - dot);
            ASSERT_NEAR(dx[j], ref, 4e-7 * (mag + 1.0)) << "n " << n << " j " << j;
        }
        cpumath::softmaxBackwardRow(y.data(), dy.data(), dy.data(), n, scale);  // dx aliases dy
        for (int j = 0; j < n; ++j) ASSERT_EQ(bitsOf(dy[j]), bitsOf(dx[j]));
    }
}

namespace {

// The Adam update of the header's formula, one IEEE operation at a time (the volatile stores keep
// the compiler from contracting a multiply and an add into an FMA, whatever the build's flags).
template <typename T>
void adamReference(T* w, const T* g, T* m, T* v, size_t n, const cpumath::AdamConstants<T>& c) {
    for (size_t i = 0; i < n; ++i) {
        volatile T a = c.beta1 * m[i], b = (T(1) - c.beta1) * g[i];
        const T mi = a + b;
        volatile T d = c.beta2 * v[i], e = (T(1) - c.beta2) * g[i];
        volatile T f = e * g[i];
        const T vi = d + f;
        volatile T s = std::sqrt(vi) * c.rbc2, q = c.step * mi, k = w[i] * c.keep;
        volatile T den = s + c.eps;
        volatile T upd = q / den;
        m[i] = mi;
        v[i] = vi;
        w[i] = k - upd;
    }
}

// Every length 1-70 at every start 0-16 (the vector body and scalar tails of each instruction
// set), three steps, bit for bit against the reference.
template <typename T>
void expectAdamBitForBit() {
    const size_t total = 90;
    std::vector<T> w(total), g(total), m(total, T(0)), v(total, T(0));
    for (size_t i = 0; i < total; ++i) {
        w[i] = T(std::sin(0.7 * double(i)));
        g[i] = T(2.5 * std::cos(1.9 * double(i) + 0.3));
    }
    const T lr = T(3e-3), bc1 = T(1) - T(0.8), bc2 = T(1) - T(0.99);
    const cpumath::AdamConstants<T> c{
        T(0.8), T(0.99), T(1e-4), lr / bc1, T(1) - lr * T(0.01), T(1) / std::sqrt(bc2)};
    for (size_t start = 0; start <= 16; ++start)
        for (size_t n = 1; n <= 70; ++n) {
            std::vector<T> w1 = w, m1 = m, v1 = v, w2 = w, m2 = m, v2 = v;
            for (int step = 0; step < 3; ++step) {
                cpumath::adamStep(w1.data() + start, g.data() + start, m1.data() + start,
                                  v1.data() + start, n, c);
                adamReference(w2.data() + start, g.data() + start, m2.data() + start,
                              v2.data() + start, n, c);
            }
            ASSERT_EQ(std::memcmp(w1.data(), w2.data(), total * sizeof(T)), 0)
                << "w, start " << start << " n " << n << " (" << cpumath::isaName() << ")";
            ASSERT_EQ(std::memcmp(m1.data(), m2.data(), total * sizeof(T)), 0)
                << "m, start " << start << " n " << n;
            ASSERT_EQ(std::memcmp(v1.data(), v2.data(), total * sizeof(T)), 0)
                << "v, start " << start << " n " << n;
        }
}

}  // namespace

TEST(CpuVecMath, adamStepIsTheFormulaBitForBitFloat) {
    expectAdamBitForBit<float>();
}

TEST(CpuVecMath, adamStepIsTheFormulaBitForBitDouble) {
    expectAdamBitForBit<double>();
}

// softmaxRows gives each row softmaxRow's bits (then zeros after the valid values): every square
// block of 1-70 rows, causal and not, out of place and in place, with masked (-inf) scores and a
// NaN row; its exps run over the whole block, so a short row's values come from full vectors.
TEST(CpuVecMath, softmaxRowsAreSoftmaxRowRowByRow) {
    for (int u = 1; u <= 70; ++u)
        for (bool causal : {true, false}) {
            const size_t n = size_t(u) * u;
            std::vector<float> x(n), want(n), got(n, 7.0f);
            for (size_t i = 0; i < n; ++i) x[i] = 4.0f * std::sin(0.37f * float(i) + float(u));
            if (u > 3) x[size_t(2) * u] = -kInf;  // row 2's first score masked
            if (u > 5) x[size_t(5) * u + 1] = std::numeric_limits<float>::quiet_NaN();
            const float scale = causal ? 0.125f : -0.7f;
            for (int r = 0; r < u; ++r) {
                const int valid = causal ? r + 1 : u;
                cpumath::softmaxRow(x.data() + size_t(r) * u, want.data() + size_t(r) * u, valid,
                                    scale);
                for (int j = valid; j < u; ++j) want[size_t(r) * u + j] = 0.0f;
            }
            cpumath::softmaxRows(x.data(), got.data(), u, u, causal, scale);
            for (size_t i = 0; i < n; ++i)
                ASSERT_EQ(bitsOf(got[i]), bitsOf(want[i])) << "u " << u << (causal ? " causal" : "")
                                                           << " row " << i / u << " col " << i % u;
            cpumath::softmaxRows(x.data(), x.data(), u, u, causal, scale);  // in place
            ASSERT_EQ(std::memcmp(x.data(), want.data(), n * sizeof(float)), 0) << "u " << u;
        }
}
