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
#include "compute/CpuMemory.h"
#include "compute/CpuVecMath.h"
#include "compute/DropoutMask.h"
#include "compute/ThreadPool.h"

namespace nnwb {

namespace {

constexpr size_t kGrain = 1 << 14;             // elements per parallel chunk for element-wise work
constexpr size_t kGemmParallelWork = 1 << 17;  // multiply-adds below which gemm stays serial
constexpr int kLongK = 1024;     // A^T B of at least this depth: a weight gradient's tiling
constexpr int kLongKRows = 384;  // its row tiles' most rows (packed A^T: 384 KiB a k block)

}  // namespace

// All ops, written once for float and double storage.
template <typename T>
struct CpuOps {
    CpuBackend& be;

    static T* ptr(BufRef r) {
        if (r.empty()) return nullptr;
        return static_cast<T*>(r.buf->handle()) + r.offset;
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
        T* X = ptr(args.x);
        const T v = static_cast<T>(args.value);
        // A population's gradient arena is megabytes: both cores write it.
        be.pool_->parallelFor(args.n, kGrain * 4,
                              [=](size_t b, size_t e) { std::fill(X + b, X + e, v); });
    }
    void run(const CopyArgs& args) {
        std::memmove(ptr(args.dst), ptr(args.src), args.n * sizeof(T));
    }
    void run(const Copy2dArgs& args) {
        if (args.rows <= 0 || args.cols <= 0) return;
        const T* a = ptr(args.src);
        T* b = ptr(args.dst);
        for (int r = 0; r < args.rows; ++r)
            std::memmove(b + size_t(r) * args.dstLd, a + size_t(r) * args.srcLd,
                         size_t(args.cols) * sizeof(T));
    }
    void run(const AxpyArgs& args) {
        const T* a = ptr(args.x);
        T* b = ptr(args.y);
        const T al = args.alpha;
        be.pool_->parallelFor(args.n, kGrain, [=](size_t s, size_t e) {
            const T* __restrict xv = a;
            T* __restrict yv = b;
            if (xv == yv)
                for (size_t i = s; i < e; ++i) yv[i] += al * yv[i];
            else
                for (size_t i = s; i < e; ++i) yv[i] += al * xv[i];
        });
    }
    void run(const AddArgs& args) {
        const T* a = ptr(args.a);
        const T* b = ptr(args.b);
        T* o = ptr(args.out);
        elemParallel(args.n, [&](size_t i) { o[i] = a[i] + b[i]; });
    }

