#include "compute/CpuVecMath.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

// Compiled with -ffp-contract=off (see CMakeLists.txt): every clone below performs the same IEEE
// operations lane by lane, so AVX-512, AVX2 and SSE give the same bits. The vectors are 16 lanes
// on every instruction set (GCC and clang split them into two AVX2 or four SSE registers), so the
// lane sums add the same partial sums in the same order everywhere. A row's last n % 16 values
// go one by one through the same operations in scalar form.

#define NNWB_VM_INLINE inline __attribute__((always_inline))

namespace nnwb::cpumath {

namespace {

constexpr int kLanes = 16;
typedef float Vf __attribute__((vector_size(64)));
typedef int32_t Vi __attribute__((vector_size(64)));

// Loads and stores through memcpy (unaligned moves); vectors pass by reference so that no vector
// crosses a function boundary by value (no ABI differences between the clones).
NNWB_VM_INLINE void load(Vf& v, const float* p) {
    __builtin_memcpy(&v, p, sizeof v);
}
NNWB_VM_INLINE void store(float* p, const Vf& v) {
    __builtin_memcpy(p, &v, sizeof v);
}
NNWB_VM_INLINE void splat(Vf& v, float s) {
    v = Vf{} + s;
}
// out = mask ? a : b, lane by lane (mask lanes all ones or all zeros).
NNWB_VM_INLINE void select(Vf& out, const Vi& mask, const Vf& a, const Vf& b) {
    out = (Vf)(((Vi)a & mask) | ((Vi)b & ~mask));
}
// Lane l + w of v in lane l (for the lanes the sums below read; the upper ones are don't-care).
template <int W>
NNWB_VM_INLINE void shiftDown(Vf& out, const Vf& v) {
    out = __builtin_shufflevector(v, v, W % 16, (1 + W) % 16, (2 + W) % 16, (3 + W) % 16,
                                  (4 + W) % 16, (5 + W) % 16, (6 + W) % 16, (7 + W) % 16,
                                  (8 + W) % 16, (9 + W) % 16, (10 + W) % 16, (11 + W) % 16,
                                  (12 + W) % 16, (13 + W) % 16, (14 + W) % 16, (15 + W) % 16);
}
// The lanes' sum in a fixed pairwise order (lane l + lane l + 8, then + 4, + 2, + 1): four
// dependent adds instead of fifteen, in registers (shuffles), the same operations as a scalar
// loop over the lanes in that order.
NNWB_VM_INLINE float laneSum(const Vf& v) {
    Vf a = v, s;
    shiftDown<8>(s, a);
    a = a + s;
    shiftDown<4>(s, a);
    a = a + s;
    shiftDown<2>(s, a);
    a = a + s;
    shiftDown<1>(s, a);
    a = a + s;
    return a[0];
}
// The lanes' maximum (exact in any order; pairwise like laneSum: lane l + w where it is larger).
NNWB_VM_INLINE float laneMax(const Vf& v) {
    Vf a = v, s;
    shiftDown<8>(s, a);
    select(a, s > a, s, a);
    shiftDown<4>(s, a);
    select(a, s > a, s, a);
    shiftDown<2>(s, a);
    select(a, s > a, s, a);
    shiftDown<1>(s, a);
    select(a, s > a, s, a);
    return a[0];
}

// exp of 16 lanes: n = round(x / ln 2), r = x - n ln 2 in two parts (Cody-Waite), exp(r) by the
// degree-6 polynomial of Cephes' expf on [-ln 2 / 2, ln 2 / 2], then times 2^n as two powers of
// two of at most 2^64 each (both normal), so results near overflow and gradual underflow come out
// right. x is clamped to [-104, 89] first (exp is 0 below and +inf above); NaN passes through.
NNWB_VM_INLINE void expLanes(Vf& y, const Vf& xin) {
    const Vi isNan = xin != xin;
    Vf lo, hi, zero = {}, x;
    splat(lo, -104.0f);
    splat(hi, 89.0f);
    select(x, xin < lo, lo, xin);
    select(x, x > hi, hi, x);
    select(x, isNan, zero, x);
    const float magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    const Vf t = x * 1.44269504088896341f + magic;
    const Vf n = t - magic;
    Vf r = x - n * 0.693359375f;  // ln 2's leading bits: n * this is exact
    r = r - n * -2.12194440e-4f;  // the rest of ln 2
    Vf p = r * 1.9875691500e-4f + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const Vf e = p * (r * r) + r + 1.0f;
    const Vi ni = __builtin_convertvector(n, Vi);  // in [-150, 128]
    const Vi n1 = ni >> 1, n2 = ni - n1;           // each in [-75, 64]
    const Vf s1 = (Vf)((n1 + 127) << 23), s2 = (Vf)((n2 + 127) << 23);
    const Vf out = e * s1 * s2;
    select(y, isNan, xin, out);
}

// The same operations on one value (the same bits as a lane of expLanes): rows' tails go
// through it, since building a partial vector through memory stalls on store forwarding.
NNWB_VM_INLINE float expScalar(float xin) {
    if (xin != xin) return xin;
    float x = xin < -104.0f ? -104.0f : xin;
    x = x > 89.0f ? 89.0f : x;
    const float magic = 12582912.0f;
    const float t = x * 1.44269504088896341f + magic;
    const float n = t - magic;
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = r * 1.9875691500e-4f + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float e = p * (r * r) + r + 1.0f;
    const int32_t ni = int32_t(n);
    const int32_t n1 = ni >> 1, n2 = ni - n1;
    const int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
    float s1, s2;
    __builtin_memcpy(&s1, &b1, sizeof s1);
    __builtin_memcpy(&s2, &b2, sizeof s2);
    return e * s1 * s2;
}

NNWB_VM_INLINE void expImpl(const float* x, float* y, size_t n) {
    size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        Vf v, e;
        load(v, x + i);
        expLanes(e, v);
        store(y + i, e);
    }
    for (; i < n; ++i) y[i] = expScalar(x[i]);
}

// The largest of x[0..n) * scale: the full vectors in 16 lanes, then the last n % 16 one by one.
NNWB_VM_INLINE float scaledRowMax(const float* x, int n, float scale) {
    const float inf = std::numeric_limits<float>::infinity();
    const int full = n / kLanes * kLanes;
    float mx = -inf;
    if (full > 0) {
        Vf sc, m;
        splat(sc, scale);
        splat(m, -inf);
        for (int j = 0; j < full; j += kLanes) {
            Vf v;
            load(v, x + j);
            v = v * sc;
            select(m, v > m, v, m);
        }
        mx = laneMax(m);
    }
    for (int j = full; j < n; ++j) {
        const float v = x[j] * scale;
        mx = v > mx ? v : mx;
    }
    return mx;
}

// The row's full vectors in 16 lanes, the last n % 16 values one by one (the same operations).
NNWB_VM_INLINE void softmaxRowImpl(const float* x, float* y, int n, float scale) {
    const int full = n / kLanes * kLanes;
    const float mx = scaledRowMax(x, n, scale);
    float sum = 0.0f;
    if (full > 0) {
        Vf sc, mxv, acc = {};
        splat(sc, scale);
        splat(mxv, mx);
        for (int j = 0; j < full; j += kLanes) {
            Vf v, e;
            load(v, x + j);
            expLanes(e, v * sc - mxv);
            store(y + j, e);
            acc += e;
        }
        sum = laneSum(acc);
    }
    for (int j = full; j < n; ++j) {
        y[j] = expScalar(x[j] * scale - mx);
        sum += y[j];
    }
    const float inv = 1.0f / sum;
    for (int j = 0; j < full; j += kLanes) {
        Vf v;
        load(v, y + j);
        v = v * inv;
        store(y + j, v);
    }
    for (int j = full; j < n; ++j) y[j] *= inv;
}

// A block of rows as softmaxRowImpl computes each one, in three passes so that the exps run in
// full vectors: (1) each row's maximum and its valid values' exp arguments x * scale - max,
// packed one row after another into `work`, (2) exp over them all (a lane has expScalar's bits,
// so a short row's tail values come out as they do one by one), (3) each row's sum in
// softmaxRowImpl's order (16 lanes over the full vectors, pairwise, then the tail in order), the
// scaled values into y, zeros after the valid ones. `work` holds rows * cols values.
NNWB_VM_INLINE void softmaxRowsImpl(const float* x, float* y, int rows, int cols, bool causal,
                                    float scale, float* work) {
    size_t packed = 0;
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + size_t(r) * cols;
        const int n = causal ? std::min(cols, r + 1) : cols;
        const float mx = scaledRowMax(xr, n, scale);
        float* w = work + packed;
        for (int j = 0; j < n; ++j) w[j] = xr[j] * scale - mx;
        packed += size_t(n);
    }
    expImpl(work, work, packed);
    packed = 0;
    for (int r = 0; r < rows; ++r) {
        float* yr = y + size_t(r) * cols;
        const float* e = work + packed;
        const int n = causal ? std::min(cols, r + 1) : cols, full = n / kLanes * kLanes;
        packed += size_t(n);
        float sum = 0.0f;
        if (full > 0) {
            Vf acc = {};
            for (int j = 0; j < full; j += kLanes) {
                Vf v;
                load(v, e + j);
                acc += v;
            }
            sum = laneSum(acc);
        }
        for (int j = full; j < n; ++j) sum += e[j];
        const float inv = 1.0f / sum;
        for (int j = 0; j < full; j += kLanes) {
            Vf v;
            load(v, e + j);
            v = v * inv;
            store(yr + j, v);
        }
        for (int j = full; j < n; ++j) yr[j] = e[j] * inv;
        for (int j = n; j < cols; ++j) yr[j] = 0.0f;
    }
}

