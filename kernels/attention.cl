// The attention core fused per (sample, head): one work-group per (sample b, head h)
// (compute/Ops.h, AttentionShape, gives the layout; compute/OpenClOps.cpp, forwardLocal and
// backwardLocal, sizes the local arrays and picks about one work-item per 4x4 tile of scores,
// at most 256). Every product runs in register tiles of 4x4 outputs per work-item, so that
// each float4 read from local memory feeds 4 or 8 multiply-adds, the tiles spread over all
// work-items; the host uses these kernels only where the local arrays fit, else composes the
// core from gemm and softmax.
//
// Layouts (u4, d4: rounded up to 4; padding rows and columns hold 0):
// - "row form" products (Out[a][b] = sum_k A[a][k] B[k][b]) read 4 rows of A as float4 along
//   k and 4 rows of B as float4 along b. A's rows are QS-strided (a multiple of 4 whose quarter
//   is odd) so that work-items of one quarter-warp reading different rows hit different banks.
// - "outer form" products (Out[a][b] = sum_k A[k][a] B[k][b]) read one float4 of each per k.
// - Transposed copies (K^T, V^T) are QS-strided too, which makes their loading conflict-free.
// Tiles a work-item computes are indexed with the output's column block fastest, so that a
// quarter-warp shares its rows of A (broadcast) and reads consecutive float4s of B.
// No barrier sits inside a loop or under a condition (PoCL's compiler, see
// docs/decisions/fused-small-batch.md).

#define UP4(n) (((n) + 3) & ~3)
#define QS(n) (4 * ((((n) + 3) >> 2) | 1))
#define L4(base, off) (*(__local float4*)((base) + (off)))

// Loops over the elements lid, lid + lsz, ... of a matrix of n columns by row r and column c
// without a division per element (ROWS_STEP after each).
#define ROWS_BEGIN(n) const int dr_ = lsz / (n), dc_ = lsz % (n);
#define ROWS_STEP(n) \
    c += dc_;        \
    r += dr_;        \
    if (c >= (n)) {  \
        c -= (n);    \
        ++r;         \
    }

// The 4x4 register tile of a row-form product, added to the float4s a0 .. a3 of the caller:
// a_r += sum over k < kEnd (a multiple of 4) of A[min(i0 + r, rows - 1)][k] * B[k][col .. col + 3],
// A's rows lda apart, B's rows ldb apart (both local). Each float4 of A feeds 4 multiply-adds
// with the 4 rows of B read for that k step, in the order a0 .. a3 per k.
#define ATTN_ROW_TILE(A, lda, rows, i0, kEnd, B, ldb, col)                                          \
    {                                                                                             \
        __local const float* r0_ = (A) + min((i0), (rows) - 1) * (lda);                           \
        __local const float* r1_ = (A) + min((i0) + 1, (rows) - 1) * (lda);                       \
        __local const float* r2_ = (A) + min((i0) + 2, (rows) - 1) * (lda);                       \
        __local const float* r3_ = (A) + min((i0) + 3, (rows) - 1) * (lda);                       \
        for (int k_ = 0; k_ < (kEnd); k_ += 4) {                                                  \
            const float4 x0_ = L4(r0_, k_), x1_ = L4(r1_, k_), x2_ = L4(r2_, k_), x3_ = L4(r3_, k_); \
            __local const float* bb_ = (B) + k_ * (ldb) + (col);                                  \
            const float4 b0_ = L4(bb_, 0), b1_ = L4(bb_, (ldb)), b2_ = L4(bb_, 2 * (ldb));         \
            const float4 b3_ = L4(bb_, 3 * (ldb));                                                \
            a0 += x0_.x * b0_;                                                                    \
            a1 += x1_.x * b0_;                                                                    \
            a2 += x2_.x * b0_;                                                                    \
            a3 += x3_.x * b0_;                                                                    \
            a0 += x0_.y * b1_;                                                                    \
            a1 += x1_.y * b1_;                                                                    \
            a2 += x2_.y * b1_;                                                                    \
            a3 += x3_.y * b1_;                                                                    \
            a0 += x0_.z * b2_;                                                                    \
            a1 += x1_.z * b2_;                                                                    \
            a2 += x2_.z * b2_;                                                                    \
            a3 += x3_.z * b2_;                                                                    \
            a0 += x0_.w * b3_;                                                                    \
            a1 += x1_.w * b3_;                                                                    \
            a2 += x2_.w * b3_;                                                                    \
            a3 += x3_.w * b3_;                                                                    \
        }                                                                                         \
    }

