#include "compute/CpuBackend.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <type_traits>
#include <utility>
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

    void run(const FillArgs& args) {
        const auto x = args.x;
        const auto n = args.n;
        const auto v = args.value;
        std::fill_n(ptr(x), n, static_cast<T>(v));
    }
    void run(const CopyArgs& args) {
        const auto s = args.src;
        const auto d = args.dst;
        const auto n = args.n;
        std::memmove(ptr(d), ptr(s), n * sizeof(T));
    }
    void run(const Copy2dArgs& args) {
        const auto s = args.src;
        const auto sld = args.srcLd;
        const auto d = args.dst;
        const auto dld = args.dstLd;
        const auto rows = args.rows;
        const auto cols = args.cols;
        if (rows <= 0 || cols <= 0) return;
        const T* a = ptr(s);
        T* b = ptr(d);
        for (int r = 0; r < rows; ++r)
            std::memmove(b + size_t(r) * dld, a + size_t(r) * sld, size_t(cols) * sizeof(T));
    }
    void run(const AxpyArgs& args) {
        const auto n = args.n;
        const auto alpha = args.alpha;
        const auto x = args.x;
        const auto y = args.y;
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
    void run(const AddArgs& args) {
        const auto n = args.n;
        const auto x = args.a;
        const auto y = args.b;
        const auto out = args.out;
        const T* a = ptr(x);
        const T* b = ptr(y);
        T* o = ptr(out);
        elemParallel(n, [&](size_t i) { o[i] = a[i] + b[i]; });
    }

    void run(const GemmArgs& g) {
        const int M = g.m, N = g.n, K = g.k;
        if (M <= 0 || N <= 0 || g.batch0 <= 0 || g.batch1 <= 0) return;
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

    void run(const BiasActivationArgs& args) {
        const auto rows = args.rows;
        const auto cols = args.cols;
        const auto x = args.x;
        const auto bias = args.bias;
        const auto z = args.z;
        const auto y = args.y;
        const auto a = args.act;
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
    void run(const ActivationBackwardArgs& args) {
        const auto rows = args.rows;
        const auto cols = args.cols;
        const auto z = args.z;
        const auto y = args.y;
        const auto dy = args.dy;
        const auto dz = args.dz;
        const auto a = args.act;
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
    void run(const BiasGradientArgs& args) {
        const auto rows = args.rows;
        const auto cols = args.cols;
        const auto dz = args.dz;
        const auto db = args.db;
        const T* D = ptr(dz);
        T* G = ptr(db);
        for (int r = 0; r < rows; ++r)
            for (int j = 0; j < cols; ++j) G[j] += D[size_t(r) * cols + j];
    }

    void run(const SoftmaxForwardArgs& args) {
        const auto s = args.s;
        const auto x = args.x;
        const auto y = args.y;
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
    void run(const SoftmaxBackwardArgs& args) {
        const auto s = args.s;
        const auto y = args.y;
        const auto dy = args.dy;
        const auto dx = args.dx;
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

    void run(const NormForwardArgs& args) {
        const auto rows = args.rows;
        const auto cols = args.cols;
        const auto eps = args.eps;
        const auto x = args.x;
        const auto y = args.y;
        const auto rstd = args.rstd;
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
    void run(const NormBackwardArgs& args) {
        const auto rows = args.rows;
        const auto cols = args.cols;
        const auto y = args.y;
        const auto rstd = args.rstd;
        const auto dy = args.dy;
        const auto dx = args.dx;
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

    void run(const UnfoldArgs& args) {
        const auto batch = args.batch;
        const auto len = args.len;
        const auto window = args.window;
        const auto step = args.step;
        const auto positions = args.positions;
        const auto x = args.x;
        const auto cols = args.cols;
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
    void run(const FoldArgs& args) {
        const auto batch = args.batch;
        const auto len = args.len;
        const auto window = args.window;
        const auto step = args.step;
        const auto positions = args.positions;
        const auto dcols = args.dcols;
        const auto dx = args.dx;
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

    void run(const MseLossArgs& args) {
        const auto rows = args.rows;
        const auto cols = args.cols;
        const auto y = args.y;
        const auto t = args.target;
        const auto dy = args.dy;
        const auto loss = args.loss;
        const auto gs = args.gradScale;
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
    void run(const SoftmaxCrossEntropyArgs& args) {
        const auto rows = args.rows;
        const auto cols = args.cols;
        const auto logits = args.logits;
        const auto t = args.target;
        const auto prob = args.prob;
        const auto dy = args.dy;
        const auto loss = args.loss;
        const auto gs = args.gradScale;
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
        return ptr(skip)[0] >= T(0);
    }
    void run(const SgdStepArgs& args) {
        const auto n = args.n;
        const auto w = args.w;
        const auto g = args.g;
        const auto vel = args.velocity;
        const auto lr = args.lr;
        const auto mom = args.momentum;
        const auto wd = args.weightDecay;
        const auto skip = args.skip;
        if (skipped(skip)) return;
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
    void run(const AdamStepArgs& args) {
        const auto n = args.n;
        const auto w = args.w;
        const auto g = args.g;
        const auto m = args.m;
        const auto v = args.v;
        const auto lr = args.lr;
        const auto b1 = args.beta1;
        const auto b2 = args.beta2;
        const auto eps = args.eps;
        const auto wd = args.weightDecay;
        const auto bc1 = args.bc1;
        const auto bc2 = args.bc2;
        const auto skip = args.skip;
        if (skipped(skip)) return;
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

    void run(const ClipByGlobalNormArgs& a) {
        T* G = ptr(a.g);
        double sum = 0.0;  // in double: the reference for every device's float reduction
        for (size_t i = 0; i < a.n; ++i) sum += double(G[i]) * double(G[i]);
        const T nrm = T(std::sqrt(sum));
        ptr(a.norm)[0] = nrm;
        if (a.maxNorm > 0 && std::isfinite(nrm) && nrm > T(a.maxNorm)) {
            const T f = T(a.maxNorm) / nrm;
            for (size_t i = 0; i < a.n; ++i) G[i] *= f;
        }
    }
    void run(const ScaleRowsArgs& a) {
        const size_t r = elems(a.rows), c = elems(a.cols);
        const T* S = ptr(a.scale);
        T* X = ptr(a.x);
        for (size_t i = 0; i < r; ++i)
            for (size_t k = 0; k < c; ++k) X[i * c + k] *= S[i];
    }

    void run(const DropoutForwardArgs& a) {
        const uint32_t threshold = dropoutThreshold(a.rate);
        const T scale = T(dropoutScale(a.rate));
        const T* X = ptr(a.x);
        T* M = ptr(a.mask);
        T* Y = ptr(a.y);
        const uint64_t key = a.key;
        elemParallel(a.n, [&](size_t i) {
            const T m = dropoutBits(key, i) >= threshold ? scale : T(0);
            M[i] = m;
            Y[i] = X[i] * m;
        });
    }
    void run(const DropoutBackwardArgs& a) {
        const T* M = ptr(a.mask);
        const T* D = ptr(a.dy);
        T* O = ptr(a.dx);
        elemParallel(a.n, [&](size_t i) { O[i] = D[i] * M[i]; });
    }

    void run(const RecordOutcomesArgs& args) {
        const auto rows = args.rows;
        const auto cols = args.cols;
        const auto pred = args.pred;
        const auto target = args.target;
        const auto loss = args.loss;
        const auto log = args.log;
        const auto flag = args.flag;
        const auto batchIndex = args.batchIndex;
        const size_t r = size_t(std::max(rows, 0)), c = size_t(std::max(cols, 0));
        const T* P = ptr(pred);
        const T* Tg = ptr(target);
        const T* L = ptr(loss);
        const T* Wc = ptr(args.codeWeights);  // null when empty
        T* out = ptr(log);
        bool finite = true;
        for (size_t i = 0; i < r; ++i) {
            const T* p = P + i * c;
            size_t best = 0;
            for (size_t k = 1; k < c; ++k)
                if (p[k] > p[best]) best = k;
            T code = T(best);
            if (Wc)
                for (size_t k = 0; k < c; ++k)
                    if (Tg[i * c + k] > T(0.5)) code += Wc[k];
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
    void run(const LightConvForwardArgs& args) {
        const auto batch = args.batch;
        const auto units = args.units;
        const auto ch = args.channels;
        const auto heads = args.heads;
        const auto k = args.k;
        const auto padL = args.padL;
        const auto sm = args.softmaxTaps;
        const auto x = args.x;
        const auto weight = args.weight;
        const auto wsm = args.wsm;
        const auto y = args.y;
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
    void run(const LightConvBackwardArgs& args) {
        const auto batch = args.batch;
        const auto units = args.units;
        const auto ch = args.channels;
        const auto heads = args.heads;
        const auto k = args.k;
        const auto padL = args.padL;
        const auto sm = args.softmaxTaps;
        const auto x = args.x;
        const auto wsm = args.wsm;
        const auto dy = args.dy;
        const auto dx = args.dx;
        const auto dw = args.dw;
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

namespace {
template <typename T, typename S>
void transfer(const Backend* be, BufRef r, const S* src, S* dst, size_t n, const char* what) {
    OpCheck(be, what).buf(r, n, "buffer");
    if (n == 0) return;
    T* p = CpuOps<T>::ptr(r);
    if (src)
        for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(src[i]);
    else
        for (size_t i = 0; i < n; ++i) dst[i] = static_cast<S>(p[i]);
}

// Whether CpuOps implements the op of argument struct A (else Backend's default runs).
template <typename A, typename = void>
struct CpuHas : std::false_type {};
template <typename A>
struct CpuHas<A, std::void_t<decltype(std::declval<CpuOps<float>&>().run(
                     std::declval<const A&>()))>> : std::true_type {};

// Runs an op in the storage precision, or `fallback` (Backend's default) when CpuOps has no
// run for it.
template <typename A, typename F>
void runOp(CpuBackend& be, bool dbl, const A& args, F&& fallback) {
    if constexpr (CpuHas<A>::value) {
        if (dbl)
            CpuOps<double>{be}.run(args);
        else
            CpuOps<float>{be}.run(args);
    } else {
        fallback();
    }
}
}  // namespace

void CpuBackend::upload(BufRef dst, const float* src, size_t n) {
    if (precision_ == Precision::Double)
        transfer<double, float>(this, dst, src, nullptr, n, "upload");
    else
        transfer<float, float>(this, dst, src, nullptr, n, "upload");
}
void CpuBackend::download(BufRef src, float* dst, size_t n) {
    if (precision_ == Precision::Double)
        transfer<double, float>(this, src, nullptr, dst, n, "download");
    else
        transfer<float, float>(this, src, nullptr, dst, n, "download");
}
void CpuBackend::uploadF64(BufRef dst, const double* src, size_t n) {
    if (precision_ == Precision::Double)
        transfer<double, double>(this, dst, src, nullptr, n, "upload");
    else
        transfer<float, double>(this, dst, src, nullptr, n, "upload");
}
void CpuBackend::downloadF64(BufRef src, double* dst, size_t n) {
    if (precision_ == Precision::Double)
        transfer<double, double>(this, src, nullptr, dst, n, "download");
    else
        transfer<float, double>(this, src, nullptr, dst, n, "download");
}

// Every op: CpuOps<T>::run in the storage precision, or Backend's default where CpuOps has
// no run for it (the composite ops).
#define NNWB_CPU_OP(Name, name)                                                         \
    void CpuBackend::name##Impl(const Name##Args& args) {                               \
        runOp(*this, precision_ == Precision::Double, args, [&] { Backend::name##Impl(args); }); \
    }
NNWB_OPS(NNWB_CPU_OP)
#undef NNWB_CPU_OP

}  // namespace nnwb
