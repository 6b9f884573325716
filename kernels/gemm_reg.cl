// Batched strided GEMM for large products: the same arguments and semantics as gemm_tiled
// (gemm.cl: C = alpha * op(A) * op(B) + beta * C per batch index, split K into P, the
// bias/activation epilogue), tiled for throughput: a work-item holds WPTM x WPTN results
// (multiples of 4) as float4 register tiles read from local memory as float4, the global
// loads are float4 where the matrix is 16-byte aligned, and the next K step is loaded into
// registers while the current one is multiplied (two local buffers, one barrier a step).
// The host builds this file once per tiling (GemmConfig defines, kernel name GEMM_NAME).
//
// TF32 builds (matmul precision `high`): TF32=1 multiplies on NVIDIA's tensor cores through
// inline PTX (operands rounded to TF32 by cvt.rna.tf32.f32 as they are stored to local memory,
// mma.sync.aligned.m16n8k8 with float32 accumulators); TF32=2 is the same kernel with the
// tensor-core product emulated element by element from local memory (tests on devices without
// tensor cores: the tiles, the rounding, the fragment layout of C and the epilogue). A TF32
// build has 256 work-items as 8 warps of 32, 4 along M and 2 along N; a warp's tile is
// WTM x WTN in 16 x 8 fragments. Fragment layout (PTX ISA, m16n8k8 .tf32): lane = 4 g + t;
// A (16 x 8) a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4); B (8 x 8) b0 (t, g),
// b1 (t + 4, g); C (16 x 8) c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1).

#if !defined(TSM) || !defined(TSN) || !defined(TSK) || !defined(WPTM) || !defined(WPTN) || \
    !defined(LPAD)
#error "gemm_reg.cl built without the tiling defines of GemmConfig::defines()"
#endif
#if WPTM % 4 != 0 || WPTN % 4 != 0 || TSK % 4 != 0 || LPAD % 4 != 0
#error "gemm_reg tiling: WPTM, WPTN, TSK and LPAD must be multiples of 4"
#endif
#ifndef GEMM_NAME
#define GEMM_NAME gemm_reg
#endif
#define RTSM (TSM / WPTM)  // work-items along M
#define RTSN (TSN / WPTN)  // work-items along N
#define REG_THREADS (RTSM * RTSN)
#if (TSM * TSK) % (4 * REG_THREADS) != 0 || (TSN * TSK) % (4 * REG_THREADS) != 0
#error "gemm_reg tiling: each work-item loads whole float4s of both tiles"
#endif
#define LOADS_A (TSM * TSK / (4 * REG_THREADS))  // float4 loads of the A tile per work-item
#define LOADS_B (TSN * TSK / (4 * REG_THREADS))
// A work-item's rows are float4 chunks c = 0 .. WPTM / 4 - 1 at c * RTSM * 4 + tm * 4: the
// work-items of a warp read consecutive float4s (no bank conflicts); columns likewise.
#define ROWS4 (TSM + LPAD) / 4
#define COLS4 (TSN + LPAD) / 4

#ifdef TF32
#if REG_THREADS != 256 || TSM % 64 != 0 || TSN % 16 != 0 || TSK % 8 != 0
#error "gemm_reg TF32 tiling: 256 work-items, TSM a multiple of 64, TSN of 16, TSK of 8"
#endif
#define WTM (TSM / 4)  // a warp's rows
#define WTN (TSN / 2)  // a warp's columns
#define FM (WTM / 16)  // 16 x 8 fragments along M
#define FN (WTN / 8)   // along N
#if TF32 == 1
// x rounded to TF32 (round to nearest, ties away from zero), the low 13 bits zero.
float reg_cvt(float x) {
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return as_float(r);
}
#else
// cvt.rna.tf32.f32 emulated: half a TF32 unit added to the magnitude, the low 13 bits cleared
// (Inf and NaN kept).
float reg_cvt(float x) {
    uint u = as_uint(x);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
    return as_float(u);
}
#endif
#define REG_CVT4(v) (float4)(reg_cvt((v).x), reg_cvt((v).y), reg_cvt((v).z), reg_cvt((v).w))
// The statement that follows, for each element e < 4 of each C fragment (fm, fn) of the lane.
#define TF32_EACH_C_ELEMENT                              \
    _Pragma("unroll") for (int fm = 0; fm < FM; ++fm)   \
        _Pragma("unroll") for (int fn = 0; fn < FN; ++fn) \
            _Pragma("unroll") for (int e = 0; e < 4; ++e)
