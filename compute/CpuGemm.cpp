#include "compute/CpuGemm.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

// Compiled with -ffp-contract=fast (see CMakeLists.txt) so that acc += a * b becomes an FMA in
// the AVX2 clone. Every element is accumulated over k in ascending order in one register lane,
// whatever the tile it falls in, so results do not depend on tiling or thread count.

#define NNWB_INLINE inline __attribute__((always_inline))

namespace nnwb::cpugemm {

namespace {

constexpr int kKc = 256;     // k values per pass over a B panel (keeps the panel in L1)
constexpr int kDotRows = 4;  // products with at most this many rows and B^T use dot products
// Packed A^T: each panel of a k block starts 16 values past the end of the previous one. Without
// the pad the panels were kKc * MR values apart (12 KiB for floats on AVX-512, a multiple of
// 4 KiB), so packA's stores for one k step all fell into one L1 set.
constexpr int kPanelPad = 16;
// packA prefetches A^T's row this many k steps ahead: a weight gradient's dz rows come from
// memory (50 MB for transformer-64's QKV projection at batch 256), lda values apart.
constexpr int kPrefetchK = 8;

// Values from the start of one packed A^T panel (kc values of pm rows) to the next.
inline size_t panelStride(int kc, int pm) {
    return size_t(kc) * pm + kPanelPad;
}

template <typename T, int VB>
struct Kernels {
    typedef T V __attribute__((vector_size(VB)));
    static constexpr int VL = VB / int(sizeof(T));  // lanes per vector
    static constexpr int NR = 2 * VL;               // columns per full micro-tile
    // Rows per micro-tile: MR x 2 accumulators, 2 B vectors and an A value in registers (16
    // vector registers below AVX-512, 32 with it).
    static constexpr int MR = VB >= 64 ? 12 : 6;

    // Unaligned loads and stores of VL values through memcpy (compiled to unaligned vector
    // moves). Dereferencing an under-aligned vector typedef instead is not portable: clang
    // emitted aligned moves for it and crashed on unaligned rows. Vectors pass by reference,
    // so no vector type crosses a function boundary by value.
    static NNWB_INLINE void load(V& out, const T* p) { __builtin_memcpy(&out, p, sizeof out); }
    static NNWB_INLINE void store(T* p, const V& v) { __builtin_memcpy(p, &v, sizeof v); }

    // C[0..MR) x [0..ncols) (= alpha * sum_k A B) + beta * C or += when `accumulate`.
    // A element (r, k) is a[r * lda + k], or a[k * lda + r] when TA; B row k is b + k * ldb with
    // NV * VL readable values (zero beyond ncols).
    template <int MR, int NV, bool TA>
    // alpha and beta come by reference and are read after the k loop: as values they would stay
    // live in two vector registers through it and push an accumulator out to the stack.
    static NNWB_INLINE void micro(int kc, const T* a, int lda, const T* b, int ldb, T* c, int ldc,
                                  int ncols, const T& alphaRef, const T& betaRef, bool accumulate) {
        V acc[MR][NV];
#pragma GCC unroll 12
        for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) acc[r][v] = V{};
        for (int k = 0; k < kc; ++k) {
            V bv[NV];
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) load(bv[v], b + size_t(k) * ldb + v * VL);
#pragma GCC unroll 12
            for (int r = 0; r < MR; ++r) {
                const T av = TA ? a[size_t(k) * lda + r] : a[size_t(r) * lda + k];
#pragma GCC unroll 4
                for (int v = 0; v < NV; ++v) acc[r][v] += av * bv[v];
            }
        }
        const T alpha = alphaRef, beta = betaRef;
        const bool readC = accumulate || beta != T(0);
        const T bc = accumulate ? T(1) : beta;
#pragma GCC unroll 12
        for (int r = 0; r < MR; ++r) {
            T* cr = c + size_t(r) * ldc;
            if (ncols == NV * VL) {
#pragma GCC unroll 4
                for (int v = 0; v < NV; ++v) {
                    V o = alpha * acc[r][v];
                    if (readC) {
                        V cv;
                        load(cv, cr + v * VL);
                        o += bc * cv;
                    }
                    store(cr + v * VL, o);
                }
            } else {
                T tmp[NV * VL];
#pragma GCC unroll 4
                for (int v = 0; v < NV; ++v) {
                    const V t = alpha * acc[r][v];
                    store(tmp + v * VL, t);
                }
                for (int j = 0; j < ncols; ++j) cr[j] = readC ? tmp[j] + bc * cr[j] : tmp[j];
            }
        }
    }

