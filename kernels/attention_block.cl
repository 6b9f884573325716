// One attention block (model/layers/AttentionBlock.h has the math) fused: forward in one launch,
// backward in one (plus attention_block_reduce when a model has more than one sample). One
// work-group per sample (a population's samples are `models` equal blocks; sample b belongs to
// model b / samplesPerModel and reads that model's weights at off[i] + m * stride[i]). The
// sample's rows live in local memory (one __local array `lm`, carved up as each kernel's comment
// says, sizes in floats; U units, W window, Q = H (2 D + Dv), C = H Dv, F = 4 W, L the local
// size, a power of two). Global memory is read only in whole tiles: each product first stages
// its weights (or the activation rows it multiplies) into the staging area `wl`,
// every work-item issuing BLK_INFLIGHT loads before it stores, then runs from local memory (a
// work-group per sample is latency-bound: per-element global reads inside the dot products cost
// ~60 us a launch on the H100). Everything backward needs is written to the activation buffers in
// AttentionBlock's layouts, so the per-op backward can follow this forward. Stages are separated
// by barriers; within a stage work-item `lid` takes elements lid, lid + L, ...
//
// The parameters, in order (BlockParam in compute/Ops.h; the ulong8 offset/stride arguments
// hold one component per parameter): qkv.weight [Q][W], qkv.bias [Q], w0.weight [W][C],
// w0.bias [W], ff1.weight [F][W], ff1.bias [F], ff2.weight [W][F], ff2.bias [W].

#define BLK_INFLIGHT 8

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