#else
#define reg_cvt(x) (x)
#define REG_CVT4(v) (v)
#endif

// Four values of M[r * ld + c .. c + 3], zero outside r < rows, c + x < cols; one float4 load
// where the whole float4 is inside and aligned (`vec`: the matrix starts 16-byte aligned and
// ld is a multiple of 4).
float4 reg_load4(__global const float* m, int ld, int r, int c, int rows, int cols, int vec) {
    if (r >= rows) return (float4)(0.0f);
    __global const float* p = m + (ulong)r * (ulong)ld + c;
    if (vec && c + 3 < cols) return *(__global const float4*)p;
    return (float4)(c < cols ? p[0] : 0.0f, c + 1 < cols ? p[1] : 0.0f, c + 2 < cols ? p[2] : 0.0f,
                    c + 3 < cols ? p[3] : 0.0f);
}

// The first min(n, 4) values at p (the rest 0); one float4 access where `vec` and n >= 4.
float4 reg_read4(__global const float* p, int n, int vec) {
    if (vec && n >= 4) return *(__global const float4*)p;
    return (float4)(p[0], n > 1 ? p[1] : 0.0f, n > 2 ? p[2] : 0.0f, n > 3 ? p[3] : 0.0f);
}
void reg_store4(__global float* p, float4 v, int n, int vec) {
    if (vec && n >= 4) {
        *(__global float4*)p = v;
        return;
    }
    p[0] = v.x;
    if (n > 1) p[1] = v.y;
    if (n > 2) p[2] = v.z;
    if (n > 3) p[3] = v.w;
}

// Loads one K step of a TS x TSK tile of op(M) into registers. `kMajor`: op(M)[x][k] is stored
// at M[k * ld + x] (contiguous along x), else at M[x * ld + k] (contiguous along k).
#define REG_FETCH(regs, LOADS, TS, m, ld, x0, xLim, k0, kLim, kMajor, vec)                       \
    _Pragma("unroll") for (int l = 0; l < LOADS; ++l) {                                          \
        const int f = tid + l * REG_THREADS;                                                     \
        if (kMajor)                                                                              \
            regs[l] =                                                                            \
                reg_load4(m, ld, k0 + f / (TS / 4), x0 + 4 * (f % (TS / 4)), kLim, xLim, vec);   \
        else                                                                                     \
            regs[l] =                                                                            \
                reg_load4(m, ld, x0 + f / (TSK / 4), k0 + 4 * (f % (TSK / 4)), xLim, kLim, vec); \
    }

// Stores the fetched registers into local tile buf[k][x] (x contiguous).
#define REG_STORE(regs, LOADS, TS, buf, kMajor)                                            \
    _Pragma("unroll") for (int l = 0; l < LOADS; ++l) {                                    \
        const int f = tid + l * REG_THREADS;                                               \
        if (kMajor) {                                                                      \
            buf[f / (TS / 4)][f % (TS / 4)] = REG_CVT4(regs[l]);                           \
        } else {                                                                           \
            __local float* col = (__local float*)buf[4 * (f % (TSK / 4))] + f / (TSK / 4); \
            col[0] = reg_cvt(regs[l].x);                                                   \
            col[TS + LPAD] = reg_cvt(regs[l].y);                                           \
            col[2 * (TS + LPAD)] = reg_cvt(regs[l].z);                                     \
            col[3 * (TS + LPAD)] = reg_cvt(regs[l].w);                                     \
        }                                                                                  \
    }

// r[i .. i + 3] = the float4 v (registers, once the loops are unrolled).
#define REG_UNPACK4(r, i, v)   \
    {                          \
        const float4 v4 = (v); \
        r[(i)] = v4.x;         \
        r[(i) + 1] = v4.y;     \
        r[(i) + 2] = v4.z;     \
        r[(i) + 3] = v4.w;     \
    }

