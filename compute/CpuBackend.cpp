#include "compute/CpuBackend.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include "compute/CpuGemm.h"
#include "compute/DropoutMask.h"
#include "compute/ThreadPool.h"

namespace nnwb {

namespace {

template <typename T>
struct Storage {
    std::vector<T> data;
};

constexpr size_t kGrain = 1 << 14;  // elements per parallel chunk for element-wise work
constexpr size_t kGemmParallelWork = 1 << 17;  // multiply-adds below which gemm stays serial

}  // namespace

// All ops, written once for float and double storage.
template <typename T>
struct CpuOps {
    CpuBackend& be;

    static T* ptr(BufRef r) {
        if (r.empty()) return nullptr;
        return static_cast<Storage<T>*>(r.buf->handle())->data.data() + r.offset;
    }
    static void check(BufRef r, size_t n, const char* op) {
        if (r.empty()) throw ComputeError(std::string(op) + ": missing buffer");
        if (r.offset + n > r.buf->size())
            throw ComputeError(std::string(op) + ": access of " + std::to_string(n) +
                               " values at offset " + std::to_string(r.offset) +
                               " overruns a buffer of " + std::to_string(r.buf->size()));
    }
    template <typename F>
    void rowsParallel(size_t rows, size_t cols, F&& f) {
        size_t grain = std::max<size_t>(1, kGrain / std::max<size_t>(1, cols));
        be.pool_->parallelFor(rows, grain, [&](size_t b, size_t e) {
            for (size_t r = b; r < e; ++r) f(r);
        });
    }
    // f(firstRow, endRow) over blocks of whole rows.
    template <typename F>
    void rowBlocks(size_t rows, size_t cols, F&& f) {
        size_t grain = std::max<size_t>(1, kGrain / std::max<size_t>(1, cols));
        be.pool_->parallelFor(rows, grain, [&](size_t b, size_t e) { f(b, e); });
    }
    template <typename F>
    void elemParallel(size_t n, F&& f) {
        be.pool_->parallelFor(n, kGrain, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i) f(i);
        });
    }

    void fill(BufRef x, size_t n, float v) {
        check(x, n, "fill");
        std::fill_n(ptr(x), n, static_cast<T>(v));
    }
    void copy(BufRef s, BufRef d, size_t n) {
        check(s, n, "copy");
        check(d, n, "copy");
        std::memmove(ptr(d), ptr(s), n * sizeof(T));
    }
    void copy2d(BufRef s, int sld, BufRef d, int dld, int rows, int cols) {
        if (rows <= 0 || cols <= 0) return;
        check(s, size_t(rows - 1) * sld + cols, "copy2d");
        check(d, size_t(rows - 1) * dld + cols, "copy2d");
        const T* a = ptr(s);
        T* b = ptr(d);
        for (int r = 0; r < rows; ++r)
            std::memmove(b + size_t(r) * dld, a + size_t(r) * sld, size_t(cols) * sizeof(T));
    }
    void axpy(size_t n, float alpha, BufRef x, BufRef y) {
        check(x, n, "axpy");
        check(y, n, "axpy");
        const T* a = ptr(x);
        T* b = ptr(y);
        const T al = alpha;
        be.pool_->parallelFor(n, kGrain, [=](size_t s, size_t e) {
            const T* __restrict x = a;
            T* __restrict yv = b;
            if (x == yv)
                for (size_t i = s; i < e; ++i) yv[i] += al * yv[i];
            else
                for (size_t i = s; i < e; ++i) yv[i] += al * x[i];
        });
    }
    void add(size_t n, BufRef x, BufRef y, BufRef out) {
        check(x, n, "add");
        check(y, n, "add");
        check(out, n, "add");
        const T* a = ptr(x);
        const T* b = ptr(y);
        T* o = ptr(out);
        elemParallel(n, [&](size_t i) { o[i] = a[i] + b[i]; });
    }

    void gemm(const GemmArgs& g) {
        const int M = g.m, N = g.n, K = g.k;
        if (M <= 0 || N <= 0 || g.batch0 <= 0 || g.batch1 <= 0) return;
        auto extent = [](bool trans, int rows, int cols, int ld) {
            // rows x cols of op(X); storage is (trans ? cols x rows : rows x cols)
            int sr = trans ? cols : rows, sc = trans ? rows : cols;
            return size_t(sr - 1) * ld + sc;
        };
        const size_t lastA = size_t(g.batch0 - 1) * g.strideA0 + size_t(g.batch1 - 1) * g.strideA1;
        const size_t lastB = size_t(g.batch0 - 1) * g.strideB0 + size_t(g.batch1 - 1) * g.strideB1;
        const size_t lastC = size_t(g.batch0 - 1) * g.strideC0 + size_t(g.batch1 - 1) * g.strideC1;
        if (K > 0) {
            check(g.a, lastA + extent(g.transA, M, K, g.lda), "gemm A");
            check(g.b, lastB + extent(g.transB, K, N, g.ldb), "gemm B");
        }
        check(g.c, lastC + extent(false, M, N, g.ldc), "gemm C");
        const T* A = K > 0 ? ptr(g.a) : nullptr;
        const T* B = K > 0 ? ptr(g.b) : nullptr;
        T* C = ptr(g.c);
        cpugemm::Product<T> p;
        p.transA = g.transA;
        p.transB = g.transB;
        p.m = M;
        p.n = N;
        p.k = std::max(K, 0);
        p.alpha = g.alpha;
        p.beta = g.beta;
        p.lda = g.lda;
        p.ldb = g.ldb;
        p.ldc = g.ldc;
        // Tiles: (product, row block, column block). Each C element belongs to one tile and its
        // value does not depend on the split, so any thread count gives the same result.
        const size_t batches = size_t(g.batch0) * g.batch1;
        const int rowTiles = (M + cpugemm::kTileRows - 1) / cpugemm::kTileRows;
        const int colTiles = (N + cpugemm::kTileCols - 1) / cpugemm::kTileCols;
        const size_t perBatch = size_t(rowTiles) * colTiles;
        const size_t items = batches * perBatch;
        auto run = [&](size_t b0, size_t e0) {
            cpugemm::Product<T> q = p;
            for (size_t w = b0; w < e0; ++w) {
                const size_t bi = w / perBatch, t = w % perBatch;
                const size_t i0 = bi / g.batch1, i1 = bi % g.batch1;
                q.a = A ? A + i0 * g.strideA0 + i1 * g.strideA1 : nullptr;
                q.b = B ? B + i0 * g.strideB0 + i1 * g.strideB1 : nullptr;
                q.c = C + i0 * g.strideC0 + i1 * g.strideC1;
                const int rt = int(t / colTiles), ct = int(t % colTiles);
                const int r0 = rt * cpugemm::kTileRows, c0 = ct * cpugemm::kTileCols;
                cpugemm::tile(q, r0, std::min(M, r0 + cpugemm::kTileRows), c0,
                              std::min(N, c0 + cpugemm::kTileCols));
            }
        };
        // Threads only pay off above a few hundred thousand multiply-adds.
        const size_t work = batches * size_t(M) * N * std::max(1, K);
        if (work < kGemmParallelWork || items == 1) {
            run(0, items);
            return;
        }
        const size_t chunks = std::min(items, size_t(be.pool_->size()) * 4);
        be.pool_->parallelFor(items, (items + chunks - 1) / chunks, run);
    }

    // The activation chosen at compile time, so that the element loops below vectorize.
    template <Activation A>
    static T act(T z) {
        if constexpr (A == Activation::Tanh) return std::tanh(z);
        if constexpr (A == Activation::Sigmoid) return T(1) / (T(1) + std::exp(-z));
        if constexpr (A == Activation::Relu) return z > T(0) ? z : T(0);
        // Both sides evaluated (select, no branch) so the loop vectorizes; same values.
        if constexpr (A == Activation::LeakyRelu) return (z > T(0) ? T(1) : T(0.01)) * z;
        if constexpr (A == Activation::Swish) return z / (T(1) + std::exp(-z));
        return z;  // None; Softmax is handled per row
    }
    template <Activation A>
    static T actGrad(T z, T y) {
        if constexpr (A == Activation::Tanh) return T(1) - y * y;
        if constexpr (A == Activation::Sigmoid) return y * (T(1) - y);
        if constexpr (A == Activation::Relu) return z > T(0) ? T(1) : T(0);
        if constexpr (A == Activation::LeakyRelu) return z > T(0) ? T(1) : T(0.01);
        if constexpr (A == Activation::Swish) {
            const T s = T(1) / (T(1) + std::exp(-z));
            return s + y * (T(1) - s);
        }
        return T(1);  // None, Softmax
    }
    template <Activation A>
    using ActTag = std::integral_constant<Activation, A>;
    // Calls f(ActTag<a>()) so that the body is compiled once per activation.
    template <typename F>
    static void withActivation(Activation a, F&& f) {
        switch (a) {
            case Activation::None: f(ActTag<Activation::None>()); break;
            case Activation::Tanh: f(ActTag<Activation::Tanh>()); break;
            case Activation::Sigmoid: f(ActTag<Activation::Sigmoid>()); break;
            case Activation::Relu: f(ActTag<Activation::Relu>()); break;
            case Activation::LeakyRelu: f(ActTag<Activation::LeakyRelu>()); break;
            case Activation::Swish: f(ActTag<Activation::Swish>()); break;
            case Activation::Softmax: f(ActTag<Activation::Softmax>()); break;
        }
    }
    static void softmaxRow(const T* x, T* y, int n, T scale) {
        T mx = x[0] * scale;
        for (int j = 1; j < n; ++j) mx = std::max(mx, x[j] * scale);
        T sum = 0;
        for (int j = 0; j < n; ++j) {
            y[j] = std::exp(x[j] * scale - mx);
            sum += y[j];
        }
        const T inv = T(1) / sum;
        for (int j = 0; j < n; ++j) y[j] *= inv;
    }

    void biasActivation(int rows, int cols, BufRef x, BufRef bias, BufRef z, BufRef y,
                        Activation a) {
        const size_t n = size_t(rows) * cols;
        check(x, n, "biasActivation x");
        check(z, n, "biasActivation z");
        check(y, n, "biasActivation y");
        if (!bias.empty()) check(bias, size_t(cols), "biasActivation bias");
        const T* X = ptr(x);
        const T* Bv = bias.empty() ? nullptr : ptr(bias);
        T* Z = ptr(z);
        T* Y = ptr(y);
        withActivation(a, [&](auto tag) {
            constexpr Activation A = decltype(tag)::value;
            rowBlocks(size_t(rows), size_t(cols), [&](size_t rb, size_t re) {
                for (size_t r = rb; r < re; ++r) {
                    const T* xr = X + r * cols;
                    T* zr = Z + r * cols;
                    if (Bv)
                        for (int j = 0; j < cols; ++j) zr[j] = xr[j] + Bv[j];
                    else if (zr != xr)
                        std::copy_n(xr, cols, zr);
                }
                if constexpr (A == Activation::Softmax) {
                    for (size_t r = rb; r < re; ++r)
                        softmaxRow(Z + r * cols, Y + r * cols, cols, T(1));
                } else {
                    const size_t count = (re - rb) * size_t(cols);
                    if (Y == Z) {
                        T* __restrict ys = Y + rb * cols;
                        for (size_t i = 0; i < count; ++i) ys[i] = act<A>(ys[i]);
                    } else {
                        const T* __restrict zs = Z + rb * cols;
                        T* __restrict ys = Y + rb * cols;
                        for (size_t i = 0; i < count; ++i) ys[i] = act<A>(zs[i]);
                    }
                }
            });
        });
    }
    void activationBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy, BufRef dz,
                            Activation a) {
        const size_t n = size_t(rows) * cols;
        check(z, n, "activationBackward z");
        check(y, n, "activationBackward y");
        check(dy, n, "activationBackward dy");
        check(dz, n, "activationBackward dz");
        const T* Z = ptr(z);
        const T* Y = ptr(y);
        const T* DY = ptr(dy);
        T* DZ = ptr(dz);
        withActivation(a, [&](auto tag) {
            constexpr Activation A = decltype(tag)::value;
            rowBlocks(size_t(rows), size_t(cols), [&](size_t rb, size_t re) {
                if constexpr (A == Activation::Softmax) {
                    for (size_t r = rb; r < re; ++r) {
                        const size_t o = r * cols;
                        T dot = 0;
                        for (int j = 0; j < cols; ++j) dot += DY[o + j] * Y[o + j];
                        for (int j = 0; j < cols; ++j) DZ[o + j] = Y[o + j] * (DY[o + j] - dot);
                    }
                } else {
                    // dz may alias dy: separate loops so each vectorizes without overlap checks.
                    const T* __restrict zz = Z;
                    const T* __restrict yy = Y;
                    if (DZ == DY) {
                        T* __restrict d = DZ;
                        for (size_t i = rb * cols, e = re * cols; i < e; ++i)
                            d[i] = d[i] * actGrad<A>(zz[i], yy[i]);
                    } else {
                        T* __restrict d = DZ;
                        const T* __restrict g = DY;
                        for (size_t i = rb * cols, e = re * cols; i < e; ++i)
                            d[i] = g[i] * actGrad<A>(zz[i], yy[i]);
                    }
                }
            });
        });
    }
    void biasGradient(int rows, int cols, BufRef dz, BufRef db) {
        check(dz, size_t(rows) * cols, "biasGradient dz");
        check(db, size_t(cols), "biasGradient db");
        const T* D = ptr(dz);
        T* G = ptr(db);
        for (int r = 0; r < rows; ++r)
            for (int j = 0; j < cols; ++j) G[j] += D[size_t(r) * cols + j];
    }

    void softmaxForward(const SoftmaxArgs& s, BufRef x, BufRef y) {
        const size_t n = size_t(s.rows) * s.cols;
        check(x, n, "softmax x");
        check(y, n, "softmax y");
        if (s.causal && s.queries <= 0)
            throw ComputeError("softmax: causal mask needs queries > 0 (got " +
                               std::to_string(s.queries) + ")");
        const T* X = ptr(x);
        T* Y = ptr(y);
        const T scale = s.scale;
        rowsParallel(size_t(s.rows), size_t(s.cols), [&](size_t r) {
            const T* xr = X + r * s.cols;
            T* yr = Y + r * s.cols;
            int valid = s.cols;
            if (s.causal) valid = std::min(s.cols, int(r % size_t(s.queries)) + 1);
            softmaxRow(xr, yr, valid, scale);
            for (int j = valid; j < s.cols; ++j) yr[j] = T(0);
        });
    }
    void softmaxBackward(const SoftmaxArgs& s, BufRef y, BufRef dy, BufRef dx) {
        const size_t n = size_t(s.rows) * s.cols;
        check(y, n, "softmaxBackward y");
        check(dy, n, "softmaxBackward dy");
        check(dx, n, "softmaxBackward dx");
        const T* Y = ptr(y);
        const T* DY = ptr(dy);
        T* DX = ptr(dx);
        const T scale = s.scale;
        rowsParallel(size_t(s.rows), size_t(s.cols), [&](size_t r) {
            const size_t o = r * s.cols;
            T dot = 0;
            for (int j = 0; j < s.cols; ++j) dot += DY[o + j] * Y[o + j];
            for (int j = 0; j < s.cols; ++j) DX[o + j] = scale * Y[o + j] * (DY[o + j] - dot);
        });
    }

    void normForward(int rows, int cols, float eps, BufRef x, BufRef y, BufRef rstd) {
        check(x, size_t(rows) * cols, "normForward x");
        check(y, size_t(rows) * cols, "normForward y");
        check(rstd, size_t(rows), "normForward rstd");
        const T* X = ptr(x);
        T* Y = ptr(y);
        T* R = ptr(rstd);
        rowsParallel(size_t(rows), size_t(cols), [&](size_t r) {
            const T* xr = X + r * cols;
            T* yr = Y + r * cols;
            T mean = 0;
            for (int j = 0; j < cols; ++j) mean += xr[j];
            mean /= T(cols);
            T var = 0;
            for (int j = 0; j < cols; ++j) var += (xr[j] - mean) * (xr[j] - mean);
            var /= T(cols);
            const T rs = T(1) / std::sqrt(var + T(eps));
            for (int j = 0; j < cols; ++j) yr[j] = (xr[j] - mean) * rs;
            R[r] = rs;
        });
    }
    void normBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy, BufRef dx) {
        const size_t n = size_t(rows) * cols;
        check(y, n, "normBackward y");
        check(dy, n, "normBackward dy");
        check(dx, n, "normBackward dx");
        check(rstd, size_t(rows), "normBackward rstd");
        const T* Y = ptr(y);
        const T* R = ptr(rstd);
        const T* DY = ptr(dy);
        T* DX = ptr(dx);
        rowsParallel(size_t(rows), size_t(cols), [&](size_t r) {
            const size_t o = r * cols;
            T m1 = 0, m2 = 0;
            for (int j = 0; j < cols; ++j) {
                m1 += DY[o + j];
                m2 += DY[o + j] * Y[o + j];
            }
            m1 /= T(cols);
            m2 /= T(cols);
            for (int j = 0; j < cols; ++j) DX[o + j] = R[r] * (DY[o + j] - m1 - Y[o + j] * m2);
        });
    }

    static void checkWindows(const char* op, int batch, int len, int window, int step,
                             int positions) {
        if (batch < 0 || len < 0 || window < 0 || positions < 0 || step < 1)
            throw ComputeError(std::string(op) + ": invalid sizes (batch " +
                               std::to_string(batch) + ", len " + std::to_string(len) +
                               ", window " + std::to_string(window) + ", step " +
                               std::to_string(step) + ", positions " +
                               std::to_string(positions) + ")");
    }
    void unfold(int batch, int len, int window, int step, int positions, BufRef x, BufRef cols) {
        checkWindows("unfold", batch, len, window, step, positions);
        check(x, size_t(batch) * len, "unfold x");
        check(cols, size_t(batch) * positions * window, "unfold cols");
        const T* X = ptr(x);
        T* C = ptr(cols);
        for (int b = 0; b < batch; ++b)
            for (int p = 0; p < positions; ++p)
                for (int w = 0; w < window; ++w) {
                    int i = p * step + w;
                    C[(size_t(b) * positions + p) * window + w] =
                        i < len ? X[size_t(b) * len + i] : T(0);
                }
    }
    void fold(int batch, int len, int window, int step, int positions, BufRef dcols, BufRef dx) {
        checkWindows("fold", batch, len, window, step, positions);
        check(dx, size_t(batch) * len, "fold dx");
        check(dcols, size_t(batch) * positions * window, "fold dcols");
        const T* D = ptr(dcols);
        T* X = ptr(dx);
        std::fill_n(X, size_t(batch) * len, T(0));
        for (int b = 0; b < batch; ++b)
            for (int p = 0; p < positions; ++p)
                for (int w = 0; w < window; ++w) {
                    int i = p * step + w;
                    if (i < len) X[size_t(b) * len + i] += D[(size_t(b) * positions + p) * window + w];
                }
    }

    void mseLoss(int rows, int cols, BufRef y, BufRef t, BufRef dy, BufRef loss, float gs) {
        const size_t n = size_t(rows) * cols;
        check(y, n, "mseLoss y");
        check(t, n, "mseLoss target");
        check(dy, n, "mseLoss dy");
        check(loss, size_t(rows), "mseLoss loss");
        const T* Y = ptr(y);
        const T* Tg = ptr(t);
        T* D = ptr(dy);
        T* L = ptr(loss);
        for (int r = 0; r < rows; ++r) {
            T s = 0;
            for (int j = 0; j < cols; ++j) {
                const size_t o = size_t(r) * cols + j;
                const T e = Y[o] - Tg[o];
                s += e * e;
                D[o] = T(2) * e / T(cols) * T(gs);
            }
            L[r] = s / T(cols);
        }
    }
    void softmaxCrossEntropy(int rows, int cols, BufRef logits, BufRef t, BufRef prob, BufRef dy,
                             BufRef loss, float gs) {
        const size_t n = size_t(rows) * cols;
        check(logits, n, "crossEntropy logits");
        check(t, n, "crossEntropy target");
        check(prob, n, "crossEntropy prob");
        check(dy, n, "crossEntropy dy");
        check(loss, size_t(rows), "crossEntropy loss");
        const T* X = ptr(logits);
        const T* Tg = ptr(t);
        T* P = ptr(prob);
        T* D = ptr(dy);
        T* L = ptr(loss);
        for (int r = 0; r < rows; ++r) {
            const size_t o = size_t(r) * cols;
            T mx = X[o];
            for (int j = 1; j < cols; ++j) mx = std::max(mx, X[o + j]);
            T sum = 0;
            for (int j = 0; j < cols; ++j) sum += std::exp(X[o + j] - mx);
            const T lse = mx + std::log(sum);
            T l = 0, tsum = 0;
            for (int j = 0; j < cols; ++j) {
                P[o + j] = std::exp(X[o + j] - lse);
                l -= Tg[o + j] * (X[o + j] - lse);
                tsum += Tg[o + j];
            }
            // Gradient of -sum t log p for unnormalised t: tsum * p - t.
            for (int j = 0; j < cols; ++j) D[o + j] = (tsum * P[o + j] - Tg[o + j]) * T(gs);
            L[r] = l;
        }
    }

    bool skipped(BufRef skip) {
        if (skip.empty()) return false;
        check(skip, 1, "optimizer skip flag");
        return ptr(skip)[0] >= T(0);
    }
    void sgdStep(size_t n, BufRef w, BufRef g, BufRef vel, float lr, float mom, float wd,
                 BufRef skip) {
        if (skipped(skip)) return;
        check(w, n, "sgd w");
        check(g, n, "sgd g");
        check(vel, n, "sgd velocity");
        T* W = ptr(w);
        const T* G = ptr(g);
        T* V = ptr(vel);
        const T l = lr, m = mom, d = wd;
        be.pool_->parallelFor(n, kGrain, [=](size_t b, size_t e) {
            T* __restrict w = W;
            const T* __restrict gr = G;
            T* __restrict v = V;
            for (size_t i = b; i < e; ++i) {
                const T vi = m * v[i] + gr[i] + d * w[i];
                v[i] = vi;
                w[i] -= l * vi;
            }
        });
    }
    void adamStep(size_t n, BufRef w, BufRef g, BufRef m, BufRef v, float lr, float b1,
                  float b2, float eps, float wd, float bc1, float bc2, BufRef skip) {
        if (skipped(skip)) return;
        check(w, n, "adam w");
        check(g, n, "adam g");
        check(m, n, "adam m");
        check(v, n, "adam v");
        T* W = ptr(w);
        const T* G = ptr(g);
        T* Mv = ptr(m);
        T* Vv = ptr(v);
        const T B1 = b1, B2 = b2, E = eps, step = T(lr) / T(bc1);
        const T keep = T(1) - T(lr) * T(wd), rbc2 = T(1) / std::sqrt(T(bc2));
        be.pool_->parallelFor(n, kGrain, [=](size_t b, size_t e) {
            // Local restrict pointers so that the loop vectorizes.
            T* __restrict w = W;
            const T* __restrict gr = G;
            T* __restrict m1 = Mv;
            T* __restrict m2 = Vv;
            for (size_t i = b; i < e; ++i) {
                const T gi = gr[i];
                const T mi = B1 * m1[i] + (T(1) - B1) * gi;
                const T vi = B2 * m2[i] + (T(1) - B2) * gi * gi;
                m1[i] = mi;
                m2[i] = vi;
                w[i] = w[i] * keep - step * mi / (std::sqrt(vi) * rbc2 + E);
            }
        });
    }

    void clipByGlobalNorm(size_t n, BufRef g, float maxNorm, BufRef norm) {
        check(g, n, "clipByGlobalNorm g");
        check(norm, 1, "clipByGlobalNorm norm");
        T* G = ptr(g);
        double sum = 0.0;  // in double: the reference for every device's float reduction
        for (size_t i = 0; i < n; ++i) sum += double(G[i]) * double(G[i]);
        const T nrm = T(std::sqrt(sum));
        ptr(norm)[0] = nrm;
        if (maxNorm > 0 && std::isfinite(nrm) && nrm > T(maxNorm)) {
            const T f = T(maxNorm) / nrm;
            for (size_t i = 0; i < n; ++i) G[i] *= f;
        }
    }
    void scaleRows(int rows, int cols, BufRef scale, BufRef x) {
        const size_t r = size_t(std::max(rows, 0)), c = size_t(std::max(cols, 0));
        check(scale, r, "scaleRows scale");
        check(x, r * c, "scaleRows x");
        const T* S = ptr(scale);
        T* X = ptr(x);
        for (size_t i = 0; i < r; ++i)
            for (size_t k = 0; k < c; ++k) X[i * c + k] *= S[i];
    }

    void dropoutForward(size_t n, float rate, uint64_t key, BufRef x, BufRef mask, BufRef y) {
        checkDropoutRate(rate);
        check(x, n, "dropoutForward x");
        check(mask, n, "dropoutForward mask");
        check(y, n, "dropoutForward y");
        const uint32_t threshold = dropoutThreshold(rate);
        const T scale = T(dropoutScale(rate));
        const T* X = ptr(x);
        T* M = ptr(mask);
        T* Y = ptr(y);
        elemParallel(n, [&](size_t i) {
            const T m = dropoutBits(key, i) >= threshold ? scale : T(0);
            M[i] = m;
            Y[i] = X[i] * m;
        });
    }
    void dropoutBackward(size_t n, BufRef mask, BufRef dy, BufRef dx) {
        check(mask, n, "dropoutBackward mask");
        check(dy, n, "dropoutBackward dy");
        check(dx, n, "dropoutBackward dx");
        const T* M = ptr(mask);
        const T* D = ptr(dy);
        T* O = ptr(dx);
        elemParallel(n, [&](size_t i) { O[i] = D[i] * M[i]; });
    }

    void recordOutcomes(int rows, int cols, BufRef pred, BufRef target, BufRef loss, BufRef log,
                        BufRef flag, float batchIndex) {
        const size_t r = size_t(std::max(rows, 0)), c = size_t(std::max(cols, 0));
        check(pred, r * c, "recordOutcomes pred");
        check(target, r * c, "recordOutcomes target");
        check(loss, r, "recordOutcomes loss");
        check(log, 2 * r, "recordOutcomes log");
        check(flag, 1, "recordOutcomes flag");
        const T* P = ptr(pred);
        const T* Tg = ptr(target);
        const T* L = ptr(loss);
        T* out = ptr(log);
        bool finite = true;
        for (size_t i = 0; i < r; ++i) {
            const T* p = P + i * c;
            size_t best = 0;
            for (size_t k = 1; k < c; ++k)
                if (p[k] > p[best]) best = k;
            T code = T(best);
            if (c == 3) code += T(3 * (Tg[i * c + 1] > T(0.5)) + 6 * (Tg[i * c + 2] > T(0.5)));
            out[2 * i] = L[i];
            out[2 * i + 1] = code;
            finite = finite && std::isfinite(L[i]);
        }
        T* F = ptr(flag);
        if (!finite && F[0] < T(0)) F[0] = T(batchIndex);
    }

    void tapWeights(int heads, int k, bool sm, const T* W, T* out) {
        for (int h = 0; h < heads; ++h) {
            if (sm)
                softmaxRow(W + size_t(h) * k, out + size_t(h) * k, k, T(1));
            else
                std::copy_n(W + size_t(h) * k, k, out + size_t(h) * k);
        }
    }
    static void checkLightConvShape(const char* op, int ch, int heads, int k) {
        if (heads <= 0 || ch % heads != 0)
            throw ComputeError(std::string(op) + ": channels " + std::to_string(ch) +
                               " not divisible by heads " + std::to_string(heads));
        if (k <= 0) throw ComputeError(std::string(op) + ": kernel size must be positive");
    }
    void lightConvForward(int batch, int units, int ch, int heads, int k, int padL, bool sm,
                          BufRef x, BufRef weight, BufRef wsm, BufRef y) {
        checkLightConvShape("lightConv", ch, heads, k);
        const size_t n = size_t(batch) * units * ch;
        check(x, n, "lightConv x");
        check(y, n, "lightConv y");
        check(weight, size_t(heads) * k, "lightConv weight");
        check(wsm, size_t(heads) * k, "lightConv wsm");
        const T* X = ptr(x);
        T* Y = ptr(y);
        T* Wt = ptr(wsm);
        tapWeights(heads, k, sm, ptr(weight), Wt);
        const int per = ch / heads;
        rowsParallel(size_t(batch) * units, size_t(ch) * k, [&](size_t bt) {
            const size_t b = bt / units;
            const int t = int(bt % units);
            T* yr = Y + bt * ch;
            for (int c = 0; c < ch; ++c) {
                const T* w = Wt + size_t(c / per) * k;
                T s = 0;
                for (int j = 0; j < k; ++j) {
                    int src = t + j - padL;
                    if (src < 0 || src >= units) continue;
                    s += w[j] * X[(b * units + src) * ch + c];
                }
                yr[c] = s;
            }
        });
    }
    void lightConvBackward(int batch, int units, int ch, int heads, int k, int padL, bool sm,
                           BufRef x, BufRef weight, BufRef wsm, BufRef dy, BufRef dx,
                           BufRef dw) {
        checkLightConvShape("lightConvBackward", ch, heads, k);
        const size_t n = size_t(batch) * units * ch;
        check(x, n, "lightConvBackward x");
        check(dy, n, "lightConvBackward dy");
        if (!dx.empty()) check(dx, n, "lightConvBackward dx");
        check(dw, size_t(heads) * k, "lightConvBackward dw");
        check(weight, size_t(heads) * k, "lightConvBackward weight");
        check(wsm, size_t(heads) * k, "lightConvBackward wsm");
        const T* X = ptr(x);
        const T* DY = ptr(dy);
        const T* Wt = ptr(wsm);
        const int per = ch / heads;
        if (!dx.empty()) {
            T* DX = ptr(dx);
            rowsParallel(size_t(batch) * units, size_t(ch) * k, [&](size_t bt) {
                const size_t b = bt / units;
                const int s = int(bt % units);
                for (int c = 0; c < ch; ++c) {
                    const T* w = Wt + size_t(c / per) * k;
                    T acc = 0;
                    for (int j = 0; j < k; ++j) {
                        int t = s - j + padL;  // output that read x[s] through tap j
                        if (t < 0 || t >= units) continue;
                        acc += w[j] * DY[(b * units + t) * ch + c];
                    }
                    DX[bt * ch + c] = acc;
                }
            });
        }
        // Gradient w.r.t. the effective taps, then through the optional softmax.
        std::vector<T> gw(size_t(heads) * k, T(0));
        for (size_t b = 0; b < size_t(batch); ++b)
            for (int t = 0; t < units; ++t)
                for (int c = 0; c < ch; ++c) {
                    const T d = DY[(b * units + t) * ch + c];
                    T* g = gw.data() + size_t(c / per) * k;
                    for (int j = 0; j < k; ++j) {
                        int src = t + j - padL;
                        if (src < 0 || src >= units) continue;
                        g[j] += d * X[(b * units + src) * ch + c];
                    }
                }
        T* DW = ptr(dw);
        for (int h = 0; h < heads; ++h) {
            const T* g = gw.data() + size_t(h) * k;
            const T* p = Wt + size_t(h) * k;
            if (sm) {
                T dot = 0;
                for (int j = 0; j < k; ++j) dot += g[j] * p[j];
                for (int j = 0; j < k; ++j) DW[size_t(h) * k + j] += p[j] * (g[j] - dot);
            } else {
                for (int j = 0; j < k; ++j) DW[size_t(h) * k + j] += g[j];
            }
        }
    }
};