    void run(const GemmArgs& g) { gemm(g, nullptr, 0); }
    // The product; with `rowSums` (transA only) also rowSums + b0 * rowSumsStride += the row
    // sums of product b0's op(A), added inside the product's packing of A (cpugemm rowSums).
    void gemm(const GemmArgs& g, T* rowSums, size_t rowSumsStride) {
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
        // One product with B^T over several row tiles (a projection's x W^T): B transposed
        // once here rather than packed again for every row tile. Only values move, so the
        // result is the same bits.
        static thread_local std::vector<T> bt;
        const size_t batches = size_t(g.batch0) * g.batch1;
        if (g.transB && K > 0 && batches == 1 && M > cpugemm::kTileRows) {
            bt.resize(size_t(K) * N);
            for (int j = 0; j < N; ++j) {
                const T* src = B + size_t(j) * g.ldb;
                for (int k = 0; k < K; ++k) bt[size_t(k) * N + j] = src[k];
            }
            B = bt.data();
            p.transB = false;
            p.ldb = N;
        }
        // Tiles: (product, row block, column block). Each C element belongs to one tile and its
        // value does not depend on the split, so any thread count gives the same result.
        int tileRows = cpugemm::kTileRows;
        const int threads = be.pool_->size();
        int colTiles = (N + cpugemm::kTileCols - 1) / cpugemm::kTileCols, tileCols = 0;
        if (g.transA && K >= kLongK && batches == 1 && M >= 32 && N >= 32) {
            // A weight gradient (A^T B, K = batch rows): one column tile and one row tile per
            // thread (at most kLongKRows rows), so that each k step reads a long contiguous
            // stretch of A's row (dz, 768 floats for a QKV projection) instead of 96 values
            // of it, 3 KiB apart, which the prefetchers did not keep up with.
            colTiles = 1;
            tileRows = std::min(kLongKRows, ((M + threads - 1) / threads + 11) / 12 * 12);
        } else if (batches == 1 && colTiles == 1 && threads > 1) {
            // One product of a few row tiles that the threads cannot share evenly (3 tiles of
            // 96 rows on 2 threads left one thread idle for a third of it): one taller tile per
            // thread, in multiples of 12 rows (the AVX-512 micro-tile).
            const int tiles = (M + tileRows - 1) / tileRows;
            if (tiles > 1 && tiles < 2 * threads && tiles % threads != 0)
                tileRows = ((M + threads - 1) / threads + 11) / 12 * 12;
        }
        tileCols = colTiles == 1 ? N : cpugemm::kTileCols;
        const int rowTiles = (M + tileRows - 1) / tileRows;
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
                q.rowSums = rowSums ? rowSums + i0 * rowSumsStride : nullptr;
                const int rt = int(t / colTiles), ct = int(t % colTiles);
                const int r0 = rt * tileRows, c0 = ct * tileCols;
                cpugemm::tile(q, r0, std::min(M, r0 + tileRows), c0, std::min(N, c0 + tileCols));
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

    // dz = dy * f'(z) first unless dy is empty (activationBackward), then db += the column sums
    // of dz and dW += dz^T x in one pass: the sums are added while the product packs dz^T (each
    // column's rows in order from db's value, as biasGradient adds them: the same bits), so dz
    // is read once instead of once more by a bias-gradient pass of its own.
    void run(const ProjectionGradientArgs& a) {
        const int models = a.gemm.batch0, rows = a.gemm.k * models, cols = a.gemm.m;
        if (!a.dy.empty()) run(ActivationBackwardArgs{rows, cols, a.z, a.y, a.dy, a.gemm.a, a.act});
        const size_t stride = models > 1 ? a.dbStride : 0;
        if (a.gemm.k > 0 && a.gemm.n > 0) return gemm(a.gemm, ptr(a.db), stride);
        run(BiasGradientArgs{rows, cols, a.gemm.a, a.db, models, a.dbStride});  // no product
        run(a.gemm);
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
            case Activation::None:
                f(ActTag<Activation::None>());
                break;
            case Activation::Tanh:
                f(ActTag<Activation::Tanh>());
                break;
            case Activation::Sigmoid:
                f(ActTag<Activation::Sigmoid>());
                break;
            case Activation::Relu:
                f(ActTag<Activation::Relu>());
                break;
            case Activation::LeakyRelu:
                f(ActTag<Activation::LeakyRelu>());
                break;
            case Activation::Swish:
                f(ActTag<Activation::Swish>());
                break;
            case Activation::Softmax:
                f(ActTag<Activation::Softmax>());
                break;
        }
    }
    // Float rows run the vectorized exp and 16-lane sums (compute/CpuVecMath); double rows
    // (the gradient checks' precision) keep std::exp and the sequential sum.
    static void softmaxRow(const T* x, T* y, int n, T scale) {
        if constexpr (std::is_same_v<T, float>) {
            cpumath::softmaxRow(x, y, n, scale);
            return;
        }
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

    // dx = scale * y * (dy - sum(dy * y)) over one row (dx may alias dy).
    static void softmaxBackwardRow(const T* y, const T* dy, T* dx, int n, T scale) {
        if constexpr (std::is_same_v<T, float>) {
            cpumath::softmaxBackwardRow(y, dy, dx, n, scale);
            return;
        }
        T dot = 0;
        for (int j = 0; j < n; ++j) dot += dy[j] * y[j];
        for (int j = 0; j < n; ++j) dx[j] = scale * y[j] * (dy[j] - dot);
    }

    void run(const BiasActivationArgs& args) {
        const T* X = ptr(args.x);
        const T* Bv = args.bias.empty() ? nullptr : ptr(args.bias);
        T* Z = ptr(args.z);
        T* Y = ptr(args.y);
        const size_t perModel = size_t(args.rows) / size_t(args.models);  // rows of one model
        withActivation(args.act, [&](auto tag) {
            constexpr Activation A = decltype(tag)::value;
            rowBlocks(size_t(args.rows), size_t(args.cols), [&](size_t rb, size_t re) {
                for (size_t r = rb; r < re; ++r) {
                    const T* xr = X + r * args.cols;
                    T* zr = Z + r * args.cols;
                    const T* br = Bv ? Bv + (r / perModel) * args.biasStride : nullptr;
                    if (br)
                        for (int j = 0; j < args.cols; ++j) zr[j] = xr[j] + br[j];
                    else if (zr != xr)
                        std::copy_n(xr, args.cols, zr);
                }
                if constexpr (A == Activation::Softmax) {
                    for (size_t r = rb; r < re; ++r)
                        softmaxRow(Z + r * args.cols, Y + r * args.cols, args.cols, T(1));
                } else {
                    const size_t count = (re - rb) * size_t(args.cols);
                    if (Y == Z) {
                        T* __restrict ys = Y + rb * args.cols;
                        for (size_t i = 0; i < count; ++i) ys[i] = act<A>(ys[i]);
                    } else {
                        const T* __restrict zs = Z + rb * args.cols;
                        T* __restrict ys = Y + rb * args.cols;
                        for (size_t i = 0; i < count; ++i) ys[i] = act<A>(zs[i]);
                    }
                }
            });
        });
    }
    void run(const ActivationBackwardArgs& args) {
        const T* Z = ptr(args.z);
        const T* Y = ptr(args.y);
        const T* DY = ptr(args.dy);
        T* DZ = ptr(args.dz);
        withActivation(args.act, [&](auto tag) {
            constexpr Activation A = decltype(tag)::value;
            rowBlocks(size_t(args.rows), size_t(args.cols), [&](size_t rb, size_t re) {
                if constexpr (A == Activation::Softmax) {
                    for (size_t r = rb; r < re; ++r) {
                        const size_t o = r * args.cols;
                        T dot = 0;
                        for (int j = 0; j < args.cols; ++j) dot += DY[o + j] * Y[o + j];
                        for (int j = 0; j < args.cols; ++j)
                            DZ[o + j] = Y[o + j] * (DY[o + j] - dot);
                    }
                } else {
                    // dz may alias dy: separate loops so each vectorizes without overlap checks.
                    const T* __restrict zz = Z;
                    const T* __restrict yy = Y;
                    if (DZ == DY) {
                        T* __restrict d = DZ;
                        for (size_t i = rb * args.cols, e = re * args.cols; i < e; ++i)
                            d[i] = d[i] * actGrad<A>(zz[i], yy[i]);
                    } else {
                        T* __restrict d = DZ;
                        const T* __restrict g = DY;
                        for (size_t i = rb * args.cols, e = re * args.cols; i < e; ++i)
                            d[i] = g[i] * actGrad<A>(zz[i], yy[i]);
                    }
                }
            });
        });
    }
    void run(const BiasGradientArgs& args) {
        const T* D = ptr(args.dz);
        const int perModel = args.rows / args.models;  // rows of one model
        // Items of (model, block of 64 columns); each column adds its rows in order, so any
        // split gives the same bits. Small ones stay on the calling thread.
        const int colBlocks = (args.cols + 63) / 64;
        const size_t items = size_t(args.models) * colBlocks;
        const size_t grain = size_t(args.rows) * args.cols < kGrain ? items : 1;
        be.pool_->parallelFor(items, grain, [&](size_t b, size_t e) {
            for (size_t w = b; w < e; ++w) {
                const int m = int(w / colBlocks), j0 = int(w % colBlocks) * 64;
                const int j1 = std::min(args.cols, j0 + 64);
                T* G = ptr(args.db) + size_t(m) * args.dbStride;
                for (int r = m * perModel; r < (m + 1) * perModel; ++r) {
                    const T* d = D + size_t(r) * args.cols;
                    for (int j = j0; j < j1; ++j) G[j] += d[j];
                }
            }
        });
    }

    void run(const SoftmaxForwardArgs& args) {
        if (args.s.causal && args.s.queries <= 0)
            throw ComputeError("softmax: causal mask needs queries > 0 (got " +
                               std::to_string(args.s.queries) + ")");
        const T* X = ptr(args.x);
        T* Y = ptr(args.y);
        const T scale = args.s.scale;
        rowsParallel(size_t(args.s.rows), size_t(args.s.cols), [&](size_t r) {
            const T* xr = X + r * args.s.cols;
            T* yr = Y + r * args.s.cols;
            int valid = args.s.cols;
            if (args.s.causal) valid = std::min(args.s.cols, int(r % size_t(args.s.queries)) + 1);
            softmaxRow(xr, yr, valid, scale);
            for (int j = valid; j < args.s.cols; ++j) yr[j] = T(0);
        });
    }
    void run(const SoftmaxBackwardArgs& args) {
        const T* Y = ptr(args.y);
        const T* DY = ptr(args.dy);
        T* DX = ptr(args.dx);
        const T scale = args.s.scale;
        rowsParallel(size_t(args.s.rows), size_t(args.s.cols), [&](size_t r) {
            const size_t o = r * args.s.cols;
            softmaxBackwardRow(Y + o, DY + o, DX + o, args.s.cols, scale);
        });
    }

    // The attention core, one (sample, head) per task: its products through the register-blocked
    // kernel (compute/CpuGemm) and the softmax rows in between, while the head's Q, K, V and
    // scores are in cache. Any thread count gives the same result.
    template <typename F>
    void perHeadParallel(const AttentionShape& s, size_t workPerHead, F&& f) {
        const size_t items = size_t(s.batch) * s.heads;
        // Threads only pay off above a few hundred thousand multiply-adds (as for gemm).
        const size_t grain =
            std::max<size_t>(1, kGemmParallelWork / std::max<size_t>(1, workPerHead));
        be.pool_->parallelFor(items, grain, [&](size_t b, size_t e) {
            std::vector<T> tmp;
            for (size_t g = b; g < e; ++g) f(int(g / s.heads), int(g % s.heads), tmp);
        });
    }
    // c = op(a) op(b) of one head (m x n, depth k), tile by tile.
    static void headProduct(bool ta, bool tb, int m, int n, int k, const T* a, int lda, const T* b,
                            int ldb, T* c, int ldc) {
        const cpugemm::Product<T> p =
            cpugemm::rowMajorProduct(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
        for (int i0 = 0; i0 < m; i0 += cpugemm::kTileRows)
            for (int j0 = 0; j0 < n; j0 += cpugemm::kTileCols)
                cpugemm::tile(p, i0, std::min(m, i0 + cpugemm::kTileRows), j0,
                              std::min(n, j0 + cpugemm::kTileCols));
    }
    struct HeadPtrs {
        size_t qkv, ctx, p;  // offsets of the head's Q column, C column and P block
        int k, v;            // offsets of K and V from Q
    };
    static HeadPtrs headOf(const AttentionShape& s, int b, int h) {
        const int hd = s.heads * s.keySize;
        const size_t rows = size_t(b) * s.units;
        return {rows * s.ldQkv + size_t(h) * s.keySize, rows * s.ldCtx + size_t(h) * s.valueSize,
                (size_t(b) * s.heads + h) * s.units * s.units, hd,
                2 * hd + h * (s.valueSize - s.keySize)};
    }
    void run(const AttentionForwardArgs& args) {
        const AttentionShape& s = args.s;
        const int u = s.units, d = s.keySize, dv = s.valueSize;
        const T* QKV = ptr(args.qkv);
        T* Pall = ptr(args.p);
        T* Call = ptr(args.ctx);
        perHeadParallel(s, size_t(u) * u * size_t(d + dv), [&](int b, int h, std::vector<T>&) {
            const HeadPtrs o = headOf(s, b, h);
            const T* Q = QKV + o.qkv;
            T* P = Pall + o.p;
            headProduct(false, true, u, u, d, Q, s.ldQkv, Q + o.k, s.ldQkv, P, u);  // S = Q K^T
            if constexpr (std::is_same_v<T, float>) {
                cpumath::softmaxRows(P, P, u, u, s.causal, s.scale);  // the rows' bits, faster
            } else {
                for (int i = 0; i < u; ++i) {
                    const int valid = s.causal ? i + 1 : u;
                    T* row = P + size_t(i) * u;
                    softmaxRow(row, row, valid, T(s.scale));
                    std::fill(row + valid, row + u, T(0));
                }
            }
            headProduct(false, false, u, dv, u, P, u, Q + o.v, s.ldQkv, Call + o.ctx,
                        s.ldCtx);  // C = P V
        });
    }
    void run(const AttentionBackwardArgs& args) {
        const AttentionShape& s = args.s;
        const int u = s.units, d = s.keySize, dv = s.valueSize;
        const T* QKV = ptr(args.qkv);
        const T* Pall = ptr(args.p);
        const T* DC = ptr(args.dctx);
        T* DQKV = ptr(args.dqkv);
        const T scale = s.scale;
        // One head: dP = dC V^T (into dS), dV = P^T dC, dS from dP, dQ = dS K, dK = dS^T Q.
        auto head = [&](int b, int h, std::vector<T>& tmp) {
            const HeadPtrs o = headOf(s, b, h);
            const T* Q = QKV + o.qkv;
            T* dQ = DQKV + o.qkv;
            const T* P = Pall + o.p;
            const T* dC = DC + o.ctx;
            tmp.resize(size_t(u) * u);
            T* dS = tmp.data();
            headProduct(false, true, u, u, dv, dC, s.ldCtx, Q + o.v, s.ldQkv, dS, u);
            headProduct(true, false, u, dv, u, P, u, dC, s.ldCtx, dQ + o.v, s.ldQkv);
            for (int i = 0; i < u; ++i)
                softmaxBackwardRow(P + size_t(i) * u, dS + size_t(i) * u, dS + size_t(i) * u, u,
                                   scale);
            headProduct(false, false, u, d, u, dS, u, Q + o.k, s.ldQkv, dQ, s.ldQkv);
            headProduct(true, false, u, d, u, dS, u, Q, s.ldQkv, dQ + o.k, s.ldQkv);
        };
        perHeadParallel(s, 3 * size_t(u) * u * size_t(d + dv), head);
    }

    // One row of the norm: y = (x - mean) / sqrt(var + eps); returns 1 / sqrt(var + eps).
    static T normRow(const T* xr, T* yr, int cols, T eps) {
        T mean = 0;
        for (int j = 0; j < cols; ++j) mean += xr[j];
        mean /= T(cols);
        T var = 0;
        for (int j = 0; j < cols; ++j) var += (xr[j] - mean) * (xr[j] - mean);
        var /= T(cols);
        const T rs = T(1) / std::sqrt(var + eps);
        for (int j = 0; j < cols; ++j) yr[j] = (xr[j] - mean) * rs;
        return rs;
    }
    // One row of the norm's backward (dx must not alias dy).
    static void normBackwardRow(const T* yr, T rs, const T* dyr, T* dxr, int cols) {
        T m1 = 0, m2 = 0;
        for (int j = 0; j < cols; ++j) {
            m1 += dyr[j];
            m2 += dyr[j] * yr[j];
        }
        m1 /= T(cols);
        m2 /= T(cols);
        for (int j = 0; j < cols; ++j) dxr[j] = rs * (dyr[j] - m1 - yr[j] * m2);
    }
    void run(const NormForwardArgs& args) {
        const T* X = ptr(args.x);
        T* Y = ptr(args.y);
        T* R = ptr(args.rstd);
        const size_t c = size_t(args.cols);
        rowsParallel(size_t(args.rows), c, [&](size_t r) {
            R[r] = normRow(X + r * c, Y + r * c, args.cols, T(args.eps));
        });
    }
    void run(const NormBackwardArgs& args) {
        const T* Y = ptr(args.y);
        const T* R = ptr(args.rstd);
        const T* DY = ptr(args.dy);
        T* DX = ptr(args.dx);
        const size_t c = size_t(args.cols);
        rowsParallel(size_t(args.rows), c, [&](size_t r) {
            normBackwardRow(Y + r * c, R[r], DY + r * c, DX + r * c, args.cols);
        });
    }
    // add then normForward, row by row in one pass (the same operations, so the same bits).
    void run(const AddNormForwardArgs& args) {
        const T* A = ptr(args.a);
        const T* B = ptr(args.b);
        T* S = ptr(args.sum);
        T* Y = ptr(args.y);
        T* R = ptr(args.rstd);
        const size_t c = size_t(args.cols);
        rowsParallel(size_t(args.rows), c, [&](size_t r) {
            T* sr = S + r * c;
            for (size_t j = 0; j < c; ++j) sr[j] = A[r * c + j] + B[r * c + j];
            R[r] = normRow(sr, Y + r * c, args.cols, T(args.eps));
        });
    }
    // dy += dy2 then normBackward, row by row in one pass (the same bits as axpy with alpha 1
    // then normBackward).
    void run(const AddNormBackwardArgs& args) {
        const T* Y = ptr(args.y);
        const T* R = ptr(args.rstd);
        T* DY = ptr(args.dy);
        const T* DY2 = ptr(args.dy2);
        T* DX = ptr(args.dx);
        const size_t c = size_t(args.cols);
        rowsParallel(size_t(args.rows), c, [&](size_t r) {
            T* d = DY + r * c;
            for (size_t j = 0; j < c; ++j) d[j] += T(1) * DY2[r * c + j];
            normBackwardRow(Y + r * c, R[r], d, DX + r * c, args.cols);
        });
    }

    void run(const UnfoldArgs& args) {
        const T* X = ptr(args.x);
        T* C = ptr(args.cols);
        for (int b = 0; b < args.batch; ++b)
            for (int p = 0; p < args.positions; ++p)
                for (int w = 0; w < args.window; ++w) {
                    int i = p * args.step + w;
                    C[(size_t(b) * args.positions + p) * args.window + w] =
                        i < args.len ? X[size_t(b) * args.len + i] : T(0);
                }
    }
    void run(const FoldArgs& args) {
        const T* D = ptr(args.dcols);
        T* X = ptr(args.dx);
        std::fill_n(X, size_t(args.batch) * args.len, T(0));
        for (int b = 0; b < args.batch; ++b)
            for (int p = 0; p < args.positions; ++p)
                for (int w = 0; w < args.window; ++w) {
                    int i = p * args.step + w;
                    if (i < args.len)
                        X[size_t(b) * args.len + i] +=
                            D[(size_t(b) * args.positions + p) * args.window + w];
                }
    }

    void run(const MseLossArgs& args) {
        const T* Y = ptr(args.y);
        const T* Tg = ptr(args.target);
        T* D = ptr(args.dy);
        T* L = ptr(args.loss);
        for (int r = 0; r < args.rows; ++r) {
            T s = 0;
            for (int j = 0; j < args.cols; ++j) {
                const size_t o = size_t(r) * args.cols + j;
                const T e = Y[o] - Tg[o];
                s += e * e;
                D[o] = T(2) * e / T(args.cols) * T(args.gradScale);
            }
            L[r] = s / T(args.cols);
        }
    }
    void run(const SoftmaxCrossEntropyArgs& args) {
        const T* X = ptr(args.logits);
        const T* Tg = ptr(args.target);
        T* P = ptr(args.prob);
        T* D = ptr(args.dy);
        T* L = ptr(args.loss);
        for (int r = 0; r < args.rows; ++r) {
            const size_t o = size_t(r) * args.cols;
            T mx = X[o];
            for (int j = 1; j < args.cols; ++j) mx = std::max(mx, X[o + j]);
            T sum = 0;
            for (int j = 0; j < args.cols; ++j) sum += std::exp(X[o + j] - mx);
            const T lse = mx + std::log(sum);
            T l = 0, tsum = 0;
            for (int j = 0; j < args.cols; ++j) {
                P[o + j] = std::exp(X[o + j] - lse);
                l -= Tg[o + j] * (X[o + j] - lse);
                tsum += Tg[o + j];
            }
            // Gradient of -sum t log p for unnormalised t: tsum * p - t.
            for (int j = 0; j < args.cols; ++j)
                D[o + j] = (tsum * P[o + j] - Tg[o + j]) * T(args.gradScale);
            L[r] = l;
        }
    }

    bool skipped(BufRef skip, int model = 0) {
        if (skip.empty()) return false;
        return ptr(skip)[model] >= T(0);
    }
    // A population step in one dispatch: `one(p, begin, end)` (the single-model step's
    // element loop with model p's row of the hyper table) over blocks of every model's slice
    // that is not masked by its skip flag. The loops are element-wise, so any split gives the
    // bits of the single-model step.
    template <typename A, typename F>
    void perModel(const A& args, F&& one) {
        const size_t slice = args.n / size_t(args.models);
        const size_t blocks = std::max<size_t>(1, (slice + kGrain - 1) / kGrain);
        const size_t block = (slice + blocks - 1) / blocks;
        be.pool_->parallelFor(size_t(args.models) * blocks, 1, [&](size_t b, size_t e) {
            for (size_t w = b; w < e; ++w) {
                const int p = int(w / blocks);
                const size_t i0 = p * slice + (w % blocks) * block;
                if (!skipped(args.skip, p)) one(p, i0, std::min(i0 + block, (p + 1) * slice));
            }
        });
    }
    void run(const SgdStepArgs& args) {
        if (!args.hyper.empty()) {
            perModel(args, [&](int p, size_t b, size_t e) {
                const T* h = ptr(args.hyper) + size_t(p) * kSgdHyper;
                sgd(args, float(h[0]), float(h[1]), float(h[2]), b, e);
            });
            return;
        }
        if (skipped(args.skip)) return;
        be.pool_->parallelFor(args.n, kGrain, [&](size_t b, size_t e) {
            sgd(args, args.lr, args.momentum, args.weightDecay, b, e);
        });
    }
    void sgd(const SgdStepArgs& args, float lr, float momentum, float wd, size_t b, size_t e) {
        T* __restrict wv = ptr(args.w);
        const T* __restrict gr = ptr(args.g);
        T* __restrict v = ptr(args.velocity);
        const T l = lr, m = momentum, d = wd;
        for (size_t i = b; i < e; ++i) {
            const T vi = m * v[i] + gr[i] + d * wv[i];
            v[i] = vi;
            wv[i] -= l * vi;
        }
    }
    void run(const AdamStepArgs& args) {
        if (!args.hyper.empty()) {
            perModel(args, [&](int p, size_t b, size_t e) {
                const T* h = ptr(args.hyper) + size_t(p) * kAdamHyper;
                AdamStepArgs one = args;  // the scalars of model p, as a single model has them
                one.lr = float(h[0]);
                one.beta1 = float(h[1]);
                one.beta2 = float(h[2]);
                one.eps = float(h[3]);
                one.weightDecay = float(h[4]);
                one.bc1 = float(h[5]);
                one.bc2 = float(h[6]);
                adam(one, b, e);
            });
            return;
        }
        if (skipped(args.skip)) return;
        be.pool_->parallelFor(args.n, kGrain, [&](size_t b, size_t e) { adam(args, b, e); });
    }
    // Elements [b, e) of an Adam step with the scalars of `args` (the loop: cpumath::adamStep,
    // vectorized for the machine with the same bits on every instruction set).
    void adam(const AdamStepArgs& args, size_t b, size_t e) {
        const T lr = args.lr;
        const cpumath::AdamConstants<T> c{T(args.beta1),
                                          T(args.beta2),
                                          T(args.eps),
                                          lr / T(args.bc1),
                                          T(1) - lr * T(args.weightDecay),
                                          T(1) / std::sqrt(T(args.bc2))};
        cpumath::adamStep(ptr(args.w) + b, ptr(args.g) + b, ptr(args.m) + b, ptr(args.v) + b, e - b,
                          c);
    }

    void run(const ClipByGlobalNormArgs& a) {
        const size_t slice = a.n / size_t(a.models);  // one model's values
        // Models in parallel, each model's sum in the single model's order (the same bits).
        be.pool_->parallelFor(size_t(a.models), 1, [&](size_t b, size_t e) {
            for (size_t p = b; p < e; ++p) clipModel(a, p, slice);
        });
    }
    void clipModel(const ClipByGlobalNormArgs& a, size_t p, size_t slice) {
        T* G = ptr(a.g) + p * slice;
        // In double: the reference for every device's float reduction. Eight partial sums over
        // the indices i mod 8, added in a fixed order at the end: the same bits whatever the
        // thread count, and eight independent additions per step instead of one long chain.
        double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        size_t i = 0;
        for (; i + 8 <= slice; i += 8)
            for (int l = 0; l < 8; ++l) lane[l] += double(G[i + l]) * double(G[i + l]);
        for (; i < slice; ++i) lane[i % 8] += double(G[i]) * double(G[i]);
        const double sum = ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
                           ((lane[4] + lane[5]) + (lane[6] + lane[7]));
        const T nrm = T(std::sqrt(sum));
        ptr(a.norm)[p] = nrm;
        if (a.maxNorm > 0 && std::isfinite(nrm) && nrm > T(a.maxNorm)) {
            const T f = T(a.maxNorm) / nrm;
            for (size_t i = 0; i < slice; ++i) G[i] *= f;
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
        if (!a.bases.empty()) {  // a population: model p's slice with its own key, from index 0
            const size_t slice = a.n / size_t(a.models);
            std::vector<uint64_t> keys(size_t(a.models));
            for (int p = 0; p < a.models; ++p)
                keys[p] = dropoutKey(joinKeyLimbs(ptr(a.bases) + 4 * size_t(p)), a.step);
            elemParallel(a.n, [&](size_t i) {
                const T m = dropoutBits(keys[i / slice], i % slice) >= threshold ? scale : T(0);
                M[i] = m;
                Y[i] = X[i] * m;
            });
            return;
        }
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
        const size_t r = size_t(std::max(args.rows, 0)), c = size_t(std::max(args.cols, 0));
        const T* P = ptr(args.pred);
        const T* Tg = ptr(args.target);
        const T* L = ptr(args.loss);
        const T* Wc = ptr(args.codeWeights);  // null when empty
        T* out = ptr(args.log);
        if (args.models > 1) {  // a population: each block of rows has its own flag
            const size_t per = r / size_t(args.models);
            for (int p = 0; p < args.models; ++p) {
                RecordOutcomesArgs one = args;
                one.rows = int(per);
                one.models = 1;
                const size_t o = size_t(p) * per;
                one.pred = args.pred + o * c;
                one.target = args.target + o * c;
                one.loss = args.loss + o;
                one.log = args.log + 2 * o;
                one.flag = args.flag + size_t(p);
                run(one);
            }
            return;
        }
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
        T* F = ptr(args.flag);
        if (!finite && F[0] < T(0)) F[0] = T(args.batchIndex);
    }

    void tapWeights(int heads, int k, bool sm, const T* W, T* out) {
        for (int h = 0; h < heads; ++h) {
            if (sm)
                softmaxRow(W + size_t(h) * k, out + size_t(h) * k, k, T(1));
            else
                std::copy_n(W + size_t(h) * k, k, out + size_t(h) * k);
        }
    }
    // The effective taps of every model of a population: model m's at wsm + m * heads * k.
    void allTapWeights(int models, size_t weightStride, int heads, int k, bool sm, const T* W,
                       T* out) {
        for (int m = 0; m < models; ++m)
            tapWeights(heads, k, sm, W + size_t(m) * weightStride,
                       out + size_t(m) * size_t(heads) * k);
    }
    void run(const LightConvForwardArgs& args) {
        const T* X = ptr(args.x);
        T* Y = ptr(args.y);
        T* Wt = ptr(args.wsm);
        allTapWeights(args.models, args.weightStride, args.heads, args.k, args.softmaxTaps,
                      ptr(args.weight), Wt);
        const int per = args.channels / args.heads;
        const size_t perModel = size_t(args.batch / args.models),
                     taps = size_t(args.heads) * args.k;
        rowsParallel(size_t(args.batch) * args.units, size_t(args.channels) * args.k,
                     [&](size_t bt) {
                         const size_t b = bt / args.units;
                         const int t = int(bt % args.units);
                         T* yr = Y + bt * args.channels;
                         const T* Wm = Wt + b / perModel * taps;  // the sample's model's taps
                         for (int c = 0; c < args.channels; ++c) {
                             const T* w = Wm + size_t(c / per) * args.k;
                             T s = 0;
                             for (int j = 0; j < args.k; ++j) {
                                 int src = t + j - args.padL;
                                 if (src < 0 || src >= args.units) continue;
                                 s += w[j] * X[(b * args.units + src) * args.channels + c];
                             }
                             yr[c] = s;
                         }
                     });
    }
    void run(const LightConvBackwardArgs& args) {
        const T* X = ptr(args.x);
        const T* DY = ptr(args.dy);
        const T* Wt = ptr(args.wsm);
        const int per = args.channels / args.heads;
        const size_t perModel = size_t(args.batch / args.models),
                     taps = size_t(args.heads) * args.k;
        if (!args.dx.empty()) {
            T* DX = ptr(args.dx);
            rowsParallel(
                size_t(args.batch) * args.units, size_t(args.channels) * args.k, [&](size_t bt) {
                    const size_t b = bt / args.units;
                    const int s = int(bt % args.units);
                    const T* Wm = Wt + b / perModel * taps;  // the sample's model's taps
                    for (int c = 0; c < args.channels; ++c) {
                        const T* w = Wm + size_t(c / per) * args.k;
                        T acc = 0;
                        for (int j = 0; j < args.k; ++j) {
                            int t = s - j + args.padL;  // output that read x[s] through tap j
                            if (t < 0 || t >= args.units) continue;
                            acc += w[j] * DY[(b * args.units + t) * args.channels + c];
                        }
                        DX[bt * args.channels + c] = acc;
                    }
                });
        }
        // Gradient w.r.t. the effective taps (each model's over its own samples, in the order
        // of a single model), then through the optional softmax.
        std::vector<T> gw(size_t(args.models) * taps, T(0));
        for (size_t b = 0; b < size_t(args.batch); ++b)
            for (int t = 0; t < args.units; ++t)
                for (int c = 0; c < args.channels; ++c) {
                    const T d = DY[(b * args.units + t) * args.channels + c];
                    T* g = gw.data() + b / perModel * taps + size_t(c / per) * args.k;
                    for (int j = 0; j < args.k; ++j) {
                        int src = t + j - args.padL;
                        if (src < 0 || src >= args.units) continue;
                        g[j] += d * X[(b * args.units + src) * args.channels + c];
                    }
                }
        for (int m = 0; m < args.models; ++m) {
            T* DW = ptr(args.dw) + size_t(m) * args.weightStride;
            for (int h = 0; h < args.heads; ++h) {
                const T* g = gw.data() + m * taps + size_t(h) * args.k;
                const T* p = Wt + m * taps + size_t(h) * args.k;
                if (args.softmaxTaps) {
                    T dot = 0;
                    for (int j = 0; j < args.k; ++j) dot += g[j] * p[j];
                    for (int j = 0; j < args.k; ++j)
                        DW[size_t(h) * args.k + j] += p[j] * (g[j] - dot);
                } else {
                    for (int j = 0; j < args.k; ++j) DW[size_t(h) * args.k + j] += g[j];
                }
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
    // Zeroed storage (cpumem: a population's large arrays in huge pages); all bits zero is
    // 0.0 in float and double.
    void* h = cpumem::allocZeroed(count * valueBytes);
    if (!h)
        throw ComputeError("alloc of " + std::to_string(count) + " values (" +
                           std::to_string(uint64_t(count) * valueBytes) +
                           " bytes) failed: out of host memory");
    return Buffer(this, h, count);
}

void CpuBackend::release(void* handle) noexcept {
    cpumem::release(handle);
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
struct CpuHas<A,
              std::void_t<decltype(std::declval<CpuOps<float>&>().run(std::declval<const A&>()))>>
    : std::true_type {};

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
#define NNWB_CPU_OP(Name, name)                                                                  \
    void CpuBackend::name##Impl(const Name##Args& args) {                                        \
        runOp(*this, precision_ == Precision::Double, args, [&] { Backend::name##Impl(args); }); \
    }
NNWB_OPS(NNWB_CPU_OP)
#undef NNWB_CPU_OP

}  // namespace nnwb
