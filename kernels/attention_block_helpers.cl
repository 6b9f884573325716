// Helpers of the fused attention block kernels (kernels/attention_block.cl: the whole block in a
// work-group per sample; kernels/attention_block_split.cl: the block in four launches where it
// does not fit local memory). The backend prepends this file (after common.cl) to every
// attention_block*.cl file; it holds no kernels of its own. Conventions: a sample's rows live in
// local memory, sizes in floats: U units, W window, H heads, D key size, Dv value size,
// Q = H (2 D + Dv), C = H Dv, F = 4 W, L the local size (a power of two). Global memory is read
// only in whole tiles: each product first stages its weights (or the activation rows it
// multiplies) into the staging area `wl`, every work-item issuing BLK_INFLIGHT loads before it
// stores, then runs from local memory. Stages end with a barrier; within a stage work-item `lid`
// takes elements lid, lid + L, ... PoCL's compiler is slow over barriers under a condition or in
// loops: every helper is reached by the whole work-group, with sizes (not branches) switching
// parts off.
//
// The parameters, in order (BlockParam in compute/Ops.h; the ulong8 offset/stride arguments
// hold one component per parameter): qkv.weight [Q][W], qkv.bias [Q], w0.weight [W][C],
// w0.bias [W], ff1.weight [F][W], ff1.bias [F], ff2.weight [W][F], ff2.bias [W].

#define BLK_INFLIGHT 8

// The arguments of the forward kernels (attention_block_forward and the split forward kernels;
// the host sets them alike): the sizes, the input, the parameters (pointer, then the offsets and
// strides of a model's values, BlockParam order) and the activation buffers AttentionBlock keeps.
#define BLK_FORWARD_PARAMS                                                                     \
    int units, int window, int heads, int dk, int dv, int hasW0, int causal, int seqNorm,      \
    int hidden, int ffOut, float eps, float scale, int samplesPerModel, int headGroup,         \
    __global const float* x, ulong xo, __global const float* wqkv, __global const float* bqkv, \
    __global const float* w0, __global const float* b0, __global const float* w1,              \
    __global const float* b1, __global const float* w2, __global const float* b2, ulong8 woff, \
    ulong8 wstride, __global float* qkv, ulong qkvo, __global float* p, ulong po,              \
    __global float* ctx, ulong co, __global float* x1, ulong x1o, __global float* rstd1,       \
    ulong r1o, __global float* z1, ulong z1o, __global float* h1, ulong h1o, __global float* z2, \
    ulong z2o, __global float* f, ulong fo, __global float* out, ulong oo,                     \
    __global float* rstd2, ulong r2o

// The arguments of the backward kernels (attention_block_backward and the split backward
// kernels): the sizes, X, dY and dX, the parameters and their gradients, the partials, the
// forward's activations and the spread backward's dX parts and counters.
#define BLK_BACKWARD_PARAMS                                                                    \
    int units, int window, int heads, int dk, int dv, int hasW0, int causal, int seqNorm,      \
    int hidden, int ffOut, float scale, int samplesPerModel, int headGroup, int direct,        \
    __global const float* x, ulong xo, __global const float* dy, ulong dyo, __global float* dx, \
    ulong dxo, int hasDx, __global const float* wqkv, __global const float* bqkv,              \
    __global const float* w0, __global const float* b0, __global const float* w1,              \
    __global const float* b1, __global const float* w2, __global const float* b2, ulong8 woff, \
    ulong8 wstride, __global float* gqkv, __global float* gbqkv, __global float* gw0,          \
    __global float* gb0, __global float* gw1, __global float* gb1, __global float* gw2,        \
    __global float* gb2, ulong8 goff, ulong8 gstride, __global float* partial,                 \
    __global const float* qkv, ulong qkvo, __global const float* p, ulong po,                  \
    __global const float* ctx, ulong co, __global const float* x1, ulong x1o,                  \
    __global const float* rstd1, ulong r1o, __global const float* z1, ulong z1o,               \
    __global const float* h1, ulong h1o, __global const float* z2, ulong z2o,                  \
    __global const float* f, ulong fo, __global const float* out, ulong oo,                    \
    __global const float* rstd2, ulong r2o, int spread, __global float* dxPart, ulong dpo,     \
    __global int* counters

