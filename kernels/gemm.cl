// Batched strided GEMM: C = alpha * op(A) * op(B) + beta * C, row-major, for every batch index
// (i0, i1) (NDRange dimension 2 = i0 * batch1 + i1). Tiled through local memory with register
// blocking: a work-group computes a TSM x TSN tile of C with (TSM/WPTM) x (TSN/WPTN) work-items,
// each holding WPTM x WPTN results. Tile sizes are -D defines chosen by the host per device.
// Correct for any M, N, K (out-of-range loads read 0, out-of-range stores are skipped).
// beta == 0 never reads C. The host builds this file once per tiling, naming the kernel with
// GEMM_NAME. Split-K: with splits > 1, NDRange dimension 2 is (batch, split) and each split
// sums its kChunk values of K into P[batch][split][M][N] (no alpha, beta); gemm_reduce_splits
// then writes C. With epi (a single product, no split), C += bias per column (hasBias) and
// Y = act(C), Y laid out like C: the fused projection of a dense layer (epi 2: Y is C, stored
// once). With rowSums (projectionGradient: op(A) = dz^T, the row sums are the bias gradient), the
// sums of op(A)'s rows over the split's K go to R[ro + (batch * splits + split) * rStride + i]:
// added without a split, stored as partial sums (after P's products) for gemm_reduce_splits to add.

// The tiling comes from the host's GemmConfig (compute/OpenClBackendImpl.h) as -D defines; there
// are no defaults here to drift from it.
#if !defined(TSM) || !defined(TSN) || !defined(TSK) || !defined(WPTM) || !defined(WPTN) || \
    !defined(LPAD)
#error "gemm.cl built without the tiling defines of GemmConfig::defines()"
#endif
#if TSM % WPTM != 0 || TSN % WPTN != 0
#error "gemm tiling: TSM and TSN must be multiples of WPTM and WPTN"
#endif
#ifndef GEMM_NAME
#define GEMM_NAME gemm_tiled
#endif
#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define GEMM_THREADS (RTSM * RTSN)
// A work-item's results: rows tm + wm * RTSM, columns tn + wn * RTSN.
#define ROW(tm, wm) ((tm) + (wm) * RTSM)
#define COL(tn, wn) ((tn) + (wn) * RTSN)
// Floats added to each local row: the tile loads write columns of TSK values, which fall into
// one bank when TSM or TSN is a multiple of 32 without it (LPAD).