    // micro<mr> for a row count known only at run time (1 <= mr <= R).
    template <int NV, bool TA, int R = MR>
    static NNWB_INLINE void microRows(int mr, int kc, const T* a, int lda, const T* b, int ldb,
                                      T* c, int ldc, int ncols, const T& alpha, const T& beta,
                                      bool acc) {
        if constexpr (R > 1) {
            if (mr < R)
                return microRows<NV, TA, R - 1>(mr, kc, a, lda, b, ldb, c, ldc, ncols, alpha, beta,
                                                acc);
        }
        micro<R, NV, TA>(kc, a, lda, b, ldb, c, ldc, ncols, alpha, beta, acc);
    }

    // One stage of a VL x VL transpose in registers: rows i and i + D (i without bit D) swap
    // the values whose row and lane indices differ in bit D. After the stages for every bit,
    // value (i, l) is at (l, i). Two-input shuffles with constant lane indices
    // (__builtin_shufflevector: GCC 12 and clang; vpermt2ps / vunpck* / vshuf* on x86).
    template <int D, std::size_t... L>
    static NNWB_INLINE void shuffleLo(V& out, const V& a, const V& b, std::index_sequence<L...>) {
        out = __builtin_shufflevector(a, b, ((L & D) ? VL + L - D : L)...);
    }
    template <int D, std::size_t... L>
    static NNWB_INLINE void shuffleHi(V& out, const V& a, const V& b, std::index_sequence<L...>) {
        out = __builtin_shufflevector(a, b, ((L & D) ? VL + L : L + D)...);
    }
    template <int D>
    static NNWB_INLINE void transposeStage(V* r) {
        constexpr auto lanes = std::make_index_sequence<VL>{};
#pragma GCC unroll 16
        for (int i = 0; i < VL; ++i)
            if (!(i & D)) {
                const V a = r[i], b = r[i + D];
                shuffleLo<D>(r[i], a, b, lanes);
                shuffleHi<D>(r[i + D], a, b, lanes);
            }
    }
    // dst row l (dld apart) = column l of the VL x VL block at src (rows ld apart).
    static NNWB_INLINE void transposeBlock(const T* src, size_t ld, T* dst, size_t dld) {
        V r[VL];
#pragma GCC unroll 16
        for (int i = 0; i < VL; ++i) load(r[i], src + i * ld);
        if constexpr (VL >= 16) transposeStage<8>(r);
        if constexpr (VL >= 8) transposeStage<4>(r);
        if constexpr (VL >= 4) transposeStage<2>(r);
        if constexpr (VL >= 2) transposeStage<1>(r);
#pragma GCC unroll 16
        for (int i = 0; i < VL; ++i) store(dst + i * dld, r[i]);
    }