// A block kernel's sample b (work-groups b * spread .. b * spread + spread - 1; piece: this
// group's index among them) and model m, lid and lsz, and the sizes of the header above from the
// kernel's arguments: u = U, w = W, q = Q, c = C, ff = F, hd = H D, uw = U W.
#define BLK_SAMPLE_SIZES(spread)                                                               \
    const int b = (int)get_group_id(0) / (spread), piece = (int)get_group_id(0) % (spread);    \
    const int m = b / samplesPerModel;                                                         \
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);                        \
    const int u = units, w = window, q = heads * (2 * dk + dv), c = heads * dv, ff = 4 * w;    \
    const int hd = heads * dk, uw = u * w;

// dst[r * ds + j] = src[r * ld + c0 + j] for r < rows, j < cols, then a barrier.
void blk_stage(__local float* dst, int ds, __global const float* src, int ld, int c0, int rows,
               int cols) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0), n = rows * cols;
    const bool flat = rows == 1 || (ds == cols && ld == cols);  // one contiguous run
    if (flat) src += c0;
    for (int e0 = lid; e0 < n; e0 += BLK_INFLIGHT * lsz) {
        float v[BLK_INFLIGHT];
#pragma unroll
        for (int t = 0; t < BLK_INFLIGHT; ++t) {
            const int e = e0 + t * lsz;
            v[t] = e >= n ? 0.0f : flat ? src[e] : src[(e / cols) * ld + c0 + e % cols];
        }
#pragma unroll
        for (int t = 0; t < BLK_INFLIGHT; ++t) {
            const int e = e0 + t * lsz;
            if (e < n) dst[flat ? e : (e / cols) * ds + e % cols] = v[t];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// out[r * os + j] = (bias ? bias[j] : 0) + sum_k a[r * la + k] wl[j * js + k * ks] for r < u,
// j < n, from local memory, then a barrier. Four rows r0 .. r0 + 3 per work-item (clamped to
// u - 1; only rows below u are stored), so that each weight value read feeds four independent
// sums: one work-group per sample is latency-bound, and one sum per work-item waited on every
// local read.
void blk_product4(__local float* out, int os, __local const float* a, int la, int u, int K,
                  __local const float* wl, int js, int ks, int n, __global const float* bias,
                  int hasBias) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    for (int e = lid; e < ((u + 3) / 4) * n; e += lsz) {
        const int r0 = (e / n) * 4, j = e % n;
        __local const float* wj = wl + j * js;
        __local const float* a0 = a + r0 * la;
        __local const float* a1 = a + min(r0 + 1, u - 1) * la;
        __local const float* a2 = a + min(r0 + 2, u - 1) * la;
        __local const float* a3 = a + min(r0 + 3, u - 1) * la;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
#pragma unroll 4
        for (int k = 0; k < K; ++k) {
            const float wv = wj[k * ks];
            s0 += a0[k] * wv;
            s1 += a1[k] * wv;
            s2 += a2[k] * wv;
            s3 += a3[k] * wv;
        }
        const float bj = hasBias ? bias[j] : 0.0f;
        out[r0 * os + j] = bj + s0;
        if (r0 + 1 < u) out[(r0 + 1) * os + j] = bj + s1;
        if (r0 + 2 < u) out[(r0 + 2) * os + j] = bj + s2;
        if (r0 + 3 < u) out[(r0 + 3) * os + j] = bj + s3;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// out[r * os + j] = bias[j] + sum_k a[r * K + k] W[j * K + k] for r < u, j < n (W [n][K] global,
// staged into wl with row stride K | 1: no bank conflicts). No loop around the barriers: PoCL's
// compiler takes minutes over a kernel with many (the host sizes wl for every product at once).
void blk_rows_product(__local float* out, int os, __local const float* a, int u, int K,
                      __global const float* W, __global const float* bias, int n,
                      __local float* wl) {
    const int kp = K | 1;
    blk_stage(wl, kp, W, K, 0, n, K);
    blk_product4(out, os, a, K, u, K, wl, kp, 1, n, bias, 1);
}

// out[r * os + j] = sum_o a[r * K + o] W[o * n + j] for r < u, j < n (W [K][n] global, staged
// into wl).
void blk_cols_product(__local float* out, int os, __local const float* a, int u, int K,
                      __global const float* W, int n, __local float* wl) {
    blk_stage(wl, n, W, n, 0, K, n);
    blk_product4(out, os, a, K, u, K, wl, 1, n, n, W, 0);
}

// Parameter gradient values v[t] at idx[t] (those with ok[t]): added to the model's gradient
// (direct: the model's only sample; the four loads first) or stored in the sample's row of
// partials for attention_block_reduce.
void blk_grads4(__global float* g, __global float* part, int direct, const int* idx,
                const float* v, const bool* ok) {
    if (direct) {
        float old[4];
#pragma unroll
        for (int t = 0; t < 4; ++t) old[t] = ok[t] ? g[idx[t]] : 0.0f;
#pragma unroll
        for (int t = 0; t < 4; ++t)
            if (ok[t]) g[idx[t]] = old[t] + v[t];
    } else {
#pragma unroll
        for (int t = 0; t < 4; ++t)
            if (ok[t]) part[idx[t]] = v[t];
    }
}

// The weight gradient dW[o][j] = sum_r a[r * la + o] B[r * n + j] for oa <= o < ob, j < n (a
// local [U][la], B global [U][n], staged into wl unless `staged`: already there), four o per
// work-item, through blk_grads4.
void blk_weight_grad(__global float* g, __global float* part, int direct, __local const float* a,
                     int la, int u, int oa, int ob, __global const float* B, int n, int staged,
                     __local float* wl) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    blk_stage(wl, n, B, n, 0, staged ? 0 : u, n);  // (no barrier under a condition: PoCL)
    for (int e = lid; e < ((ob - oa + 3) / 4) * n; e += lsz) {
        const int o0 = oa + (e / n) * 4, j = e % n;
        const int o1 = min(o0 + 1, ob - 1), o2 = min(o0 + 2, ob - 1), o3 = min(o0 + 3, ob - 1);
        float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 4
        for (int r = 0; r < u; ++r) {
            const float bv = wl[r * n + j];
            __local const float* ar = a + r * la;
            s[0] += ar[o0] * bv;
            s[1] += ar[o1] * bv;
            s[2] += ar[o2] * bv;
            s[3] += ar[o3] * bv;
        }
        const int idx[4] = {o0 * n + j, o1 * n + j, o2 * n + j, o3 * n + j};
        const bool ok[4] = {true, o0 + 1 < ob, o0 + 2 < ob, o0 + 3 < ob};
        blk_grads4(g, part, direct, idx, s, ok);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// The bias gradient db[o] = sum_r a[r * la + o] for oa <= o < ob: added (direct) or stored.
void blk_bias_grad(__global float* g, __global float* part, int direct, __local const float* a,
                   int la, int u, int oa, int ob) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    for (int o = oa + lid; o < ob; o += lsz) {
        float s = 0.0f;
        for (int r = 0; r < u; ++r) s += a[r * la + o];
        if (direct)
            g[o] += s;
        else
            part[o] = s;
    }
}

// [oa, ob): piece p's share of n values split over `spread` work-groups.
int2 blk_share(int n, int p, int spread) {
    return (int2)(p * n / spread, (p + 1) * n / spread);
}

// sum over k < n of a[k] * b[k], both in local memory, four at a time
float blk_ldot(__local const float* a, __local const float* b, int n) {
    float s = 0.0f;
#pragma unroll 4
    for (int k = 0; k < n; ++k) s += a[k] * b[k];
    return s;
}

// Layer norm in place of the u rows of w values at v (seqNorm: one mean and variance over all
// u * w values of the sample), two passes as the CPU reference; the normalized values also go to
// y (global) and 1 / sqrt(var + eps) to rstd[0 .. u) (seqNorm: rstd[0]). red holds L floats.
void blk_norm(__local float* v, int u, int w, int seqNorm, float eps, __global float* y,
              __global float* rstd, __local float* red) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (seqNorm) {
        const int n = u * w;
        float s = 0.0f;
        for (int e = lid; e < n; e += lsz) s += v[e];
        const float mean = nnwb_group_sum(red, s) / (float)n;
        float q = 0.0f;
        for (int e = lid; e < n; e += lsz) {
            const float d = v[e] - mean;
            q += d * d;
        }
        const float rs = 1.0f / sqrt(nnwb_group_sum(red, q) / (float)n + eps);
        for (int e = lid; e < n; e += lsz) {
            v[e] = (v[e] - mean) * rs;
            y[e] = v[e];
        }
        if (lid == 0) rstd[0] = rs;
    } else {
        for (int r = lid; r < u; r += lsz) {
            __local float* row = v + r * w;
            float s = 0.0f;
            for (int k = 0; k < w; ++k) s += row[k];
            const float mean = s / (float)w;
            float q = 0.0f;
            for (int k = 0; k < w; ++k) q += (row[k] - mean) * (row[k] - mean);
            const float rs = 1.0f / sqrt(q / (float)w + eps);
            for (int k = 0; k < w; ++k) {
                row[k] = (row[k] - mean) * rs;
                y[r * w + k] = row[k];
            }
            rstd[r] = rs;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// The norm's backward in place: g = rstd * (g - mean(g) - y * mean(g * y)) per row (seqNorm:
// over the sample), y and rstd the forward's (global). red holds 2 L floats.
void blk_norm_backward(__local float* g, __global const float* y, __global const float* rstd,
                       int u, int w, int seqNorm, __local float* red) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (seqNorm) {
        const int n = u * w;
        float a = 0.0f, c = 0.0f;
        for (int e = lid; e < n; e += lsz) {
            a += g[e];
            c += g[e] * y[e];
        }
        const float2 m = nnwb_group_sum2(red, a, c) / (float)n;
        const float rs = rstd[0];
        for (int e = lid; e < n; e += lsz) g[e] = rs * (g[e] - m.x - y[e] * m.y);
    } else {
        for (int r = lid; r < u; r += lsz) {
            __local float* row = g + r * w;
            __global const float* yr = y + r * w;
            float a = 0.0f, c = 0.0f;
            for (int k = 0; k < w; ++k) {
                a += row[k];
                c += row[k] * yr[k];
            }
            a /= (float)w;
            c /= (float)w;
            const float rs = rstd[r];
            for (int k = 0; k < w; ++k) row[k] = rs * (row[k] - a - yr[k] * c);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// Values of each parameter of one model (BlockParam order) and their sum.
int blk_param_counts(int w, int heads, int dk, int dv, int hasW0, int n[8]) {
    const int q = heads * (2 * dk + dv), c = heads * dv, f = 4 * w;
    n[0] = q * w;
    n[1] = q;
    n[2] = hasW0 ? w * c : 0;
    n[3] = hasW0 ? w : 0;
    n[4] = f * w;
    n[5] = f;
    n[6] = w * f;
    n[7] = w;
    int total = 0;
    for (int i = 0; i < 8; ++i) total += n[i];
    return total;
}
// Stages 5-9 of the block forward for one sample, from X (xs [U W]) and the context C (cs
// [U C]) in local memory: X1 = norm(X + C W0^T + b0) (or X + C) into x1s, H1 = hidden(X1 W1^T +
// b1) into hs [U F] (hs may share cs's memory: C is read only by stage 5), F = ffOut(H1 W2^T +
// b2), out = norm(X1 + F) into xs. red: L floats; wl: the staging area. The global pointers are
// the sample's: its rows of x1, z1, h1, z2, f and out, its rstd1 and rstd2 values.
void blk_forward_tail(int u, int w, int c, int hasW0, int seqNorm, int hidden, int ffOut,
                      float eps, __local float* xs, __local const float* cs, __local float* x1s,
                      __local float* hs, __local float* red, __local float* wl,
                      __global const float* W0, __global const float* B0,
                      __global const float* W1, __global const float* B1,
                      __global const float* W2, __global const float* B2, __global float* x1,
                      __global float* rstd1, __global float* z1, __global float* h1,
                      __global float* z2, __global float* f, __global float* out,
                      __global float* rstd2) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int uw = u * w, ff = 4 * w;
    // 5. X + A with A = C W0^T + b0 (or C)
    // (no barrier under a condition: PoCL's compiler replicates the code after one)
    blk_rows_product(x1s, w, cs, u, c, W0, B0, hasW0 ? w : 0, wl);
    for (int e = lid; e < uw; e += lsz) x1s[e] = (hasW0 ? x1s[e] : cs[e]) + xs[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    // 6. X1 = norm(X + A)
    blk_norm(x1s, u, w, seqNorm, eps, x1, rstd1, red);
    // 7. Z1 = X1 W1^T + b1, H1 = hidden(Z1)
    blk_rows_product(hs, ff, x1s, u, w, W1, B1, ff, wl);
    for (int e = lid; e < u * ff; e += lsz) {
        const float z = hs[e], hv = nnwb_act(z, hidden);
        hs[e] = hv;
        z1[e] = z;
        h1[e] = hv;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 8. Z2 = H1 W2^T + b2, F = ffOut(Z2); X1 + F into xs
    blk_rows_product(xs, w, hs, u, ff, W2, B2, w, wl);
    for (int e = lid; e < uw; e += lsz) {
        const float zz = xs[e], fv = nnwb_act(zz, ffOut);
        z2[e] = zz;
        f[e] = fv;
        xs[e] = x1s[e] + fv;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 9. out = norm(X1 + F)
    blk_norm(xs, u, w, seqNorm, eps, out, rstd2, red);
}

// Stages 1-6 of the block backward for one sample: dR2 = the norm 2 backward of dY (ga [U W]),
// dZ2 (gb [U W]), dW2, db2 and dZ1 (gh [U F]), dW1, db1 and dX1 + dR2 (gx [U W]), dR1 = dA =
// the norm 1 backward (gx), dW0, db0 and dC (gc [U C]; gc may share gh's memory). Only output
// rows sw (of W: dW2, dW0 and their biases) and sf (of F: dW1, db1) of the weight gradients.
// red: 2 L floats; wl: the staging area. The global pointers are the sample's: its rows of dy,
// out, z2, f, x1, z1, h1 and ctx, its rstd values; p2 .. p7 its partial rows of parameters 2 .. 7.
void blk_backward_rows(int u, int w, int c, int hasW0, int seqNorm, int hidden, int ffOut,
                       int direct, int2 sw, int2 sf, __local float* ga, __local float* gb,
                       __local float* gx, __local float* gh, __local float* gc,
                       __local float* red, __local float* wl, __global const float* dy,
                       __global const float* out, __global const float* rstd2,
                       __global const float* z2, __global const float* f,
                       __global const float* X1, __global const float* rstd1,
                       __global const float* Z1, __global const float* H1,
                       __global const float* Cg, __global const float* W0,
                       __global const float* W1, __global const float* W2, __global float* G0,
                       __global float* Gb0, __global float* G1, __global float* Gb1,
                       __global float* G2, __global float* Gb2, __global float* p2,
                       __global float* p3, __global float* p4, __global float* p5,
                       __global float* p6, __global float* p7) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int uw = u * w, ff = 4 * w;
    // 1. dR2 = norm 2 backward of dY (y = out)
    blk_stage(ga, uw, dy, uw, 0, 1, uw);
    blk_norm_backward(ga, out, rstd2, u, w, seqNorm, red);
    // 2. dZ2 = dF * ffOut'(Z2), dF = dR2
    for (int e = lid; e < uw; e += lsz) gb[e] = ga[e] * nnwb_act_grad(z2[e], f[e], ffOut);
    barrier(CLK_LOCAL_MEM_FENCE);
    // 3. dW2 = dZ2^T H1, db2 = column sums of dZ2, dZ1 = (dZ2 W2) * hidden'(Z1)
    blk_weight_grad(G2, p6, direct, gb, w, u, sw.x, sw.y, H1, ff, 0, wl);
    blk_bias_grad(Gb2, p7, direct, gb, w, u, sw.x, sw.y);
    blk_cols_product(gh, ff, gb, u, w, W2, ff, wl);
    for (int e = lid; e < u * ff; e += lsz) gh[e] *= nnwb_act_grad(Z1[e], H1[e], hidden);
    barrier(CLK_LOCAL_MEM_FENCE);
    // 4. dW1 = dZ1^T X1, db1, and dX1 + dR2 = dZ1 W1 + dR2 (the residual)
    blk_weight_grad(G1, p4, direct, gh, ff, u, sf.x, sf.y, X1, w, 0, wl);
    blk_bias_grad(Gb1, p5, direct, gh, ff, u, sf.x, sf.y);
    blk_cols_product(gx, w, gh, u, ff, W1, w, wl);
    for (int e = lid; e < uw; e += lsz) gx[e] += ga[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    // 5. dR1 = dA = norm 1 backward (y = X1)
    blk_norm_backward(gx, X1, rstd1, u, w, seqNorm, red);
    // 6. dW0 = dA^T C, db0, dC = dA W0 (or dC = dA)
    // (no barrier under a condition: PoCL's compiler replicates the code after one)
    if (hasW0) blk_bias_grad(Gb0, p3, direct, gx, w, u, sw.x, sw.y);
    blk_weight_grad(G0, p2, direct, gx, w, u, sw.x, sw.y, Cg, hasW0 ? c : 0, 0, wl);
    blk_cols_product(gc, c, gx, u, w, W0, hasW0 ? c : 0, wl);
    if (!hasW0)
        for (int e = lid; e < u * c; e += lsz) gc[e] = gx[e];
    barrier(CLK_LOCAL_MEM_FENCE);
}

// Stages 7-9 of the block backward for heads h0 .. h0 + hn - 1 of one sample: their Q, K and V
// columns staged from QKVg (the sample's QKV rows [U][q], hd = H D) into wl and their P from
// Pg into ps [hn][U][U]; then dV = P^T dC, dS = scale * P * (dP - rowsum(dP * P)) in place of
// P with dP = dC V^T, dQ = dS K and dK = dS^T Q, from dC at dc[i * ldc + hl * dv + d] (hl the
// head within the group). dQ, dK and dV go to dqo, dko and dvo (row stride ld, the group's
// columns from 0).
void blk_heads_backward(int u, int h0, int hn, int dk, int dv, int q, int hd, int causal,
                        float scale, __global const float* QKVg, __global const float* Pg,
                        __local const float* dc, int ldc, __local float* ps, __local float* wl,
                        __local float* dqo, __local float* dko, __local float* dvo, int ld) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int gk = hn * dk, gv = hn * dv;
    // the group's Q, K and V columns: [U][G D], [U][G D], [U][G Dv]
    __local float* qg = wl;
    __local float* kg = qg + u * gk;
    __local float* vg = kg + u * gk;
    blk_stage(qg, gk, QKVg, q, h0 * dk, u, gk);
    blk_stage(kg, gk, QKVg, q, hd + h0 * dk, u, gk);
    blk_stage(vg, gv, QKVg, q, 2 * hd + h0 * dv, u, gv);
    blk_stage(ps, hn * u * u, Pg + h0 * u * u, 0, 0, 1, hn * u * u);
    // 7. dV_h = P_h^T dC_h (key j: only queries i >= j see it when causal)
    for (int e = lid; e < u * gv; e += lsz) {
        const int j = e / gv, cl = e % gv, hl = cl / dv;
        const int first = causal ? j : 0;
        __local const float* pc = ps + hl * u * u + j;  // column j of P_h
        float s = 0.0f;
#pragma unroll 4
        for (int i = first; i < u; ++i) s += pc[i * u] * dc[i * ldc + cl];
        dvo[j * ld + cl] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 8. dS = scale * P * (dP - rowsum(dP * P)) with dP = dC_h V_h^T, in place of P's rows
    for (int t = lid; t < hn * u; t += lsz) {
        const int hl = t / u, i = t % u, valid = causal ? i + 1 : u;
        __local float* row = ps + t * u;
        __local const float* dci = dc + i * ldc + hl * dv;
        float dot = 0.0f;
        for (int j = 0; j < valid; ++j) {
            dot += row[j] * blk_ldot(dci, vg + j * gv + hl * dv, dv);
        }
        for (int j = 0; j < u; ++j) {
            const float d = j < valid ? blk_ldot(dci, vg + j * gv + hl * dv, dv) : 0.0f;
            row[j] = j < valid ? scale * row[j] * (d - dot) : 0.0f;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 9. dQ_h = dS_h K_h, dK_h = dS_h^T Q_h
    for (int e = lid; e < u * gk; e += lsz) {
        const int i = e / gk, cl = e % gk, hl = cl / dk;
        const int valid = causal ? i + 1 : u;
        __local const float* row = ps + (hl * u + i) * u;
        float s = 0.0f;
#pragma unroll 4
        for (int j = 0; j < valid; ++j) s += row[j] * kg[j * gk + cl];
        dqo[i * ld + cl] = s;
    }
    for (int e = lid; e < u * gk; e += lsz) {
        const int j = e / gk, cl = e % gk, hl = cl / dk;
        const int first = causal ? j : 0;
        __local const float* sc = ps + hl * u * u + j;  // column j of dS_h
        float s = 0.0f;
#pragma unroll 4
        for (int i = first; i < u; ++i) s += sc[i * u] * qg[i * gk + cl];
        dko[j * ld + cl] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// dX = base + ga over the uw values of one sample (only with hasDx). With parts (the sample
// takes `spread` work-groups, this one `piece`): each group stores its ga in dxp[piece] and
// counts itself on *counter; the last of the sample's groups to arrive adds base and the parts
// in piece order (the same bits whichever arrives last) and sets the counter back to 0
// (gemm_longk's scheme: atomics for the parts, no barrier after the count). last: one local int.
void blk_dx_finish(__local const float* ga, __local const float* base, int parts, int piece,
                   int spread, int hasDx, __global float* dxp, __global int* counter,
                   __global float* dx, int uw, __local int* last) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    for (int e = lid; e < (parts ? uw : 0); e += lsz)
        atomic_xchg((volatile __global float*)(dxp + (ulong)piece * (ulong)uw + (ulong)e), ga[e]);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (lid == 0) *last = parts ? atomic_inc((volatile __global int*)counter) == spread - 1 : 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!hasDx || !*last) return;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    for (int e = lid; e < uw; e += lsz) {
        float v = parts ? 0.0f : ga[e];
        for (int k = 0; k < (parts ? spread : 0); ++k)
            v += as_float(atomic_or((volatile __global int*)(dxp + (ulong)k * uw + (ulong)e), 0));
        dx[e] = base[e] + v;
    }
    if (parts && lid == 0) atomic_xchg((volatile __global int*)counter, 0);
}

// Stages 3-4 of the block forward for heads h0 .. h0 + hn - 1 of one sample (hl = 0 .. hn - 1
// the head within the group): one row of P per (head, query), the softmax of the scaled scores
// over the visible keys, into ps [hn][U][U] and Pg (the sample's P from head h0 on); then the
// context C_h = P_h V_h into co[i * ldo + hl * dv + d]. Q, K and V of query or key i at
// qs + i * ld + (qo + hl * dk | ko + hl * dk | vo + hl * dv).
void blk_heads_forward(int u, int hn, int dk, int dv, int causal, float scale,
                       __local const float* qs, int ld, int qo, int ko, int vo, __local float* ps,
                       __global float* Pg, __local float* co, int ldo) {
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    // 3. one row of P per (head, query): softmax of the scaled scores over the visible keys
    for (int t = lid; t < hn * u; t += lsz) {
        const int hl = t / u, i = t % u, valid = causal ? i + 1 : u;
        __local float* row = ps + t * u;
        __local const float* qi = qs + i * ld + qo + hl * dk;
        float mx = -INFINITY;
        for (int j = 0; j < valid; ++j) {
            __local const float* kj = qs + j * ld + ko + hl * dk;
            row[j] = blk_ldot(qi, kj, dk) * scale;
            mx = fmax(mx, row[j]);
        }
        float sum = 0.0f;
        for (int j = 0; j < valid; ++j) {
            row[j] = exp(row[j] - mx);
            sum += row[j];
        }
        const float inv = 1.0f / sum;
        for (int j = 0; j < u; ++j) row[j] = j < valid ? row[j] * inv : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = lid; e < hn * u * u; e += lsz) Pg[e] = ps[e];
    // 4. the context columns of these heads: C_h = P_h V_h
    for (int e = lid; e < u * hn * dv; e += lsz) {
        const int i = e / (hn * dv), cl = e % (hn * dv), hl = cl / dv;
        const int valid = causal ? i + 1 : u;
        __local const float* row = ps + (hl * u + i) * u;
        float a = 0.0f;
#pragma unroll 4
        for (int j = 0; j < valid; ++j) a += row[j] * qs[j * ld + vo + cl];
        co[i * ldo + cl] = a;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