// Local size (RTSN, RTSM, 1); global (ceil(N / TSN) * RTSN, ceil(M / TSM) * RTSM,
// batches * splits).
__kernel void GEMM_NAME(
    int M, int N, int K, float alpha, float beta, int transA, int transB,
    __global const float* A, ulong aOff, int lda, ulong strideA0, ulong strideA1,
    __global const float* B, ulong bOff, int ldb, ulong strideB0, ulong strideB1,
    __global float* C, ulong cOff, int ldc, ulong strideC0, ulong strideC1, int batch1,
    int splits, int kChunk, __global float* P, int epi, __global const float* bias, ulong bo,
    int hasBias, __global float* Y, ulong yo, int act, int rowSums, __global float* R, ulong ro,
    ulong rStride) {
    __local float Asub[TSK][TSM + LPAD];
    __local float Bsub[TSK][TSN + LPAD];
    GEMM_WORK_ITEM_INDICES
    A += aOff + i0 * strideA0 + i1 * strideA1;
    B += bOff + i0 * strideB0 + i1 * strideB1;
    C += cOff + i0 * strideC0 + i1 * strideC1;

    float acc[WPTM][WPTN];
#pragma unroll
    for (int wm = 0; wm < WPTM; ++wm)
#pragma unroll
        for (int wn = 0; wn < WPTN; ++wn) acc[wm][wn] = 0.0f;
    // rowSums: the first column of work-items of the first column of tiles also adds up its rows
    // of op(A) (the values it loads anyway) over this split's K.
    const int sumRows = rowSums && n0 == 0 && tn == 0;
    float rsum[WPTM];
#pragma unroll
    for (int wm = 0; wm < WPTM; ++wm) rsum[wm] = 0.0f;

    for (int k0 = kBegin; k0 < kEnd; k0 += TSK) {
        // op(A)[i][k] is A[i * lda + k], or A[k * lda + i] when transposed; consecutive
        // work-items read consecutive addresses in either case.
        for (int l = tid; l < TSM * TSK; l += GEMM_THREADS) {
            int ii, kk;
            if (transA) {
                ii = l % TSM;
                kk = l / TSM;
            } else {
                kk = l % TSK;
                ii = l / TSK;
            }
            const int gi = m0 + ii, gk = k0 + kk;
            float v = 0.0f;
            if (gi < M && gk < kEnd)
                v = transA ? A[(ulong)gk * lda + gi] : A[(ulong)gi * lda + gk];
            Asub[kk][ii] = v;
        }
        // op(B)[k][j] is B[k * ldb + j], or B[j * ldb + k] when transposed.
        for (int l = tid; l < TSN * TSK; l += GEMM_THREADS) {
            int jj, kk;
            if (transB) {
                kk = l % TSK;
                jj = l / TSK;
            } else {
                jj = l % TSN;
                kk = l / TSN;
            }
            const int gj = n0 + jj, gk = k0 + kk;
            float v = 0.0f;
            if (gj < N && gk < kEnd)
                v = transB ? B[(ulong)gj * ldb + gk] : B[(ulong)gk * ldb + gj];
            Bsub[kk][jj] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int kk = 0; kk < TSK; ++kk) {
            float areg[WPTM], breg[WPTN];
#pragma unroll
            for (int wm = 0; wm < WPTM; ++wm) areg[wm] = Asub[kk][ROW(tm, wm)];
            if (sumRows) {
#pragma unroll
                for (int wm = 0; wm < WPTM; ++wm) rsum[wm] += areg[wm];
            }
#pragma unroll
            for (int wn = 0; wn < WPTN; ++wn) breg[wn] = Bsub[kk][COL(tn, wn)];
#pragma unroll
            for (int wm = 0; wm < WPTM; ++wm)
#pragma unroll
                for (int wn = 0; wn < WPTN; ++wn) acc[wm][wn] += areg[wm] * breg[wn];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (sumRows) {  // added to R's row of this product, or the split's partial row sums stored
        R += ro + (bi * (ulong)splits + (ulong)split) * rStride;
#pragma unroll
        for (int wm = 0; wm < WPTM; ++wm) {
            const int gi = m0 + ROW(tm, wm);
            if (gi < M) R[gi] = splits > 1 ? rsum[wm] : R[gi] + rsum[wm];
        }
    }
    if (splits > 1) {  // the split's partial sums into P, no alpha or beta
        C = P + (bi * (ulong)splits + (ulong)split) * (ulong)M * (ulong)N;
        ldc = N;
    }
#pragma unroll
    for (int wm = 0; wm < WPTM; ++wm) {
        const int gi = m0 + ROW(tm, wm);
        if (gi >= M) continue;
#pragma unroll
        for (int wn = 0; wn < WPTN; ++wn) {
            const int gj = n0 + COL(tn, wn);
            if (gj >= N) continue;
            __global float* c = C + (ulong)gi * ldc + gj;
            if (splits > 1) {
                *c = acc[wm][wn];
                continue;
            }
            float v = beta == 0.0f ? alpha * acc[wm][wn] : alpha * acc[wm][wn] + beta * *c;
            if (epi) {  // one product only: z = v + bias, y = f(z)
                if (hasBias) v += bias[bo + gj];
                Y[yo + (ulong)gi * ldc + gj] = nnwb_act(v, act);
            }
            if (epi != 2) *c = v;
        }
    }
}