CpuBackend::CpuBackend(Precision precision, int threads)
    : precision_(precision), pool_(std::make_unique<ThreadPool>(threads)) {}

CpuBackend::~CpuBackend() = default;

namespace {
// 0 when unknown (then nothing is checked against it).
uint64_t physicalMemoryBytes() {
    static const uint64_t bytes = [] {
        const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
        return pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : uint64_t(0);
    }();
    return bytes;
}
}  // namespace

DeviceInfo CpuBackend::info() const {
    DeviceInfo d;
    d.id = "cpu";
    d.name = "CPU (native)";
    d.vendor = "nnwb";
    d.platform = "native";
    d.version = precision_ == Precision::Double ? "native C++ (float64)" : "native C++ (float32)";
    d.type = "CPU";
    d.computeUnits = pool_->size();
    // The sane limit of a host backend: the machine's physical memory.
    d.globalMemory = physicalMemoryBytes();
    d.maxAlloc = d.globalMemory;
    return d;
}

Buffer CpuBackend::alloc(size_t count) {
    const size_t valueBytes = precision_ == Precision::Double ? sizeof(double) : sizeof(float);
    const uint64_t limit = physicalMemoryBytes();
    if (limit > 0 && count > limit / valueBytes)
        throw ComputeError("alloc of " + std::to_string(count) + " values (" +
                           std::to_string(uint64_t(count) * valueBytes) +
                           " bytes) exceeds the physical memory of " + std::to_string(limit) +
                           " bytes");
    void* h = nullptr;
    try {
        if (precision_ == Precision::Double)
            h = new Storage<double>{std::vector<double>(count, 0.0)};
        else
            h = new Storage<float>{std::vector<float>(count, 0.0f)};
    } catch (const std::bad_alloc&) {
        throw ComputeError("alloc of " + std::to_string(count) + " values (" +
                           std::to_string(uint64_t(count) * valueBytes) +
                           " bytes) failed: out of host memory");
    }
    return Buffer(this, h, count);
}

