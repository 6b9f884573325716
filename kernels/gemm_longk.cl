// Products with a small M x N and a long K (a small layer's weight gradient over a whole batch,
// e.g. 12x12's TN 24 x 96 x 1280), and those gemm_tiled_16 would run (pickGemm): gemm_tiled's
// arguments and semantics (batches, strides, transposes, alpha/beta, the bias/activation
// epilogue, projectionGradient's row sums of op(A)), and split K reduced in the same launch.
// A work-group owns a TSM x TSN tile of C and one split's K chunk: its work-items are OWNERS
// owners of WPTM x WPTN results times LANES lanes, lane l summing the chunk's k = kBegin + l,
// + LANES, ... straight from global memory (no local tiles, no barrier in the K loop); the lanes'
// sums are added in local memory in lane order. Without a split the group stores C. With
// splits, each group stores its partial sums (and partial row sums) into P as gemm_tiled does,
// then counts itself in counters[batch][tile]; the last group of a tile to arrive adds the
// splits' partial sums in split order (the same bits whichever group arrives last), stores C
// (and adds the row sums to R) and sets the counter back to 0. The partial sums are written and
// read back with atomics (atomic_xchg, atomic_or with 0), so another group's values are seen
// whatever the cache (and oclgrind's race check sees no race). The host builds this file once
// with the tiling defines (GemmConfig: TSK is LANES here).
#if !defined(TSM) || !defined(TSN) || !defined(TSK) || !defined(WPTM) || !defined(WPTN)
#error "gemm_longk.cl built without the tiling defines of GemmConfig::defines()"
#endif
#if TSM % WPTM != 0 || TSN % WPTN != 0
#error "gemm_longk tiling: TSM and TSN must be multiples of WPTM and WPTN"
#endif
#define LANES TSK
#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define OWNERS (RTSM * RTSN)
#define LK_THREADS (OWNERS * LANES)
#define LK_ROW(tm, wm) ((tm) + (wm) * RTSM)
#define LK_COL(tn, wn) ((tn) + (wn) * RTSN)

// The value of C's element (gi, gj) from its sum over K: alpha, beta and the epilogue (one
// product only: z = v + bias, y = f(z); epi 2: y is z, stored once), as gemm_tiled stores it.
void longk_store(__global float* C, int ldc, int gi, int gj, float sum, float alpha, float beta,
                 int epi, __global const float* bias, ulong bo, int hasBias, __global float* Y,
                 ulong yo, int act) {
    __global float* c = C + (ulong)gi * ldc + gj;
    float v = beta == 0.0f ? alpha * sum : alpha * sum + beta * *c;
    if (epi) {
        if (hasBias) v += bias[bo + gj];
        Y[yo + (ulong)gi * ldc + gj] = nnwb_act(v, act);
    }
    if (epi != 2) *c = v;
}

// A float of P written or read with an atomic (another work-group's value, see above).
float longk_read(__global float* p) {
    return as_float(atomic_or((volatile __global int*)p, 0));
}

// The sum over s < splits of p[s * step], added in order of s; the reads eight at a time, so
// that eight are in flight at once.
float longk_sum_splits(__global float* p, ulong step, int splits) {
    float v = 0.0f;
    int s = 0;
    for (; s + 8 <= splits; s += 8) {
        float r[8];
#pragma unroll
        for (int q = 0; q < 8; ++q) r[q] = longk_read(p + (ulong)(s + q) * step);
#pragma unroll
        for (int q = 0; q < 8; ++q) v += r[q];
    }
    for (; s < splits; ++s) v += longk_read(p + (ulong)s * step);
    return v;
}