// Local memory of attention_block_forward (floats, in this order):
//   xs  U W          X, from stage 8 on X1 + F (then the output)
//   cs  U C          the context C
//   x1s U W          X + A, then X1 = norm(X + A)
//   big max(U Q + G U U, U F)   QKV rows then P of G heads [G][U][U] (the heads go in groups of
//                                G = headGroup, as many as fit); from stage 7 on H1
//   red L            reductions of the sequence norm
//   wl               the staged weights of one product (max of Q (W|1), W (C|1), F (W|1), W (F|1))
__kernel void attention_block_forward(
    int units, int window, int heads, int dk, int dv, int hasW0, int causal, int seqNorm,
    int hidden, int ffOut, float eps, float scale, int samplesPerModel, int headGroup,
    __global const float* x, ulong xo, __global const float* wqkv, __global const float* bqkv,
    __global const float* w0, __global const float* b0, __global const float* w1,
    __global const float* b1, __global const float* w2, __global const float* b2, ulong8 woff,
    ulong8 wstride, __global float* qkv, ulong qkvo, __global float* p, ulong po,
    __global float* ctx, ulong co, __global float* x1, ulong x1o, __global float* rstd1,
    ulong r1o, __global float* z1, ulong z1o, __global float* h1, ulong h1o, __global float* z2,
    ulong z2o, __global float* f, ulong fo, __global float* out, ulong oo,
    __global float* rstd2, ulong r2o, __local float* lm) {
    BLK_SAMPLE_SIZES(1)
    // this model's weights
    __global const float* Wq = wqkv + woff.s0 + (ulong)m * wstride.s0;
    __global const float* Bq = bqkv + woff.s1 + (ulong)m * wstride.s1;
    __global const float* W0 = w0 + woff.s2 + (ulong)m * wstride.s2;
    __global const float* B0 = b0 + woff.s3 + (ulong)m * wstride.s3;
    __global const float* W1 = w1 + woff.s4 + (ulong)m * wstride.s4;
    __global const float* B1 = b1 + woff.s5 + (ulong)m * wstride.s5;
    __global const float* W2 = w2 + woff.s6 + (ulong)m * wstride.s6;
    __global const float* B2 = b2 + woff.s7 + (ulong)m * wstride.s7;
    // this sample's rows in the activation buffers
    const ulong rw = (ulong)b * (ulong)uw, rf = (ulong)b * (ulong)u * (ulong)ff;
    __global float* QKVg = qkv + qkvo + (ulong)b * (ulong)u * (ulong)q;
    __global float* Pg = p + po + (ulong)b * (ulong)heads * (ulong)u * (ulong)u;
    __global float* Cg = ctx + co + (ulong)b * (ulong)u * (ulong)c;
    // local memory
    __local float* xs = lm;
    __local float* cs = xs + uw;
    __local float* x1s = cs + u * c;
    __local float* big = x1s + uw;
    __local float* qs = big;           // QKV rows
    __local float* ps = big + u * q;   // P of the heads of one group
    __local float* hs = big;           // H1 (stage 7 on)
    __local float* red = big + max(u * q + headGroup * u * u, u * ff);
    __local float* wl = red + lsz;

    // 1. X
    blk_stage(xs, uw, x + xo + rw, uw, 0, 1, uw);
    // 2. QKV = X Wqkv^T + bqkv
    blk_rows_product(qs, q, xs, u, w, Wq, Bq, q, wl);
    for (int e = lid; e < u * q; e += lsz) QKVg[e] = qs[e];
    for (int h0 = 0; h0 < heads; h0 += headGroup) {
        const int hn = min(headGroup, heads - h0);
        // 3. one row of P per (head, query): softmax of the scaled scores over the visible keys
        for (int t = lid; t < hn * u; t += lsz) {
            const int hh = h0 + t / u, i = t % u, valid = causal ? i + 1 : u;
            __local float* row = ps + t * u;
            __local const float* qi = qs + i * q + hh * dk;
            float mx = -INFINITY;
            for (int j = 0; j < valid; ++j) {
                __local const float* kj = qs + j * q + hd + hh * dk;
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
        for (int e = lid; e < hn * u * u; e += lsz) Pg[h0 * u * u + e] = ps[e];
        // 4. the context columns of these heads: C_h = P_h V_h
        for (int e = lid; e < u * hn * dv; e += lsz) {
            const int i = e / (hn * dv), col = h0 * dv + e % (hn * dv), hh = col / dv;
            const int valid = causal ? i + 1 : u;
            __local const float* row = ps + ((hh - h0) * u + i) * u;
            float a = 0.0f;
#pragma unroll 4
            for (int j = 0; j < valid; ++j) a += row[j] * qs[j * q + 2 * hd + col];
            cs[i * c + col] = a;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int e = lid; e < u * c; e += lsz) Cg[e] = cs[e];
    // 5. X + A with A = C W0^T + b0 (or C)
    // (no barrier under a condition: PoCL's compiler replicates the code after one)
    blk_rows_product(x1s, w, cs, u, c, W0, B0, hasW0 ? w : 0, wl);
    for (int e = lid; e < uw; e += lsz) x1s[e] = (hasW0 ? x1s[e] : cs[e]) + xs[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    // 6. X1 = norm(X + A)
    blk_norm(x1s, u, w, seqNorm, eps, x1 + x1o + rw, rstd1 + r1o + (seqNorm ? b : b * u), red);
    // 7. Z1 = X1 W1^T + b1, H1 = hidden(Z1)
    blk_rows_product(hs, ff, x1s, u, w, W1, B1, ff, wl);
    for (int e = lid; e < u * ff; e += lsz) {
        const float z = hs[e], hv = nnwb_act(z, hidden);
        hs[e] = hv;
        z1[z1o + rf + e] = z;
        h1[h1o + rf + e] = hv;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 8. Z2 = H1 W2^T + b2, F = ffOut(Z2); X1 + F into xs
    blk_rows_product(xs, w, hs, u, ff, W2, B2, w, wl);
    for (int e = lid; e < uw; e += lsz) {
        const float zz = xs[e], fv = nnwb_act(zz, ffOut);
        z2[z2o + rw + e] = zz;
        f[fo + rw + e] = fv;
        xs[e] = x1s[e] + fv;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 9. out = norm(X1 + F)
    blk_norm(xs, u, w, seqNorm, eps, out + oo + rw, rstd2 + r2o + (seqNorm ? b : b * u), red);
}

// The backward of attention_block_forward: dX (when hasDx) and the sample's parameter gradients
// (direct: added to the gradients; else written to partial[b][...], the parameters one after the
// other in BlockParam order). A sample takes `spread` work-groups (the host's shape rule;
// docs/decisions/fused-block-spread.md): each computes the row-wise chain dR2 .. dC of stages
// 1-6 for all rows (the same values in each), its share of the weight and bias gradients of
// stages 3, 4 and 6 (output rows split evenly), the attention of its share of the heads
// (stages 7-9) and those heads' rows of dWqkv and dbqkv. dX = dR1 + sum over heads of
// dQKV_h Wqkv_h: with spread 1 as one product; else each group stores its heads' part in
// dxPart[b][piece] and counts itself on counters[b]; the last of the sample's groups to arrive
// adds dR1 and the parts in piece order (the same bits whichever arrives last) and sets the
// counter back to 0 (gemm_longk's scheme: atomics for the parts, no barrier after the count).
// Local memory (floats, in this order):
//   ga  U W          dR2 = dL/d(X1 + F), the norm 2 backward of dY; stage 10: dX's product
//   gb  U W          dZ2
//   gx  U W          dX1 + dR2, then dR1 = dA (the norm 1 backward)
//   gc  U C          dC
//   big max(U F, U Q + G U U)     dZ1; from stage 7 on dQKV rows, then P of G heads [G][U][U]
//                                  (turned into dS row by row), the heads in groups of
//                                  G = headGroup
//   red 2 L          reductions of the sequence norm
//   cq  spread > 1: U E (E = this group's heads x (2 D + Dv)): its heads' dQKV columns
//   wl               the staged weights or activation rows of one product; for stages 7-9 the
//                    Q, K and V columns of one group of heads (the largest of these)
__kernel void attention_block_backward(
    int units, int window, int heads, int dk, int dv, int hasW0, int causal, int seqNorm,
    int hidden, int ffOut, float scale, int samplesPerModel, int headGroup, int direct,
    __global const float* x, ulong xo, __global const float* dy, ulong dyo, __global float* dx,
    ulong dxo, int hasDx, __global const float* wqkv, __global const float* bqkv,
    __global const float* w0, __global const float* b0, __global const float* w1,
    __global const float* b1, __global const float* w2, __global const float* b2, ulong8 woff,
    ulong8 wstride, __global float* gqkv, __global float* gbqkv, __global float* gw0,
    __global float* gb0, __global float* gw1, __global float* gb1, __global float* gw2,
    __global float* gb2, ulong8 goff, ulong8 gstride, __global float* partial,
    __global const float* qkv, ulong qkvo, __global const float* p, ulong po,
    __global const float* ctx, ulong co, __global const float* x1, ulong x1o,
    __global const float* rstd1, ulong r1o, __global const float* z1, ulong z1o,
    __global const float* h1, ulong h1o, __global const float* z2, ulong z2o,
    __global const float* f, ulong fo, __global const float* out, ulong oo,
    __global const float* rstd2, ulong r2o, int spread, __global float* dxPart, ulong dpo,
    __global int* counters, __local float* lm) {
    BLK_SAMPLE_SIZES(spread)
    // this model's weights
    __global const float* Wq = wqkv + woff.s0 + (ulong)m * wstride.s0;
    __global const float* W0 = w0 + woff.s2 + (ulong)m * wstride.s2;
    __global const float* W1 = w1 + woff.s4 + (ulong)m * wstride.s4;
    __global const float* W2 = w2 + woff.s6 + (ulong)m * wstride.s6;
    // where this sample's parameter gradients go
    int cnt[8];
    const int total = blk_param_counts(w, heads, dk, dv, hasW0, cnt);
    __global float* part[8];
    part[0] = partial + (ulong)b * (ulong)total;
    for (int i = 1; i < 8; ++i) part[i] = part[i - 1] + cnt[i - 1];
    __global float* Gq = gqkv + goff.s0 + (ulong)m * gstride.s0;
    __global float* Gbq = gbqkv + goff.s1 + (ulong)m * gstride.s1;
    __global float* G0 = gw0 + goff.s2 + (ulong)m * gstride.s2;
    __global float* Gb0 = gb0 + goff.s3 + (ulong)m * gstride.s3;
    __global float* G1 = gw1 + goff.s4 + (ulong)m * gstride.s4;
    __global float* Gb1 = gb1 + goff.s5 + (ulong)m * gstride.s5;
    __global float* G2 = gw2 + goff.s6 + (ulong)m * gstride.s6;
    __global float* Gb2 = gb2 + goff.s7 + (ulong)m * gstride.s7;
    // this sample's rows of the forward's activations
    const ulong rw = (ulong)b * (ulong)uw, rf = (ulong)b * (ulong)u * (ulong)ff;
    __global const float* X = x + xo + rw;
    __global const float* X1 = x1 + x1o + rw;
    __global const float* H1 = h1 + h1o + rf;
    __global const float* Z1 = z1 + z1o + rf;
    __global const float* Cg = ctx + co + (ulong)b * (ulong)u * (ulong)c;
    __global const float* QKVg = qkv + qkvo + (ulong)b * (ulong)u * (ulong)q;
    __global const float* Pg = p + po + (ulong)b * (ulong)heads * (ulong)u * (ulong)u;
    // this group's shares: output rows of dW2 / dW0 (of W) and dW1 (of F), heads [hA, hB)
    const int2 sw = blk_share(w, piece, spread), sf = blk_share(ff, piece, spread);
    const int2 sh = blk_share(heads, piece, spread);
    const int hA = sh.x, hB = sh.y, e3 = 2 * dk + dv, ne = (hB - hA) * e3;
    // local memory
    __local float* ga = lm;
    __local float* gb = ga + uw;
    __local float* gx = gb + uw;
    __local float* gc = gx + uw;
    __local float* big = gc + u * c;
    __local float* gh = big;                 // dZ1
    __local float* dqs = big;                // dQKV rows (stage 7 on)
    __local float* ps = big + u * q;         // P, then dS, of one group of heads
    __local float* red = big + max(u * ff, u * q + headGroup * u * u);
    __local float* cq = red + 2 * lsz;
    __local float* wl = cq + (spread > 1 ? u * ((heads + spread - 1) / spread) * e3 : 0);

    // 1. dR2 = norm 2 backward of dY (y = out)
    blk_stage(ga, uw, dy + dyo + rw, uw, 0, 1, uw);
    blk_norm_backward(ga, out + oo + rw, rstd2 + r2o + (seqNorm ? b : b * u), u, w, seqNorm, red);
    // 2. dZ2 = dF * ffOut'(Z2), dF = dR2
    for (int e = lid; e < uw; e += lsz)
        gb[e] = ga[e] * nnwb_act_grad(z2[z2o + rw + e], f[fo + rw + e], ffOut);
    barrier(CLK_LOCAL_MEM_FENCE);
    // 3. dW2 = dZ2^T H1, db2 = column sums of dZ2, dZ1 = (dZ2 W2) * hidden'(Z1)
    blk_weight_grad(G2, part[6], direct, gb, w, u, sw.x, sw.y, H1, ff, 0, wl);
    blk_bias_grad(Gb2, part[7], direct, gb, w, u, sw.x, sw.y);
    blk_cols_product(gh, ff, gb, u, w, W2, ff, wl);
    for (int e = lid; e < u * ff; e += lsz) gh[e] *= nnwb_act_grad(Z1[e], H1[e], hidden);
    barrier(CLK_LOCAL_MEM_FENCE);
    // 4. dW1 = dZ1^T X1, db1, and dX1 + dR2 = dZ1 W1 + dR2 (the residual)
    blk_weight_grad(G1, part[4], direct, gh, ff, u, sf.x, sf.y, X1, w, 0, wl);
    blk_bias_grad(Gb1, part[5], direct, gh, ff, u, sf.x, sf.y);
    blk_cols_product(gx, w, gh, u, ff, W1, w, wl);
    for (int e = lid; e < uw; e += lsz) gx[e] += ga[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    // 5. dR1 = dA = norm 1 backward (y = X1)
    blk_norm_backward(gx, X1, rstd1 + r1o + (seqNorm ? b : b * u), u, w, seqNorm, red);
    // 6. dW0 = dA^T C, db0, dC = dA W0 (or dC = dA)
    // (no barrier under a condition: PoCL's compiler replicates the code after one)
    if (hasW0) blk_bias_grad(Gb0, part[3], direct, gx, w, u, sw.x, sw.y);
    blk_weight_grad(G0, part[2], direct, gx, w, u, sw.x, sw.y, Cg, hasW0 ? c : 0, 0, wl);
    blk_cols_product(gc, c, gx, u, w, W0, hasW0 ? c : 0, wl);
    if (!hasW0)
        for (int e = lid; e < u * c; e += lsz) gc[e] = gx[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h0 = hA; h0 < hB; h0 += headGroup) {
        const int hn = min(headGroup, hB - h0), gk = hn * dk, gv = hn * dv;
        // this group's Q, K and V columns: [U][G D], [U][G D], [U][G Dv]
        __local float* qg = wl;
        __local float* kg = qg + u * gk;
        __local float* vg = kg + u * gk;
        blk_stage(qg, gk, QKVg, q, h0 * dk, u, gk);
        blk_stage(kg, gk, QKVg, q, hd + h0 * dk, u, gk);
        blk_stage(vg, gv, QKVg, q, 2 * hd + h0 * dv, u, gv);
        blk_stage(ps, hn * u * u, Pg + h0 * u * u, 0, 0, 1, hn * u * u);
        // 7. dV_h = P_h^T dC_h (key j: only queries i >= j see it when causal)
        for (int e = lid; e < u * gv; e += lsz) {
            const int j = e / gv, col = h0 * dv + e % gv, hh = col / dv;
            const int first = causal ? j : 0;
            __local const float* pc = ps + (hh - h0) * u * u + j;  // column j of P_h
            float s = 0.0f;
#pragma unroll 4
            for (int i = first; i < u; ++i) s += pc[i * u] * gc[i * c + col];
            dqs[j * q + 2 * hd + col] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // 8. dS = scale * P * (dP - rowsum(dP * P)) with dP = dC_h V_h^T, in place of P's rows
        for (int t = lid; t < hn * u; t += lsz) {
            const int hl = t / u, i = t % u, valid = causal ? i + 1 : u;
            __local float* row = ps + t * u;
            __local const float* dci = gc + i * c + (h0 + hl) * dv;
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
            dqs[i * q + h0 * dk + cl] = s;
        }
        for (int e = lid; e < u * gk; e += lsz) {
            const int j = e / gk, cl = e % gk, hl = cl / dk;
            const int first = causal ? j : 0;
            __local const float* sc = ps + hl * u * u + j;  // column j of dS_h
            float s = 0.0f;
#pragma unroll 4
            for (int i = first; i < u; ++i) s += sc[i * u] * qg[i * gk + cl];
            dqs[j * q + hd + h0 * dk + cl] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // 10. dWqkv = dQKV^T X and dbqkv (this group's heads' rows: their Q, K and V columns; no
    // loop around the barriers, for PoCL's compiler)
    const int ca[3] = {hA * dk, hd + hA * dk, 2 * hd + hA * dv};
    const int cb[3] = {hB * dk, hd + hB * dk, 2 * hd + hB * dv};
    blk_weight_grad(Gq, part[0], direct, dqs, q, u, ca[0], cb[0], X, w, 0, wl);
    blk_weight_grad(Gq, part[0], direct, dqs, q, u, ca[1], cb[1], X, w, 1, wl);  // X staged
    blk_weight_grad(Gq, part[0], direct, dqs, q, u, ca[2], cb[2], X, w, 1, wl);
    for (int t = 0; t < 3; ++t) blk_bias_grad(Gbq, part[1], direct, dqs, q, u, ca[t], cb[t]);
    // dQKV_h Wqkv_h: with spread 1 all of dQKV's columns (in place, in order); else this
    // group's columns gathered into cq, with the matching rows of Wqkv staged in the same order
    const int nd = hasDx ? w : 0, gather = spread > 1;
    for (int e = lid; e < (gather ? u * ne : 0); e += lsz) {
        const int r = e / ne, k = e % ne, nk = (hB - hA) * dk;
        const int t = k < nk ? 0 : k < 2 * nk ? 1 : 2, k0 = t * nk;
        cq[e] = dqs[r * q + ca[t] + k - k0];
    }
    const int k1 = cb[0] - ca[0], k2 = k1 + cb[1] - ca[1];
    blk_stage(wl, nd, Wq + (ulong)ca[0] * (ulong)w, w, 0, cb[0] - ca[0], nd);
    blk_stage(wl + k1 * nd, nd, Wq + (ulong)ca[1] * (ulong)w, w, 0, cb[1] - ca[1], nd);
    blk_stage(wl + k2 * nd, nd, Wq + (ulong)ca[2] * (ulong)w, w, 0, cb[2] - ca[2], nd);
    blk_product4(ga, w, gather ? cq : dqs, gather ? ne : q, u, gather ? ne : q, wl, 1, nd, nd, Wq,
                 0);
    // dX = dR1 + the heads' parts (spread > 1: in piece order, by the last group to arrive)
    const int parts = gather && hasDx;
    __global float* dxp = dxPart + dpo + (ulong)b * (ulong)spread * (ulong)uw;
    for (int e = lid; e < (parts ? uw : 0); e += lsz)
        atomic_xchg((volatile __global float*)(dxp + (ulong)piece * (ulong)uw + (ulong)e), ga[e]);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    __local int* last = (__local int*)red;
    if (lid == 0)
        *last = parts ? atomic_inc((volatile __global int*)(counters + b)) == spread - 1 : 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!hasDx || !*last) return;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    for (int e = lid; e < uw; e += lsz) {
        float v = parts ? 0.0f : ga[e];
        for (int k = 0; k < (parts ? spread : 0); ++k)
            v += as_float(atomic_or((volatile __global int*)(dxp + (ulong)k * uw + (ulong)e), 0));
        dx[dxo + rw + e] = gx[e] + v;
    }
    if (parts && lid == 0) atomic_xchg((volatile __global int*)(counters + b), 0);
}

// The gradients of samplesPerModel > 1: for model m, every parameter value adds the sum of its
// samples' partials (attention_block_backward's rows; in a fixed order: deterministic).
__kernel void attention_block_reduce(int window, int heads, int dk, int dv, int hasW0,
                                     int models, int samplesPerModel,
                                     __global const float* partial, __global float* gqkv,
                                     __global float* gbqkv, __global float* gw0,
                                     __global float* gb0, __global float* gw1,
                                     __global float* gb1, __global float* gw2,
                                     __global float* gb2, ulong8 goff, ulong8 gstride) {
    int cnt[8];
    const int total = blk_param_counts(window, heads, dk, dv, hasW0, cnt);
    ulong off[8], stride[8];
    vstore8(goff, 0, off);
    vstore8(gstride, 0, stride);
    __global float* g[8] = {gqkv, gbqkv, gw0, gb0, gw1, gb1, gw2, gb2};
    const ulong n = (ulong)models * (ulong)total;
    for (ulong id = get_global_id(0); id < n; id += get_global_size(0)) {
        const int m = (int)(id / (ulong)total), idx = (int)(id % (ulong)total);
        int i = 0, within = idx;
        while (within >= cnt[i]) within -= cnt[i++];
        __global const float* src = partial + (ulong)m * (ulong)samplesPerModel * (ulong)total;
        float s = 0.0f;
        for (int k = 0; k < samplesPerModel; ++k) s += src[(ulong)k * (ulong)total + idx];
        g[i][off[i] + (ulong)m * stride[i] + (ulong)within] += s;
    }
}