// dst[r * ldd + c] = src[r * ld + c] for r < rows, c < cols; 0 for r < rowsPad, c < colsPad.
void attn_load_rows(__local float* dst, int ldd, __global const float* src, int ld, int rows,
                    int rowsPad, int cols, int colsPad, int lid, int lsz) {
    ROWS_BEGIN(colsPad)
    for (int r = lid / colsPad, c = lid % colsPad; r < rowsPad;) {
        dst[r * ldd + c] = r < rows && c < cols ? src[(ulong)r * ld + c] : 0.0f;
        ROWS_STEP(colsPad)
    }
}

// dst[c * ldd + r] = src[r * ld + c] for r < rows (padded to 4), c < cols (padded to 4). Work-items
// go through blocks of 4 rows x 8 columns, columns fastest: 32-byte pieces of global rows, and
// with ldd = QS(...) 32 different banks in local memory.
void attn_load_transposed(__local float* dst, int ldd, __global const float* src, int ld, int rows,
                          int cols, int lid, int lsz) {
    const int nrb = UP4(rows) >> 2, cols4 = UP4(cols), ncb = (cols4 + 7) >> 3;
    for (int e = lid; e < nrb * ncb * 32; e += lsz) {
        const int blk = e >> 5;
        const int r = ((blk % nrb) << 2) + ((e >> 3) & 3), c = ((blk / nrb) << 3) + (e & 7);
        if (c < cols4) dst[c * ldd + r] = r < rows && c < cols ? src[(ulong)r * ld + c] : 0.0f;
    }
}

// Stores 4 consecutive values of a row, as many as lie before `n`.
void attn_store4(__global float* dst, int c, int n, float4 v) {
    if (c + 4 <= n) {
        vstore4(v, 0, dst + c);
        return;
    }
    if (c < n) dst[c] = v.x;
    if (c + 1 < n) dst[c + 1] = v.y;
    if (c + 2 < n) dst[c + 2] = v.z;
}

