// Matrix products too small for tiling (the per-(sample, head) score products of attention):
// one work-item per element of C, K summed straight from global memory. Same arguments and
// semantics as gemm_tiled (including the bias/activation epilogue); 1-D NDRange over
// batches * M * N. Also the split-K reduction.

__kernel void gemm_small(int M, int N, int K, float alpha, float beta, int transA, int transB,
                         __global const float* A, ulong aOff, int lda, ulong strideA0,
                         ulong strideA1, __global const float* B, ulong bOff, int ldb,
                         ulong strideB0, ulong strideB1, __global float* C, ulong cOff, int ldc,
                         ulong strideC0, ulong strideC1, int batch1, ulong total, int epi,
                         __global const float* bias, ulong bo, int hasBias, __global float* Y,
                         ulong yo, int act) {
    const ulong gid = get_global_id(0);
    if (gid >= total) return;
    const ulong mn = (ulong)M * (ulong)N;
    const ulong bi = gid / mn;
    const int i = (int)((gid % mn) / (ulong)N), j = (int)(gid % (ulong)N);
    const ulong i0 = bi / (ulong)batch1, i1 = bi % (ulong)batch1;
    A += aOff + i0 * strideA0 + i1 * strideA1;
    B += bOff + i0 * strideB0 + i1 * strideB1;
    C += cOff + i0 * strideC0 + i1 * strideC1;
    // op(A)[i][k] = A[i * lda + k] (or A[k * lda + i]); op(B)[k][j] = B[k * ldb + j] (or
    // B[j * ldb + k]).
    const ulong aStep = transA ? (ulong)lda : 1, bStep = transB ? 1 : (ulong)ldb;
    __global const float* a = A + (transA ? (ulong)i : (ulong)i * lda);
    __global const float* b = B + (transB ? (ulong)j * ldb : (ulong)j);
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[k * aStep] * b[k * bStep];
    __global float* c = C + (ulong)i * ldc + j;
    float v = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
    if (epi) {  // as gemm_tiled: one product, z = v + bias, y = f(z)
        if (hasBias) v += bias[bo + j];
        Y[yo + (ulong)i * ldc + j] = nnwb_act(v, act);
    }
    if (epi != 2) *c = v;  // epi 2: Y is C
}

// C = alpha * sum over splits of P[batch][split] + beta * C; 1-D NDRange over batches * M * N,
// then rowTotal (batches * M, or 0) more items for gemm_tiled's row sums (projectionGradient):
// R[ro + batch * rStride + i] += the sum over splits of the partial row sums, which follow the
// partial products in P as [batch][split][M].
__kernel void gemm_reduce_splits(int M, int N, int splits, float alpha, float beta,
                                 __global const float* P, __global float* C, ulong cOff, int ldc,
                                 ulong strideC0, ulong strideC1, int batch1, ulong total,
                                 ulong rowTotal, __global float* R, ulong ro, ulong rStride) {
    const ulong gid = get_global_id(0);
    if (gid >= total) {  // the row sums: R[batch][i] += sum of the splits' partial row sums
        if (gid >= total + rowTotal) return;
        const ulong bi = (gid - total) / (ulong)M;
        const int i = (int)((gid - total) % (ulong)M);
        __global const float* pr = P + total * (ulong)splits + bi * (ulong)splits * (ulong)M + i;
        float acc = 0.0f;
        for (int s = 0; s < splits; ++s) acc += pr[(ulong)s * (ulong)M];
        R[ro + bi * rStride + i] += acc;
        return;
    }
    const ulong mn = (ulong)M * (ulong)N;
    const ulong bi = gid / mn, e = gid % mn;
    const int i = (int)(e / (ulong)N), j = (int)(e % (ulong)N);
    P += bi * (ulong)splits * mn + e;
    float acc = 0.0f;
    for (int s = 0; s < splits; ++s) acc += P[(ulong)s * mn];
    const ulong i0 = bi / (ulong)batch1, i1 = bi % (ulong)batch1;
    __global float* c = C + cOff + i0 * strideC0 + i1 * strideC1 + (ulong)i * ldc + j;
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}