    // Copies op(B) rows [k0, k0 + kc) x columns [j, j + nc) into dst (kc x width, zero padded).
    static NNWB_INLINE void packB(const Product<T>& p, int k0, int kc, int j, int nc, int width,
                                  T* dst) {
        if (p.transB) {
            if (nc < width)
                for (int k = 0; k < kc; ++k)
                    std::fill(dst + size_t(k) * width + nc, dst + size_t(k + 1) * width, T(0));
            // VL x VL blocks transposed in registers, then the edges value by value: k outer
            // (contiguous stores, one row of the panel at a time, and loads from nc rows of B
            // that stay in L1 across k; the other order stored with a stride).
            const T* src = p.b + size_t(j) * p.ldb + k0;
            const size_t ldb = size_t(p.ldb);
            const int kv = kc / VL * VL, nv = nc / VL * VL;
            for (int k = 0; k < kv; k += VL)
                for (int jj = 0; jj < nv; jj += VL)
                    transposeBlock(src + jj * ldb + k, ldb, dst + size_t(k) * width + jj,
                                   size_t(width));
            for (int k = 0; k < kc; ++k) {
                T* d = dst + size_t(k) * width;
                for (int jj = k < kv ? nv : 0; jj < nc; ++jj) d[jj] = src[jj * ldb + k];
            }
        } else {
            for (int k = 0; k < kc; ++k) {
                const T* src = p.b + size_t(k0 + k) * p.ldb + j;
                T* d = dst + size_t(k) * width;
                if (nc == NR)  // full panels in a few vector moves (std::copy called memmove)
                    __builtin_memcpy(d, src, sizeof(T) * NR);
                else if (nc == VL)
                    __builtin_memcpy(d, src, sizeof(T) * VL);
                else
                    std::copy(src, src + nc, d);
                std::fill(d + nc, d + width, T(0));
            }
        }
    }

    // Copies rows [i0, i1) of A^T (A element (i, k) at a[k * lda + i]) over k values [k0, k0 +
    // kc) into panels of pm rows, k-major: row i0 + q * pm + r, value k at dst[q *
    // panelStride(kc, pm) + k * pm + r]. A^T's rows are lda values apart (768 floats for a weight
    // gradient), so in place the k steps of a micro-tile fell into few L1 sets; the row kPrefetchK
    // steps ahead is prefetched (only loads move: the same bits). When `sums` is given, also adds
    // each row's values to sums[i - i0], k in ascending order (the bias gradient's column sums of
    // dz, as BiasGradient adds them: the same operations in the same order).
    static NNWB_INLINE void packA(const Product<T>& p, int k0, int kc, int i0, int i1, int pm,
                                  T* dst, T* sums) {
        const int rows = i1 - i0;
        for (int k = 0; k < kc; ++k) {
            const T* src = p.a + size_t(k0 + k) * p.lda + i0;
            if (k0 + k + kPrefetchK < p.k)
                for (int r = 0; r < rows; r += 64 / int(sizeof(T)))
                    __builtin_prefetch(src + size_t(kPrefetchK) * p.lda + r);
            for (int q = 0; q * pm < rows; ++q) {
                const int n = std::min(pm, rows - q * pm);
                T* d = dst + size_t(q) * panelStride(kc, pm) + size_t(k) * pm;
                // A full panel's MR values in a few vector moves: std::copy of a length known
                // only at run time called memmove for every 48 bytes (14 % of transformer-64).
                if (n == MR)
                    __builtin_memcpy(d, src + q * pm, sizeof(T) * MR);
                else
                    std::copy(src + q * pm, src + q * pm + n, d);
            }
            if (sums)
                for (int r = 0; r < rows; ++r) sums[r] += src[r];
        }
    }