// Local size (RTSN, RTSM, 1); global (ceil(N / TSN) * RTSN, ceil(M / TSM) * RTSM,
// batches * splits).
__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void GEMM_NAME(
    int M, int N, int K, float alpha, float beta, int transA, int transB, __global const float* A,
    ulong aOff, int lda, ulong strideA0, ulong strideA1, __global const float* B, ulong bOff,
    int ldb, ulong strideB0, ulong strideB1, __global float* C, ulong cOff, int ldc, ulong strideC0,
    ulong strideC1, int batch1, int splits, int kChunk, __global float* P, int epi,
    __global const float* bias, ulong bo, int hasBias, __global float* Y, ulong yo, int act) {
    __local float4 As[2][TSK][ROWS4];
    __local float4 Bs[2][TSK][COLS4];
    GEMM_WORK_ITEM_INDICES
    const ulong aStart = aOff + i0 * strideA0 + i1 * strideA1;
    const ulong bStart = bOff + i0 * strideB0 + i1 * strideB1;
    A += aStart;
    B += bStart;
    C += cOff + i0 * strideC0 + i1 * strideC1;
    // float4 loads where the matrix starts 16-byte aligned (buffers are) and rows keep it.
    const int vecA = (aStart & 3) == 0 && (lda & 3) == 0;
    const int vecB = (bStart & 3) == 0 && (ldb & 3) == 0;
    // op(A)[i][k] = A[i * lda + k], or A[k * lda + i] transposed (k-major);
    // op(B)[k][j] = B[k * ldb + j] (k-major), or B[j * ldb + k] transposed.
    const int aKMajor = transA, bKMajor = !transB;

#ifdef TF32
    const int lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp % 4) * WTM, wn0 = (warp / 4) * WTN;  // the warp's tile
    const int g = lane >> 2, t = lane & 3;
    float acc[FM][FN][4];
    TF32_EACH_C_ELEMENT acc[fm][fn][e] = 0.0f;
#else
    float acc[WPTM][WPTN];
#pragma unroll
    for (int wm = 0; wm < WPTM; ++wm)
#pragma unroll
        for (int wn = 0; wn < WPTN; ++wn) acc[wm][wn] = 0.0f;