void CpuBackend::release(void* handle) noexcept {
    if (precision_ == Precision::Double)
        delete static_cast<Storage<double>*>(handle);
    else
        delete static_cast<Storage<float>*>(handle);
}

#define NNWB_DISPATCH(call)                                  \
    do {                                                     \
        if (precision_ == Precision::Double) {               \
            CpuOps<double> ops{*this};                       \
            ops.call;                                        \
        } else {                                             \
            CpuOps<float> ops{*this};                        \
            ops.call;                                        \
        }                                                    \
    } while (0)

namespace {
template <typename T, typename S>
void transfer(BufRef r, const S* src, S* dst, size_t n, const char* what) {
    CpuOps<T>::check(r, n, what);
    T* p = CpuOps<T>::ptr(r);
    if (src)
        for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(src[i]);
    else
        for (size_t i = 0; i < n; ++i) dst[i] = static_cast<S>(p[i]);
}
}  // namespace

void CpuBackend::upload(BufRef dst, const float* src, size_t n) {
    if (precision_ == Precision::Double)
        transfer<double, float>(dst, src, nullptr, n, "upload");
    else
        transfer<float, float>(dst, src, nullptr, n, "upload");
}
void CpuBackend::download(BufRef src, float* dst, size_t n) {
    if (precision_ == Precision::Double)
        transfer<double, float>(src, nullptr, dst, n, "download");
    else
        transfer<float, float>(src, nullptr, dst, n, "download");
}
void CpuBackend::uploadF64(BufRef dst, const double* src, size_t n) {
    if (precision_ == Precision::Double)
        transfer<double, double>(dst, src, nullptr, n, "upload");
    else
        transfer<float, double>(dst, src, nullptr, n, "upload");
}
void CpuBackend::downloadF64(BufRef src, double* dst, size_t n) {
    if (precision_ == Precision::Double)
        transfer<double, double>(src, nullptr, dst, n, "download");
    else
        transfer<float, double>(src, nullptr, dst, n, "download");
}