    // Columns [j, j + nc) (nc <= NR) of rows [i0, i1), over k values [k0, k0 + kc). A panel of
    // at most half a vector goes to the half-width kernel (down to 128-bit vectors), one wider
    // than a vector to the double-width micro-tiles; `scratch` holds kKc x NR values. With
    // `ap` (A^T packed by packA in panels of pm rows, pm a multiple of MR) the micro-tiles read
    // A from there, else in place.
    template <bool TA>
    static NNWB_INLINE void panel(const Product<T>& p, int k0, int kc, bool acc, int j, int nc,
                                  int i0, int i1, T* scratch, const T* ap, int pm) {
        if constexpr (VB > 16) {
            if (nc <= VL / 2)
                return Kernels<T, VB / 2>::template panel<TA>(p, k0, kc, acc, j, nc, i0, i1,
                                                              scratch, ap, pm);
        }
        const int width = nc > VL ? NR : VL;
        // AVX-512 (the large products) always packs B: a panel read in place has rows ldb
        // apart (768 or 64 floats for the projections), whose k steps fell into few L1 sets and
        // missed there. The narrower kernels (the presets' small products, where a panel serves
        // few micro-tiles) read a full-width panel of B in place.
        const T* bp = scratch;
        int ldbp = width;
        if (VB < 64 && !p.transB && nc == width) {
            bp = p.b + size_t(k0) * p.ldb + j;
            ldbp = p.ldb;
        } else {
            packB(p, k0, kc, j, nc, width, scratch);
        }
        for (int i = i0; i < i1; i += MR) {
            const int mr = std::min(MR, i1 - i);
            const T* a;
            int lda = p.lda;
            if (ap) {
                a = ap + size_t((i - i0) / pm) * panelStride(kc, pm) + (i - i0) % pm;
                lda = pm;
            } else {
                a = TA ? p.a + size_t(k0) * p.lda + i : p.a + size_t(i) * p.lda + k0;
            }
            T* cp = p.c + size_t(i) * p.ldc + j;
            if (width == NR)
                microRows<2, TA>(mr, kc, a, lda, bp, ldbp, cp, p.ldc, nc, p.alpha, p.beta, acc);
            else
                microRows<1, TA>(mr, kc, a, lda, bp, ldbp, cp, p.ldc, nc, p.alpha, p.beta, acc);
        }
    }

    // Rows [i0, i1) x columns [j0, j1), k block by k block. A^T (the weight gradients) is
    // packed once per k block and read from there by every column panel; p.rowSums, when set,
    // gets the rows' sums of op(A) from the tile that starts at column 0 (one tile per row).
    template <bool TA>
    static NNWB_INLINE void blocked(const Product<T>& p, int i0, int i1, int j0, int j1) {
        static thread_local std::vector<T> packed, packedA;
        if (packed.size() < size_t(kKc) * NR) packed.resize(size_t(kKc) * NR);
        const int pm = MR;
        T* sums = p.rowSums && j0 == 0 ? p.rowSums + i0 : nullptr;
        // A^T packed on AVX-512 (the large products), and wherever the row sums are wanted
        // (they replace a pass of their own); the narrower kernels read it in place otherwise.
        const bool packAT = TA && (VB >= 64 || p.rowSums);
        if (packAT) {
            const size_t need = panelStride(kKc, pm) * ((i1 - i0 + pm - 1) / pm);
            if (packedA.size() < need) packedA.resize(need);
        }
        for (int k0 = 0; k0 < p.k; k0 += kKc) {
            const int kc = std::min(kKc, p.k - k0);
            if (packAT) packA(p, k0, kc, i0, i1, pm, packedA.data(), sums);
            for (int j = j0, nc = 0; j < j1; j += nc) {
                // A last panel between one and two vectors wide: one full vector, then the
                // rest, instead of a double-width panel mostly of zeros.
                nc = std::min(NR, j1 - j);
                if (nc < NR && nc > VL) nc = VL;
                panel<TA>(p, k0, kc, k0 > 0, j, nc, i0, i1, packed.data(),
                          packAT ? packedA.data() : nullptr, pm);
            }
        }
    }

    // Few rows times B^T: each C element is a dot product of two contiguous rows, which avoids
    // packing a B that would be read only once or twice.
    template <int MR>
    static NNWB_INLINE void dotRows(const Product<T>& p, int i, int j0, int j1) {
        const int K = p.k, kv = K / VL * VL;
        for (int j = j0; j < j1; ++j) {
            const T* b = p.b + size_t(j) * p.ldb;
            V acc[MR];
#pragma GCC unroll 4
            for (int r = 0; r < MR; ++r) acc[r] = V{};
            for (int k = 0; k < kv; k += VL) {
                V bv;
                load(bv, b + k);
#pragma GCC unroll 4
                for (int r = 0; r < MR; ++r) {
                    V av;
                    load(av, p.a + size_t(i + r) * p.lda + k);
                    acc[r] += av * bv;
                }
            }
            if (kv < K) {  // the last K % VL values as one zero-padded vector (no scalar tail)
                T tail[VL] = {};
                std::copy(b + kv, b + K, tail);
                V bv;
                load(bv, tail);
#pragma GCC unroll 4
                for (int r = 0; r < MR; ++r) {
                    const T* a = p.a + size_t(i + r) * p.lda;
                    std::copy(a + kv, a + K, tail);
                    V av;
                    load(av, tail);
                    acc[r] += av * bv;
                }
            }
#pragma GCC unroll 4
            for (int r = 0; r < MR; ++r) {
                T lanes[VL];
                store(lanes, acc[r]);
                T s = 0;
                for (int l = 0; l < VL; ++l) s += lanes[l];
                T* c = p.c + size_t(i + r) * p.ldc + j;
                *c = p.beta == T(0) ? p.alpha * s : p.alpha * s + p.beta * *c;
            }
        }
    }