// Local size (LK_THREADS, 1, 1); global (ceil(N / TSN) * LK_THREADS, ceil(M / TSM),
// batches * splits). counters: one int per (batch, tile), 0 between launches.
__kernel void GEMM_NAME(
    int M, int N, int K, float alpha, float beta, int transA, int transB,
    __global const float* A, ulong aOff, int lda, ulong strideA0, ulong strideA1,
    __global const float* B, ulong bOff, int ldb, ulong strideB0, ulong strideB1,
    __global float* C, ulong cOff, int ldc, ulong strideC0, ulong strideC1, int batch1,
    int splits, int kChunk, __global float* P, int epi, __global const float* bias, ulong bo,
    int hasBias, __global float* Y, ulong yo, int act, int rowSums, __global float* R, ulong ro,
    ulong rStride, __global int* counters) {
    __local float lanesum[LANES][TSM * TSN];
    __local float lanerow[LANES][TSM];
    __local int lastGroup;
    const int tid = (int)get_local_id(0);
    const int lane = tid / OWNERS, o = tid % OWNERS;
    const int tn = o % RTSN, tm = o / RTSN;
    const int m0 = (int)get_group_id(1) * TSM, n0 = (int)get_group_id(0) * TSN;
    const ulong bi = get_global_id(2) / (ulong)splits;
    const int split = (int)(get_global_id(2) % (ulong)splits);
    const int kBegin = split * kChunk, kEnd = min(K, kBegin + kChunk);
    const ulong i0 = bi / (ulong)batch1, i1 = bi % (ulong)batch1;
    A += aOff + i0 * strideA0 + i1 * strideA1;
    B += bOff + i0 * strideB0 + i1 * strideB1;
    C += cOff + i0 * strideC0 + i1 * strideC1;

    // op(A)[i][k] = A[i * lda + k] (or A[k * lda + i]); op(B)[k][j] = B[k * ldb + j] (or
    // B[j * ldb + k]). Rows and columns past the product read as 0.
    const ulong aStep = transA ? (ulong)lda : 1, bStep = transB ? 1 : (ulong)ldb;
    ulong aRow[WPTM], bCol[WPTN];
    bool aIn[WPTM], bIn[WPTN];
#pragma unroll
    for (int wm = 0; wm < WPTM; ++wm) {
        const int gi = m0 + LK_ROW(tm, wm);
        aIn[wm] = gi < M;
        aRow[wm] = transA ? (ulong)gi : (ulong)gi * lda;
    }
#pragma unroll
    for (int wn = 0; wn < WPTN; ++wn) {
        const int gj = n0 + LK_COL(tn, wn);
        bIn[wn] = gj < N;
        bCol[wn] = transB ? (ulong)gj * ldb : (ulong)gj;
    }
    float acc[WPTM][WPTN];
    float rsum[WPTM];
#pragma unroll
    for (int wm = 0; wm < WPTM; ++wm) {
        rsum[wm] = 0.0f;
#pragma unroll
        for (int wn = 0; wn < WPTN; ++wn) acc[wm][wn] = 0.0f;
    }
#pragma unroll 8
    for (int k = kBegin + lane; k < kEnd; k += LANES) {
        float a[WPTM], b[WPTN];
#pragma unroll
        for (int wm = 0; wm < WPTM; ++wm) a[wm] = aIn[wm] ? A[aRow[wm] + (ulong)k * aStep] : 0.0f;
#pragma unroll
        for (int wn = 0; wn < WPTN; ++wn) b[wn] = bIn[wn] ? B[bCol[wn] + (ulong)k * bStep] : 0.0f;
#pragma unroll
        for (int wm = 0; wm < WPTM; ++wm) {
            rsum[wm] += a[wm];
#pragma unroll
            for (int wn = 0; wn < WPTN; ++wn) acc[wm][wn] += a[wm] * b[wn];
        }
    }
    // The lanes' sums into local memory; each work-item then owns elements e = tid, + LK_THREADS.
#pragma unroll
    for (int wm = 0; wm < WPTM; ++wm) {
#pragma unroll
        for (int wn = 0; wn < WPTN; ++wn)
            lanesum[lane][LK_ROW(tm, wm) * TSN + LK_COL(tn, wn)] = acc[wm][wn];
        if (tn == 0) lanerow[lane][LK_ROW(tm, wm)] = rsum[wm];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int sumRows = rowSums && n0 == 0;
    if (splits == 1) {
        for (int e = tid; e < TSM * TSN; e += LK_THREADS) {
            const int gi = m0 + e / TSN, gj = n0 + e % TSN;
            if (gi >= M || gj >= N) continue;
            float v = 0.0f;
            for (int l = 0; l < LANES; ++l) v += lanesum[l][e];
            longk_store(C, ldc, gi, gj, v, alpha, beta, epi, bias, bo, hasBias, Y, yo, act);
        }
        if (sumRows && tid < TSM && m0 + tid < M) {
            float r = 0.0f;
            for (int l = 0; l < LANES; ++l) r += lanerow[l][tid];
            R[ro + bi * rStride + (ulong)(m0 + tid)] += r;
        }
        return;
    }
    // Split: this group's partial sums into P[batch][split][M][N], its partial row sums after
    // all partial products, at [batch][split][M].
    const ulong mn = (ulong)M * (ulong)N, parts = get_global_size(2);
    __global float* part = P + (bi * (ulong)splits + (ulong)split) * mn;
    __global float* prow = P + parts * mn + bi * (ulong)splits * (ulong)M;
    for (int e = tid; e < TSM * TSN; e += LK_THREADS) {
        const int gi = m0 + e / TSN, gj = n0 + e % TSN;
        if (gi >= M || gj >= N) continue;
        float v = 0.0f;
        for (int l = 0; l < LANES; ++l) v += lanesum[l][e];
        atomic_xchg((volatile __global float*)(part + (ulong)gi * N + gj), v);
    }
    if (sumRows && tid < TSM && m0 + tid < M) {
        float r = 0.0f;
        for (int l = 0; l < LANES; ++l) r += lanerow[l][tid];
        atomic_xchg((volatile __global float*)(prow + (ulong)split * M + (ulong)(m0 + tid)), r);
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    const ulong counter =
        (bi * get_num_groups(1) + get_group_id(1)) * get_num_groups(0) + get_group_id(0);
    if (tid == 0)
        lastGroup = atomic_inc((volatile __global int*)(counters + counter)) == splits - 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!lastGroup) return;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    // The last group of this tile: the splits' sums in split order, then C (and R).
    __global float* parts0 = P + bi * (ulong)splits * mn;
    for (int e = tid; e < TSM * TSN; e += LK_THREADS) {
        const int gi = m0 + e / TSN, gj = n0 + e % TSN;
        if (gi >= M || gj >= N) continue;
        const float v = longk_sum_splits(parts0 + (ulong)gi * N + gj, mn, splits);
        longk_store(C, ldc, gi, gj, v, alpha, beta, epi, bias, bo, hasBias, Y, yo, act);
    }
    if (sumRows && tid < TSM && m0 + tid < M) {
        const float r = longk_sum_splits(prow + (ulong)(m0 + tid), (ulong)M, splits);
        R[ro + bi * rStride + (ulong)(m0 + tid)] += r;
    }
    if (tid == 0) atomic_xchg((volatile __global int*)(counters + counter), 0);
}