NNWB_VM_INLINE void softmaxBackwardRowImpl(const float* y, const float* dy, float* dx, int n,
                                           float scale) {
    const int full = n / kLanes * kLanes;
    float d = 0.0f;
    if (full > 0) {
        Vf dot = {};
        for (int j = 0; j < full; j += kLanes) {
            Vf a, b;
            load(a, y + j);
            load(b, dy + j);
            dot += a * b;
        }
        d = laneSum(dot);
    }
    for (int j = full; j < n; ++j) d += y[j] * dy[j];
    for (int j = 0; j < full; j += kLanes) {
        Vf a, b;
        load(a, y + j);
        load(b, dy + j);
        const Vf o = scale * a * (b - d);
        store(dx + j, o);
    }
    for (int j = full; j < n; ++j) dx[j] = scale * y[j] * (dy[j] - d);
}

// The Adam loop, vectorized by the compiler in each clone (sqrt vectorizes without errno:
// -fno-math-errno, CMakeLists.txt); each value goes through the operations of the header's
// formula in its order, so the width the compiler picks does not change a bit.
NNWB_VM_INLINE float sqrtOf(float x) {
    return __builtin_sqrtf(x);
}
NNWB_VM_INLINE double sqrtOf(double x) {
    return __builtin_sqrt(x);
}
template <typename T>
NNWB_VM_INLINE void adamImpl(T* __restrict w, const T* __restrict g, T* __restrict m,
                             T* __restrict v, size_t n, const AdamConstants<T>& c) {
    const T b1 = c.beta1, b2 = c.beta2, eps = c.eps, step = c.step, keep = c.keep, rbc2 = c.rbc2;
    const T c1 = T(1) - b1, c2 = T(1) - b2;
    for (size_t i = 0; i < n; ++i) {
        const T gi = g[i];
        const T mi = b1 * m[i] + c1 * gi;
        const T vi = b2 * v[i] + c2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        w[i] = w[i] * keep - step * mi / (sqrtOf(vi) * rbc2 + eps);
    }
}