    static NNWB_INLINE void run(const Product<T>& p, int i0, int i1, int j0, int j1) {
        if (!p.transA && p.transB && p.m <= kDotRows) {
            switch (i1 - i0) {
                case 4:
                    dotRows<4>(p, i0, j0, j1);
                    break;
                case 3:
                    dotRows<3>(p, i0, j0, j1);
                    break;
                case 2:
                    dotRows<2>(p, i0, j0, j1);
                    break;
                default:
                    for (int i = i0; i < i1; ++i) dotRows<1>(p, i, j0, j1);
            }
            return;
        }
        // Narrow products (the per-head P V with 4 value columns): half-width vectors instead
        // of padding every row of B to a full vector.
        if constexpr (VB > 16) {
            if (p.n <= Kernels<T, VB / 2>::VL) {
                Kernels<T, VB / 2>::run(p, i0, i1, j0, j1);
                return;
            }
        }
        if (p.transA)
            blocked<true>(p, i0, i1, j0, j1);
        else
            blocked<false>(p, i0, i1, j0, j1);
    }
};

// Clones of the kernels per instruction set.
template <typename T>
void tileGeneric(const Product<T>& p, int i0, int i1, int j0, int j1) {
    Kernels<T, 16>::run(p, i0, i1, j0, j1);
}

#if defined(__x86_64__) || defined(__i386__)
#define NNWB_GEMM_X86 1
template <typename T>
__attribute__((target("avx2,fma"))) void tileAvx2(const Product<T>& p, int i0, int i1, int j0,
                                                  int j1) {
    Kernels<T, 32>::run(p, i0, i1, j0, j1);
}
template <typename T>
__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma"))) void tileAvx512(
    const Product<T>& p, int i0, int i1, int j0, int j1) {
    Kernels<T, 64>::run(p, i0, i1, j0, j1);
}
#endif

}  // namespace

bool isaSupported(Isa isa) {
    switch (isa) {
        case Isa::Generic:
            return true;
#ifdef NNWB_GEMM_X86
        case Isa::Avx2:
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        case Isa::Avx512:
            return isaSupported(Isa::Avx2) && __builtin_cpu_supports("avx512f") &&
                   __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("avx512bw");
#endif
        default:
            return false;
    }
}