void CpuBackend::fill(BufRef x, size_t n, float v) { NNWB_DISPATCH(fill(x, n, v)); }
void CpuBackend::copy(BufRef s, BufRef d, size_t n) { NNWB_DISPATCH(copy(s, d, n)); }
void CpuBackend::copy2d(BufRef s, int sld, BufRef d, int dld, int rows, int cols) {
    NNWB_DISPATCH(copy2d(s, sld, d, dld, rows, cols));
}
void CpuBackend::axpy(size_t n, float a, BufRef x, BufRef y) { NNWB_DISPATCH(axpy(n, a, x, y)); }
void CpuBackend::add(size_t n, BufRef a, BufRef b, BufRef o) { NNWB_DISPATCH(add(n, a, b, o)); }
void CpuBackend::gemm(const GemmArgs& g) { NNWB_DISPATCH(gemm(g)); }
void CpuBackend::biasActivation(int rows, int cols, BufRef x, BufRef bias, BufRef z, BufRef y,
                                Activation act) {
    NNWB_DISPATCH(biasActivation(rows, cols, x, bias, z, y, act));
}
void CpuBackend::activationBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy, BufRef dz,
                                    Activation act) {
    NNWB_DISPATCH(activationBackward(rows, cols, z, y, dy, dz, act));
}
void CpuBackend::biasGradient(int rows, int cols, BufRef dz, BufRef db) {
    NNWB_DISPATCH(biasGradient(rows, cols, dz, db));
}
void CpuBackend::softmaxForward(const SoftmaxArgs& s, BufRef x, BufRef y) {
    NNWB_DISPATCH(softmaxForward(s, x, y));
}
void CpuBackend::softmaxBackward(const SoftmaxArgs& s, BufRef y, BufRef dy, BufRef dx) {
    NNWB_DISPATCH(softmaxBackward(s, y, dy, dx));
}
void CpuBackend::normForward(int rows, int cols, float eps, BufRef x, BufRef y, BufRef rstd) {
    NNWB_DISPATCH(normForward(rows, cols, eps, x, y, rstd));
}
void CpuBackend::normBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy, BufRef dx) {
    NNWB_DISPATCH(normBackward(rows, cols, y, rstd, dy, dx));
}
void CpuBackend::unfold(int batch, int len, int window, int step, int positions, BufRef x,
                        BufRef cols) {
    NNWB_DISPATCH(unfold(batch, len, window, step, positions, x, cols));
}
void CpuBackend::fold(int batch, int len, int window, int step, int positions, BufRef dcols,
                      BufRef dx) {
    NNWB_DISPATCH(fold(batch, len, window, step, positions, dcols, dx));
}
void CpuBackend::mseLoss(int rows, int cols, BufRef y, BufRef t, BufRef dy, BufRef loss,
                         float gs) {
    NNWB_DISPATCH(mseLoss(rows, cols, y, t, dy, loss, gs));
}
void CpuBackend::softmaxCrossEntropy(int rows, int cols, BufRef logits, BufRef t, BufRef prob,
                                     BufRef dy, BufRef loss, float gs) {
    NNWB_DISPATCH(softmaxCrossEntropy(rows, cols, logits, t, prob, dy, loss, gs));
}
void CpuBackend::sgdStep(size_t n, BufRef w, BufRef g, BufRef vel, float lr, float mom,
                         float wd, BufRef skip) {
    NNWB_DISPATCH(sgdStep(n, w, g, vel, lr, mom, wd, skip));
}
void CpuBackend::adamStep(size_t n, BufRef w, BufRef g, BufRef m, BufRef v, float lr, float b1,
                          float b2, float eps, float wd, float bc1, float bc2, BufRef skip) {
    NNWB_DISPATCH(adamStep(n, w, g, m, v, lr, b1, b2, eps, wd, bc1, bc2, skip));
}
void CpuBackend::clipByGlobalNorm(size_t n, BufRef g, float maxNorm, BufRef norm) {
    NNWB_DISPATCH(clipByGlobalNorm(n, g, maxNorm, norm));
}
void CpuBackend::scaleRows(int rows, int cols, BufRef scale, BufRef x) {
    NNWB_DISPATCH(scaleRows(rows, cols, scale, x));
}
void CpuBackend::dropoutForward(size_t n, float rate, uint64_t key, BufRef x, BufRef mask,
                                BufRef y) {
    NNWB_DISPATCH(dropoutForward(n, rate, key, x, mask, y));
}
void CpuBackend::dropoutBackward(size_t n, BufRef mask, BufRef dy, BufRef dx) {
    NNWB_DISPATCH(dropoutBackward(n, mask, dy, dx));
}
void CpuBackend::recordOutcomes(int rows, int cols, BufRef pred, BufRef target, BufRef loss,
                                BufRef log, BufRef flag, float batchIndex) {
    NNWB_DISPATCH(recordOutcomes(rows, cols, pred, target, loss, log, flag, batchIndex));
}
void CpuBackend::lightConvForward(int batch, int units, int ch, int heads, int k, int padL,
                                  bool sm, BufRef x, BufRef weight, BufRef wsm, BufRef y) {
    NNWB_DISPATCH(lightConvForward(batch, units, ch, heads, k, padL, sm, x, weight, wsm, y));
}
void CpuBackend::lightConvBackward(int batch, int units, int ch, int heads, int k, int padL,
                                   bool sm, BufRef x, BufRef weight, BufRef wsm, BufRef dy,
                                   BufRef dx, BufRef dw) {
    NNWB_DISPATCH(
        lightConvBackward(batch, units, ch, heads, k, padL, sm, x, weight, wsm, dy, dx, dw));
}

#undef NNWB_DISPATCH

}  // namespace nnwb
