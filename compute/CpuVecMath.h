// Vectorized math for CpuBackend: exp and the softmax rows built on it (the attention scores),
// in 16-lane vectors on every instruction set (AVX-512, AVX2 or plain SSE, chosen at run time),
// and the Adam step's element loop; compiled without FMA contraction so that every machine gives
// the same bits. Stateless: any thread may call these functions.
#pragma once

#include <cstddef>

namespace nnwb::cpumath {

// y[i] = exp(x[i]) for i < n (y may alias x). Relative error at most 4e-7 (about 3 ulp) where the
// result is a normal float; results below FLT_MIN lose precision gradually down to 0 (x < -103.9);
// x > 88.73 gives +inf, -inf gives 0 and NaN gives NaN.
void exp(const float* x, float* y, size_t n);

// One softmax row: y = softmax(scale * x) over n >= 1 values (y may alias x). The row's maximum is
// subtracted first; the sum is formed in 16 lanes over the full vectors, added pairwise in a fixed
// order, then the last n % 16 values in order (any thread count and instruction set give the same
// bits).
void softmaxRow(const float* x, float* y, int n, float scale);

// softmaxRow over `rows` rows of `cols` values, row r at x + r * cols (y may alias x): row r over
// its first r + 1 values when `causal` (at most cols), else over all; zeros after them. The same
// bits as softmaxRow row by row, with the exps of short rows in full vectors (an attention head's
// scores, whose causal rows are mostly shorter than a vector).
void softmaxRows(const float* x, float* y, int rows, int cols, bool causal, float scale);

// dx = scale * y * (dy - sum(dy * y)) over one row of n values (dx may alias dy); the sum as in
// softmaxRow.
void softmaxBackwardRow(const float* y, const float* dy, float* dx, int n, float scale);

// The constants of one Adam step, as CpuBackend derives them from the step's settings in the
// storage precision: step = lr / bc1, keep = 1 - lr * weightDecay, rbc2 = 1 / sqrt(bc2).
template <typename T>
struct AdamConstants {
    T beta1, beta2, eps, step, keep, rbc2;
};

// The Adam update of n values (w, g, m, v distinct): m = b1 m + (1 - b1) g,
// v = b2 v + ((1 - b2) g) g, w = w keep - step m / (sqrt(v) rbc2 + eps), each value with exactly
// these IEEE operations in this order (no contraction), so the bits do not depend on the
// instruction set, the vector width or how the values are split between calls.
void adamStep(float* w, const float* g, float* m, float* v, size_t n,
              const AdamConstants<float>& c);
void adamStep(double* w, const double* g, double* m, double* v, size_t n,
              const AdamConstants<double>& c);

// The instruction set the functions above run on: "avx512", "avx2" or "generic".
const char* isaName();

}  // namespace nnwb::cpumath