// One clone of the functions per instruction set.
#define NNWB_VM_CLONE(suffix, attr)                                                             \
    attr void exp##suffix(const float* x, float* y, size_t n) {                                 \
        expImpl(x, y, n);                                                                       \
    }                                                                                           \
    attr void softmax##suffix(const float* x, float* y, int n, float scale) {                   \
        softmaxRowImpl(x, y, n, scale);                                                         \
    }                                                                                           \
    attr void softmaxBack##suffix(const float* y, const float* dy, float* dx, int n, float s) { \
        softmaxBackwardRowImpl(y, dy, dx, n, s);                                                \
    }                                                                                           \
    attr void softmaxRows##suffix(const float* x, float* y, int rows, int cols, bool causal,    \
                                  float scale, float* work) {                                   \
        softmaxRowsImpl(x, y, rows, cols, causal, scale, work);                                 \
    }                                                                                           \
    attr void adamF##suffix(float* w, const float* g, float* m, float* v, size_t n,             \
                            const AdamConstants<float>& c) {                                    \
        adamImpl(w, g, m, v, n, c);                                                             \
    }                                                                                           \
    attr void adamD##suffix(double* w, const double* g, double* m, double* v, size_t n,         \
                            const AdamConstants<double>& c) {                                   \
        adamImpl(w, g, m, v, n, c);                                                             \
    }