namespace {

// The default choice: AVX2 where the machine has it, and AVX-512 for large products where it
// has that too. AVX-512 was faster on the large products (K or N of 64 and more over many rows)
// and slower on the small per-head and 24-wide products of the MQL5 presets (README,
// Performance); the two give the same bits, so the split is invisible in the results.
struct Choice {
    std::atomic<Isa> isa;
    std::atomic<bool> wideForLarge;  // AVX-512 for large products (the default where available)
    void setDefault() {
        isa.store(isaSupported(Isa::Avx2) ? Isa::Avx2 : Isa::Generic, std::memory_order_relaxed);
        wideForLarge.store(isaSupported(Isa::Avx512), std::memory_order_relaxed);
    }
    void setFixed(Isa fixed) {
        isa.store(fixed, std::memory_order_relaxed);
        wideForLarge.store(false, std::memory_order_relaxed);
    }
};

// NNWB_CPU_GEMM_ISA=generic|avx2|avx512 fixes the instruction set for every product (A/B
// runs); an unknown or unsupported name is ignored.
bool fixedFromEnv(Isa& out) {
    const char* env = std::getenv("NNWB_CPU_GEMM_ISA");
    if (env)
        for (Isa isa : {Isa::Generic, Isa::Avx2, Isa::Avx512})
            if (std::strcmp(env, isaName(isa)) == 0 && isaSupported(isa)) {
                out = isa;
                return true;
            }
    return false;
}

Choice& current() {
    static Choice c;  // chosen once, below (thread-safe static initialization)
    static const bool chosen = [] {
        Isa fixed = Isa::Generic;
        if (fixedFromEnv(fixed))
            c.setFixed(fixed);
        else
            c.setDefault();
        return true;
    }();
    (void)chosen;
    return c;
}

// Large enough for the 12 x 32 AVX-512 tiles to pay: 32 or more rows, columns and depth (this
// includes transformer-64's per-head products, 64 x 64 x 32 and 64 x 32 x 64, which ran 1.5x as
// fast with them, one thread; the MQL5 presets' products with 4-8-wide heads stay on AVX2).
template <typename T>
bool large(const Product<T>& p) {
    return p.m >= 32 && p.n >= 32 && p.k >= 32;
}

template <typename T>
void dispatch(Isa isa, const Product<T>& p, int i0, int i1, int j0, int j1) {
#ifdef NNWB_GEMM_X86
    if (isa == Isa::Avx512) return tileAvx512<T>(p, i0, i1, j0, j1);
    if (isa == Isa::Avx2) return tileAvx2<T>(p, i0, i1, j0, j1);
#endif
    (void)isa;
    tileGeneric<T>(p, i0, i1, j0, j1);
}

}  // namespace

template <typename T>
void tile(const Product<T>& p, int i0, int i1, int j0, int j1) {
    if (i0 >= i1 || j0 >= j1) return;
    if (p.k <= 0) {
        for (int i = i0; i < i1; ++i) {
            T* c = p.c + size_t(i) * p.ldc;
            for (int j = j0; j < j1; ++j) c[j] = p.beta == T(0) ? T(0) : p.beta * c[j];
        }
        return;
    }
    if (p.rowSums && !p.transA) {  // not packed: the sums in a pass of their own
        if (j0 == 0)
            for (int i = i0; i < i1; ++i)
                for (int k = 0; k < p.k; ++k) p.rowSums[i] += p.a[size_t(i) * p.lda + k];
        Product<T> q = p;
        q.rowSums = nullptr;
        return tile(q, i0, i1, j0, j1);
    }
    Choice& c = current();
    Isa isa = c.isa.load(std::memory_order_relaxed);
    if (isa == Isa::Avx2 && c.wideForLarge.load(std::memory_order_relaxed) && large(p))
        isa = Isa::Avx512;
    dispatch(isa, p, i0, i1, j0, j1);
}

const char* isaName(Isa isa) {
    switch (isa) {
        case Isa::Avx512:
            return "avx512";
        case Isa::Avx2:
            return "avx2";
        default:
            return "generic";
    }
}

const char* isaName() {
    switch (isa()) {
        case Isa::Avx512:
            return "avx512+fma";
        case Isa::Avx2:
            return current().wideForLarge.load() ? "avx2+fma, avx512 for large products"
                                                 : "avx2+fma";
        default:
            return "generic";
    }
}

Isa isa() {
    return current().isa.load(std::memory_order_relaxed);
}

bool wideForLarge() {
    return current().wideForLarge.load(std::memory_order_relaxed);
}

bool setIsa(Isa isa) {
    if (!isaSupported(isa)) return false;
    current().setFixed(isa);
    return true;
}

bool setDefaultIsa() {
    current().setDefault();
    return wideForLarge();
}

template void tile<float>(const Product<float>&, int, int, int, int);
template void tile<double>(const Product<double>&, int, int, int, int);

}  // namespace nnwb::cpugemm