#endif

    float4 ra[LOADS_A], rb[LOADS_B];
    const int steps = (kEnd - kBegin + TSK - 1) / TSK;
    REG_FETCH(ra, LOADS_A, TSM, A, lda, m0, M, kBegin, kEnd, aKMajor, vecA)
    REG_FETCH(rb, LOADS_B, TSN, B, ldb, n0, N, kBegin, kEnd, bKMajor, vecB)
    REG_STORE(ra, LOADS_A, TSM, As[0], aKMajor)
    REG_STORE(rb, LOADS_B, TSN, Bs[0], bKMajor)
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < steps; ++s) {
        const int cur = s & 1;
        const int kNext = kBegin + (s + 1) * TSK;
        if (s + 1 < steps) {  // the next step's loads in flight during this step's products
            REG_FETCH(ra, LOADS_A, TSM, A, lda, m0, M, kNext, kEnd, aKMajor, vecA)
            REG_FETCH(rb, LOADS_B, TSN, B, ldb, n0, N, kNext, kEnd, bKMajor, vecB)
        }
#ifdef TF32
        __local const float* as = (__local const float*)As[cur];  // op(A)[m][k] at k (TSM+LPAD) + m
        __local const float* bs = (__local const float*)Bs[cur];  // op(B)[k][n] at k (TSN+LPAD) + n
#pragma unroll
        for (int kk = 0; kk < TSK; kk += 8) {
#if TF32 == 1
            uint af[FM][4], bf[FN][2];
#pragma unroll
            for (int fm = 0; fm < FM; ++fm) {
                const int r = wm0 + fm * 16 + g;
                af[fm][0] = as_uint(as[(kk + t) * (TSM + LPAD) + r]);
                af[fm][1] = as_uint(as[(kk + t) * (TSM + LPAD) + r + 8]);
                af[fm][2] = as_uint(as[(kk + t + 4) * (TSM + LPAD) + r]);
                af[fm][3] = as_uint(as[(kk + t + 4) * (TSM + LPAD) + r + 8]);
            }
#pragma unroll
            for (int fn = 0; fn < FN; ++fn) {
                const int c = wn0 + fn * 8 + g;
                bf[fn][0] = as_uint(bs[(kk + t) * (TSN + LPAD) + c]);
                bf[fn][1] = as_uint(bs[(kk + t + 4) * (TSN + LPAD) + c]);
            }
#pragma unroll
            for (int fm = 0; fm < FM; ++fm)
#pragma unroll
                for (int fn = 0; fn < FN; ++fn)
                    asm volatile(
                        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                        : "+f"(acc[fm][fn][0]), "+f"(acc[fm][fn][1]), "+f"(acc[fm][fn][2]),
                          "+f"(acc[fm][fn][3])
                        : "r"(af[fm][0]), "r"(af[fm][1]), "r"(af[fm][2]), "r"(af[fm][3]),
                          "r"(bf[fn][0]), "r"(bf[fn][1]));
#else  // the same sums element by element: C element e of fragment (fm, fn) of this lane
            TF32_EACH_C_ELEMENT {
                const int r = wm0 + fm * 16 + g + (e >> 1) * 8;
                const int c = wn0 + fn * 8 + 2 * t + (e & 1);
                float sum = acc[fm][fn][e];
                for (int k = 0; k < 8; ++k)
                    sum = fma(as[(kk + k) * (TSM + LPAD) + r],
                              bs[(kk + k) * (TSN + LPAD) + c], sum);
                acc[fm][fn][e] = sum;
            }
#endif
        }
#else
#pragma unroll
        for (int kk = 0; kk < TSK; ++kk) {
            float ar[WPTM], br[WPTN];
#pragma unroll
            for (int c = 0; c < WPTM / 4; ++c) REG_UNPACK4(ar, 4 * c, As[cur][kk][c * RTSM + tm]);
#pragma unroll
            for (int c = 0; c < WPTN / 4; ++c) REG_UNPACK4(br, 4 * c, Bs[cur][kk][c * RTSN + tn]);
#pragma unroll
            for (int wm = 0; wm < WPTM; ++wm)
#pragma unroll
                for (int wn = 0; wn < WPTN; ++wn) acc[wm][wn] = fma(ar[wm], br[wn], acc[wm][wn]);
        }
#endif
        if (s + 1 < steps) {
            REG_STORE(ra, LOADS_A, TSM, As[1 - cur], aKMajor)
            REG_STORE(rb, LOADS_B, TSN, Bs[1 - cur], bKMajor)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // Row wm is chunk wm / 4, lane wm % 4; columns are float4 chunks c at c * RTSN * 4 + tn * 4.
    const int ldOut = splits > 1 ? N : ldc;
    __global float* out = C;
    if (splits > 1) out = P + (bi * (ulong)splits + (ulong)split) * (ulong)M * (ulong)N;
    const ulong outStart = splits > 1 ? 0 : cOff + i0 * strideC0 + i1 * strideC1;
    const int vecOut = ((outStart | yo) & 3) == 0 && (ldOut & 3) == 0;
#ifdef TF32
    // This lane's C elements: rows g and g + 8, columns 2t and 2t + 1 of each fragment.
    TF32_EACH_C_ELEMENT {
        const int gi = m0 + wm0 + fm * 16 + g + (e >> 1) * 8;
        const int gj = n0 + wn0 + fn * 8 + 2 * t + (e & 1);
        if (gi >= M || gj >= N) continue;
        float v = acc[fm][fn][e];
        __global float* o = out + (ulong)gi * ldOut + gj;
        if (splits > 1) {  // the split's partial sum, no alpha or beta
            *o = v;
            continue;
        }
        v *= alpha;
        if (beta != 0.0f) v += beta * *o;
        if (epi) {  // one product only: z = v + bias, y = f(z)
            if (hasBias) v += bias[bo + gj];
            Y[yo + (ulong)gi * ldc + gj] = nnwb_act(v, act);
        }
        if (epi != 2) *o = v;  // epi 2: Y is C
    }
    (void)vecOut;
#else
#pragma unroll
    for (int wm = 0; wm < WPTM; ++wm) {
        const int gi = m0 + (wm / 4) * RTSM * 4 + tm * 4 + wm % 4;
        if (gi >= M) continue;
#pragma unroll
        for (int c = 0; c < WPTN / 4; ++c) {
            const int gj = n0 + c * RTSN * 4 + tn * 4;
            if (gj >= N) continue;
            float4 v = (float4)(acc[wm][4 * c], acc[wm][4 * c + 1], acc[wm][4 * c + 2],
                                acc[wm][4 * c + 3]);
            __global float* o = out + (ulong)gi * ldOut + gj;
            if (splits > 1) {  // the split's partial sum, no alpha or beta
                reg_store4(o, v, N - gj, vecOut);
                continue;
            }
            v *= alpha;
            if (beta != 0.0f) v += beta * reg_read4(o, N - gj, vecOut);
            if (epi) {  // one product only: z = v + bias, y = f(z)
                if (hasBias) v += reg_read4(bias + bo + gj, N - gj, 0);
                const float4 y = (float4)(nnwb_act(v.x, act), nnwb_act(v.y, act),
                                          nnwb_act(v.z, act), nnwb_act(v.w, act));
                reg_store4(Y + yo + (ulong)gi * ldc + gj, y, N - gj, vecOut);
            }
            if (epi != 2) reg_store4(o, v, N - gj, vecOut);  // epi 2: Y is C
        }
    }
#endif
}
