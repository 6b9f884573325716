#include "compute/CpuVecMath.h"

#include <cstdint>
#include <limits>

// Compiled with -ffp-contract=off (see CMakeLists.txt): every clone below performs the same IEEE
// operations lane by lane, so AVX-512, AVX2 and SSE give the same bits. The vectors are 16 lanes
// on every instruction set (GCC and clang split them into two AVX2 or four SSE registers), so the
// lane sums add the same partial sums in the same order everywhere.

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
// Lanes [0, valid) all ones, the rest zero.
NNWB_VM_INLINE void firstLanes(Vi& mask, int valid) {
    const Vi iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    mask = iota < (Vi{} + valid);
}
// The lanes' sum in a fixed order (lane 0 to 15).
NNWB_VM_INLINE float laneSum(const Vf& v) {
    float lanes[kLanes];
    store(lanes, v);
    float s = 0.0f;
    for (int l = 0; l < kLanes; ++l) s += lanes[l];
    return s;
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
    const Vi n1 = ni >> 1, n2 = ni - n1;            // each in [-75, 64]
    const Vf s1 = (Vf)((n1 + 127) << 23), s2 = (Vf)((n2 + 127) << 23);
    const Vf out = e * s1 * s2;
    select(y, isNan, xin, out);
}

NNWB_VM_INLINE void expImpl(const float* x, float* y, size_t n) {
    size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        Vf v, e;
        load(v, x + i);
        expLanes(e, v);
        store(y + i, e);
    }
    if (i < n) {
        float tail[kLanes] = {};
        for (size_t j = i; j < n; ++j) tail[j - i] = x[j];
        Vf v, e;
        load(v, tail);
        expLanes(e, v);
        store(tail, e);
        for (size_t j = i; j < n; ++j) y[j] = tail[j - i];
    }
}

NNWB_VM_INLINE void softmaxRowImpl(const float* x, float* y, int n, float scale) {
    const float inf = std::numeric_limits<float>::infinity();
    Vf sc, m;
    splat(sc, scale);
    splat(m, -inf);
    float tail[kLanes];
    const int full = n / kLanes * kLanes, rest = n - full;
    Vi valid;
    firstLanes(valid, rest);
    for (int j = 0; j < full; j += kLanes) {
        Vf v;
        load(v, x + j);
        v = v * sc;
        select(m, v > m, v, m);
    }
    if (rest > 0) {
        for (int j = 0; j < kLanes; ++j) tail[j] = j < rest ? x[full + j] : 0.0f;
        Vf v, ninf;
        load(v, tail);
        v = v * sc;
        splat(ninf, -inf);
        select(v, valid, v, ninf);
        select(m, v > m, v, m);
    }
    float mx;
    {
        float lanes[kLanes];
        store(lanes, m);
        mx = lanes[0];
        for (int l = 1; l < kLanes; ++l) mx = lanes[l] > mx ? lanes[l] : mx;
    }
    Vf mxv, sum = {};
    splat(mxv, mx);
    for (int j = 0; j < full; j += kLanes) {
        Vf v, e;
        load(v, x + j);
        expLanes(e, v * sc - mxv);
        store(y + j, e);
        sum += e;
    }
    if (rest > 0) {
        for (int j = 0; j < kLanes; ++j) tail[j] = j < rest ? x[full + j] : 0.0f;
        Vf v, e, zero = {};
        load(v, tail);
        expLanes(e, v * sc - mxv);
        select(e, valid, e, zero);
        store(tail, e);
        for (int j = 0; j < rest; ++j) y[full + j] = tail[j];
        sum += e;
    }
    const float inv = 1.0f / laneSum(sum);
    for (int j = 0; j < full; j += kLanes) {
        Vf v;
        load(v, y + j);
        v = v * inv;
        store(y + j, v);
    }
    for (int j = full; j < n; ++j) y[j] *= inv;
}

NNWB_VM_INLINE void softmaxBackwardRowImpl(const float* y, const float* dy, float* dx, int n,
                                           float scale) {
    const int full = n / kLanes * kLanes, rest = n - full;
    Vf dot = {};
    for (int j = 0; j < full; j += kLanes) {
        Vf a, b;
        load(a, y + j);
        load(b, dy + j);
        dot += a * b;
    }
    if (rest > 0) {
        float ta[kLanes] = {}, tb[kLanes] = {};
        for (int j = 0; j < rest; ++j) {
            ta[j] = y[full + j];
            tb[j] = dy[full + j];
        }
        Vf a, b;
        load(a, ta);
        load(b, tb);
        dot += a * b;
    }
    const float d = laneSum(dot);
    for (int j = 0; j < full; j += kLanes) {
        Vf a, b;
        load(a, y + j);
        load(b, dy + j);
        const Vf o = scale * a * (b - d);
        store(dx + j, o);
    }
    for (int j = full; j < n; ++j) dx[j] = scale * y[j] * (dy[j] - d);
}

// One clone of the three functions per instruction set.
#define NNWB_VM_CLONE(suffix, attr)                                                            \
    attr void exp##suffix(const float* x, float* y, size_t n) { expImpl(x, y, n); }            \
    attr void softmax##suffix(const float* x, float* y, int n, float scale) {                  \
        softmaxRowImpl(x, y, n, scale);                                                        \
    }                                                                                          \
    attr void softmaxBack##suffix(const float* y, const float* dy, float* dx, int n, float s) { \
        softmaxBackwardRowImpl(y, dy, dx, n, s);                                               \
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
    const char* name;
};

const Table& table() {
    static const Table t = [] {
#ifdef NNWB_VM_X86
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
            return Table{expAvx512, softmaxAvx512, softmaxBackAvx512, "avx512"};
        if (__builtin_cpu_supports("avx2"))
            return Table{expAvx2, softmaxAvx2, softmaxBackAvx2, "avx2"};
#endif
        return Table{expGeneric, softmaxGeneric, softmaxBackGeneric, "generic"};
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

const char* isaName() {
    return table().name;
}

}  // namespace nnwb::cpumath