// P = softmax(scale * Q K^T) (causal: query i sees keys 0..i), C = P V.
// Local: ql Q (u x QS(dk)); kl K^T (dk4 x QS(u)); vl V (u4 x dv4); sl scores (u x QS(u)), then
// the unnormalised exponentials, followed by 1 / (row sum) per row (u).
__kernel void attention_forward(int heads, int units, int dk, int dv, int ldQkv, int ldCtx,
                                float scale, int causal, __global const float* qkv, ulong qo,
                                __global float* p, ulong po, __global float* ctx, ulong co,
                                __local float4* ql4, __local float4* kl4, __local float4* vl4,
                                __local float4* sl4) {
    const int g = (int)get_group_id(0), b = g / heads, h = g % heads;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int u = units, u4 = UP4(u), nb = u4 >> 2, dk4 = UP4(dk), dv4 = UP4(dv);
    const int lq = QS(dk), ls = QS(u);
    __local float* ql = (__local float*)ql4;
    __local float* kl = (__local float*)kl4;
    __local float* vl = (__local float*)vl4;
    __local float* sl = (__local float*)sl4;
    __local float* il = sl + u * ls;
    __global const float* base = qkv + qo + (ulong)b * (ulong)u * (ulong)ldQkv;
    attn_load_rows(ql, lq, base + h * dk, ldQkv, u, u, dk, dk4, lid, lsz);
    attn_load_transposed(kl, ls, base + heads * dk + h * dk, ldQkv, u, dk, lid, lsz);
    attn_load_rows(vl, dv4, base + 2 * heads * dk + h * dv, ldQkv, u, u4, dv, dv4, lid, lsz);
    barrier(CLK_LOCAL_MEM_FENCE);

    // scores, 4 queries x 4 keys per tile (row form: Q rows, K^T rows); fully masked tiles skip
    for (int t = lid; t < nb * nb; t += lsz) {
        const int ib = t / nb, jb = t % nb;
        if (causal && jb > ib) continue;
        const int i0 = ib << 2, j0 = jb << 2;
        float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        ATTN_ROW_TILE(ql, lq, u, i0, dk4, kl, ls, j0)
        L4(sl, i0 * ls + j0) = a0 * scale;
        if (i0 + 1 < u) L4(sl, (i0 + 1) * ls + j0) = a1 * scale;
        if (i0 + 2 < u) L4(sl, (i0 + 2) * ls + j0) = a2 * scale;
        if (i0 + 3 < u) L4(sl, (i0 + 3) * ls + j0) = a3 * scale;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // softmax rows: exponentials in place, 0 past the visible keys (up to u4), 1 / sum aside
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u, full = valid & ~3;
        __local float* row = sl + i * ls;
        float4 m4 = row[0];
        int j = 0;
        for (; j < full; j += 4) m4 = fmax(m4, L4(row, j));
        float mx = fmax(fmax(m4.x, m4.y), fmax(m4.z, m4.w));
        for (; j < valid; ++j) mx = fmax(mx, row[j]);
        float4 s4 = 0.0f;
        for (j = 0; j < full; j += 4) {
            const float4 e = exp(L4(row, j) - mx);
            L4(row, j) = e;
            s4 += e;
        }
        float sum = (s4.x + s4.y) + (s4.z + s4.w);
        for (; j < valid; ++j) {
            const float e = exp(row[j] - mx);
            row[j] = e;
            sum += e;
        }
        for (; j < u4; ++j) row[j] = 0.0f;
        il[i] = 1.0f / sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // context, 4 queries x 4 values per tile (row form: score rows, V rows), scaled by 1 / sum
    __global float* C = ctx + co + (ulong)b * (ulong)u * (ulong)ldCtx + h * dv;
    const int ncb = dv4 >> 2;
    for (int t = lid; t < nb * ncb; t += lsz) {
        const int ib = t / ncb, c0 = (t % ncb) << 2, i0 = ib << 2;
        const int jEnd = causal ? min(u4, i0 + 4) : u4;
        float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        ATTN_ROW_TILE(sl, ls, u, i0, jEnd, vl, dv4, c0)
        attn_store4(C + (ulong)i0 * ldCtx, c0, dv, a0 * il[i0]);
        if (i0 + 1 < u) attn_store4(C + (ulong)(i0 + 1) * ldCtx, c0, dv, a1 * il[i0 + 1]);
        if (i0 + 2 < u) attn_store4(C + (ulong)(i0 + 2) * ldCtx, c0, dv, a2 * il[i0 + 2]);
        if (i0 + 3 < u) attn_store4(C + (ulong)(i0 + 3) * ldCtx, c0, dv, a3 * il[i0 + 3]);
    }
    // P in consecutive addresses (coalesced)
    __global float* P = p + po + (ulong)g * (ulong)u * (ulong)u;
    ROWS_BEGIN(u)
    for (int r = lid / u, c = lid % u; r < u;) {
        P[r * u + c] = sl[r * ls + c] * il[r];
        ROWS_STEP(u)
    }
}

// From dC to dQ, dK and dV (overwritten in dqkv's Q, K and V columns):
// dV = P^T dC, dP = dC V^T, dS = scale * P * (dP - rowsum(dP * P)), dQ = dS K, dK = dS^T Q.
// Local: kl K (u4 x dk4); vq V^T (dv4 x QS(u)), then Q (u x dk4); dcl dC (u x QS(dv)); sl P
// (u x QS(u), 0 from u to u4), then P * dP, then dS, followed by rowsum(dP * P) per row (u).
__kernel void attention_backward(int heads, int units, int dk, int dv, int ldQkv, int ldCtx,
                                 float scale, int causal, __global const float* qkv, ulong qo,
                                 __global const float* p, ulong po, __global const float* dctx,
                                 ulong dco, __global float* dqkv, ulong dqo, __local float4* kl4,
                                 __local float4* vq4, __local float4* dcl4, __local float4* sl4) {
    const int g = (int)get_group_id(0), b = g / heads, h = g % heads;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int u = units, u4 = UP4(u), nb = u4 >> 2, dk4 = UP4(dk), dv4 = UP4(dv);
    const int lc = QS(dv), ls = QS(u);
    __local float* kl = (__local float*)kl4;
    __local float* vq = (__local float*)vq4;
    __local float* dcl = (__local float*)dcl4;
    __local float* sl = (__local float*)sl4;
    __local float* dl = sl + u * ls;
    const ulong rowsOff = (ulong)b * (ulong)u * (ulong)ldQkv;
    __global const float* base = qkv + qo + rowsOff;
    __global const float* P = p + po + (ulong)g * (ulong)u * (ulong)u;
    __global float* dbase = dqkv + dqo + rowsOff;
    attn_load_rows(kl, dk4, base + heads * dk + h * dk, ldQkv, u, u4, dk, dk4, lid, lsz);
    attn_load_transposed(vq, ls, base + 2 * heads * dk + h * dv, ldQkv, u, dv, lid, lsz);
    attn_load_rows(dcl, lc, dctx + dco + (ulong)b * (ulong)u * (ulong)ldCtx + h * dv, ldCtx, u, u,
                   dv, dv4, lid, lsz);
    attn_load_rows(sl, ls, P, u, u, u, u, u4, lid, lsz);
    barrier(CLK_LOCAL_MEM_FENCE);

    // dV, 4 keys x 4 values per tile (outer form: P rows, dC rows); causal: queries i >= key
    const int ncv = dv4 >> 2;
    for (int t = lid; t < nb * ncv; t += lsz) {
        const int j0 = (t / ncv) << 2, c0 = (t % ncv) << 2;
        float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        for (int i = causal ? j0 : 0; i < u; ++i) {
            const float4 s = L4(sl, i * ls + j0), d = L4(dcl, i * lc + c0);
            a0 += s.x * d;
            a1 += s.y * d;
            a2 += s.z * d;
            a3 += s.w * d;
        }
        __global float* dvr = dbase + (ulong)j0 * ldQkv + 2 * heads * dk + h * dv;
        attn_store4(dvr, c0, dv, a0);
        if (j0 + 1 < u) attn_store4(dvr + ldQkv, c0, dv, a1);
        if (j0 + 2 < u) attn_store4(dvr + 2 * (ulong)ldQkv, c0, dv, a2);
        if (j0 + 3 < u) attn_store4(dvr + 3 * (ulong)ldQkv, c0, dv, a3);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // P * dP in place of P, 4 queries x 4 keys per tile (row form: dC rows, V^T rows); fully
    // masked tiles keep P's zeros
    for (int t = lid; t < nb * nb; t += lsz) {
        const int ib = t / nb, jb = t % nb;
        if (causal && jb > ib) continue;
        const int i0 = ib << 2, j0 = jb << 2;
        float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        ATTN_ROW_TILE(dcl, lc, u, i0, dv4, vq, ls, j0)
        __local float* s = sl + i0 * ls + j0;
        L4(s, 0) *= a0;
        if (i0 + 1 < u) L4(s, ls) *= a1;
        if (i0 + 2 < u) L4(s, 2 * ls) *= a2;
        if (i0 + 3 < u) L4(s, 3 * ls) *= a3;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // rowsum(P * dP) over the visible keys; Q in place of V^T
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u, full = valid & ~3;
        __local const float* row = sl + i * ls;
        float4 s4 = 0.0f;
        int j = 0;
        for (; j < full; j += 4) s4 += L4(row, j);
        float dot = (s4.x + s4.y) + (s4.z + s4.w);
        for (; j < valid; ++j) dot += row[j];
        dl[i] = dot;
    }
    attn_load_rows(vq, dk4, base + h * dk, ldQkv, u, u, dk, dk4, lid, lsz);
    barrier(CLK_LOCAL_MEM_FENCE);

    // dS in place (P read from global, coalesced), 0 past the visible keys up to u4
    ROWS_BEGIN(u4)
    for (int r = lid / u4, c = lid % u4; r < u;) {
        __local float* s = sl + r * ls + c;
        *s = c <= r || (!causal && c < u) ? scale * (*s - P[r * u + c] * dl[r]) : 0.0f;
        ROWS_STEP(u4)
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // dQ tiles (4 queries x 4 columns; row form: dS rows, K rows), then dK tiles (4 keys x 4
    // columns; outer form: dS rows, Q rows), all in one pass over the work-items
    const int nck = dk4 >> 2, nq = nb * nck;
    for (int t = lid; t < 2 * nq; t += lsz) {
        float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        if (t < nq) {
            const int i0 = (t / nck) << 2, k0 = (t % nck) << 2;
            const int jEnd = causal ? min(u4, i0 + 4) : u4;
            ATTN_ROW_TILE(sl, ls, u, i0, jEnd, kl, dk4, k0)
            __global float* dq = dbase + (ulong)i0 * ldQkv + h * dk;
            attn_store4(dq, k0, dk, a0);
            if (i0 + 1 < u) attn_store4(dq + ldQkv, k0, dk, a1);
            if (i0 + 2 < u) attn_store4(dq + 2 * (ulong)ldQkv, k0, dk, a2);
            if (i0 + 3 < u) attn_store4(dq + 3 * (ulong)ldQkv, k0, dk, a3);
        } else {
            const int tk = t - nq, j0 = (tk / nck) << 2, k0 = (tk % nck) << 2;
            for (int i = causal ? j0 : 0; i < u; ++i) {
                const float4 s = L4(sl, i * ls + j0), q = L4(vq, i * dk4 + k0);
                a0 += s.x * q;
                a1 += s.y * q;
                a2 += s.z * q;
                a3 += s.w * q;
            }
            __global float* dkr = dbase + (ulong)j0 * ldQkv + heads * dk + h * dk;
            attn_store4(dkr, k0, dk, a0);
            if (j0 + 1 < u) attn_store4(dkr + ldQkv, k0, dk, a1);
            if (j0 + 2 < u) attn_store4(dkr + 2 * (ulong)ldQkv, k0, dk, a2);
            if (j0 + 3 < u) attn_store4(dkr + 3 * (ulong)ldQkv, k0, dk, a3);
        }
    }
}