NNWB_VM_CLONE(Generic, )
#if defined(__x86_64__) || defined(__i386__)
#define NNWB_VM_X86 1
NNWB_VM_CLONE(Avx2, __attribute__((target("avx2"))))
NNWB_VM_CLONE(Avx512, __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2"))))
#endif
#undef NNWB_VM_CLONE

struct Table {
    void (*exp)(const float*, float*, size_t);
    void (*softmax)(const float*, float*, int, float);
    void (*softmaxBack)(const float*, const float*, float*, int, float);
    void (*softmaxRows)(const float*, float*, int, int, bool, float, float*);
    void (*adamF)(float*, const float*, float*, float*, size_t, const AdamConstants<float>&);
    void (*adamD)(double*, const double*, double*, double*, size_t, const AdamConstants<double>&);
    const char* name;
};

const Table& table() {
    static const Table t = [] {
#ifdef NNWB_VM_X86
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
            return Table{expAvx512,   softmaxAvx512, softmaxBackAvx512, softmaxRowsAvx512,
                         adamFAvx512, adamDAvx512,   "avx512"};
        if (__builtin_cpu_supports("avx2"))
            return Table{expAvx2,   softmaxAvx2, softmaxBackAvx2, softmaxRowsAvx2,
                         adamFAvx2, adamDAvx2,   "avx2"};
#endif
        return Table{expGeneric,   softmaxGeneric, softmaxBackGeneric, softmaxRowsGeneric,
                     adamFGeneric, adamDGeneric,   "generic"};
    }();
    return t;
}

}  // namespace

void exp(const float* x, float* y, size_t n) {
    table().exp(x, y, n);
}

void softmaxRow(const float* x, float* y, int n, float scale) {
    table().softmax(x, y, n, scale);
}

void softmaxBackwardRow(const float* y, const float* dy, float* dx, int n, float scale) {
    table().softmaxBack(y, dy, dx, n, scale);
}

void softmaxRows(const float* x, float* y, int rows, int cols, bool causal, float scale) {
    static thread_local std::vector<float> work;
    if (work.size() < size_t(rows) * size_t(cols)) work.resize(size_t(rows) * size_t(cols));
    table().softmaxRows(x, y, rows, cols, causal, scale, work.data());
}

void adamStep(float* w, const float* g, float* m, float* v, size_t n,
              const AdamConstants<float>& c) {
    table().adamF(w, g, m, v, n, c);
}

void adamStep(double* w, const double* g, double* m, double* v, size_t n,
              const AdamConstants<double>& c) {
    table().adamD(w, g, m, v, n, c);
}

const char* isaName() {
    return table().name;
}

}  // namespace nnwb::cpumath
