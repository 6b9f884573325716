// One attention block (model/layers/AttentionBlock.h has the math) fused: forward in one launch,
// backward in one (plus attention_block_reduce when a model has more than one sample). One
// work-group per sample (a population's samples are `models` equal blocks; sample b belongs to
// model b / samplesPerModel and reads that model's weights at off[i] + m * stride[i]). The
// sample's rows live in local memory (one __local array `lm`, carved up as each kernel's comment
// says, sizes in floats; U units, W window, Q = H (2 D + Dv), C = H Dv, F = 4 W, L the local
// size, a power of two); weights are read from global memory. Everything backward needs is
// written to the activation buffers in AttentionBlock's layouts, so the per-op backward can
// follow this forward. Stages are separated by barriers; within a stage work-item `lid` takes
// elements lid, lid + L, ...
//
// The parameters, in order (BlockParam in compute/Ops.h; the ulong8 offset/stride arguments
// hold one component per parameter): qkv.weight [Q][W], qkv.bias [Q], w0.weight [W][C],
// w0.bias [W], ff1.weight [F][W], ff1.bias [F], ff2.weight [W][F], ff2.bias [W].

// sum over k < n of a[k] * b[k], a in local and b in global memory
float blk_dot(__local const float* a, __global const float* b, int n) {
    float s = 0.0f;
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
__kernel void attention_block_forward(
    int units, int window, int heads, int dk, int dv, int hasW0, int causal, int seqNorm,
    int hidden, int ffOut, float eps, float scale, int samplesPerModel, int headGroup,
    __global const float* x, ulong xo, __global const float* wqkv, __global const float* bqkv, __global const float* w0,
    __global const float* b0, __global const float* w1, __global const float* b1,
    __global const float* w2, __global const float* b2, ulong8 woff, ulong8 wstride,
    __global float* qkv, ulong qkvo, __global float* p, ulong po, __global float* ctx, ulong co,
    __global float* x1, ulong x1o, __global float* rstd1, ulong r1o, __global float* z1,
    ulong z1o, __global float* h1, ulong h1o, __global float* z2, ulong z2o, __global float* f,
    ulong fo, __global float* out, ulong oo, __global float* rstd2, ulong r2o,
    __local float* lm) {
    const int b = (int)get_group_id(0), m = b / samplesPerModel;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int u = units, w = window, q = heads * (2 * dk + dv), c = heads * dv, ff = 4 * w;
    const int hd = heads * dk, uw = u * w;
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

    // 1. X
    for (int e = lid; e < uw; e += lsz) xs[e] = x[xo + rw + e];
    barrier(CLK_LOCAL_MEM_FENCE);
    // 2. QKV = X Wqkv^T + bqkv
    for (int e = lid; e < u * q; e += lsz) {
        const int r = e / q, j = e % q;
        const float v = Bq[j] + blk_dot(xs + r * w, Wq + j * w, w);
        qs[e] = v;
        QKVg[e] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
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
                float s = 0.0f;
                for (int k = 0; k < dk; ++k) s += qi[k] * kj[k];
                row[j] = s * scale;
                mx = fmax(mx, row[j]);
            }
            float sum = 0.0f;
            for (int j = 0; j < valid; ++j) {
                row[j] = exp(row[j] - mx);
                sum += row[j];
            }
            const float inv = 1.0f / sum;
            for (int j = 0; j < u; ++j) {
                row[j] = j < valid ? row[j] * inv : 0.0f;
                Pg[(hh * u + i) * u + j] = row[j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // 4. the context columns of these heads: C_h = P_h V_h
        for (int e = lid; e < u * hn * dv; e += lsz) {
            const int i = e / (hn * dv), col = h0 * dv + e % (hn * dv), hh = col / dv;
            const int valid = causal ? i + 1 : u;
            __local const float* row = ps + ((hh - h0) * u + i) * u;
            float a = 0.0f;
            for (int j = 0; j < valid; ++j) a += row[j] * qs[j * q + 2 * hd + col];
            cs[i * c + col] = a;
            Cg[i * c + col] = a;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // 5. X + A with A = C W0^T + b0 (or C)
    for (int e = lid; e < uw; e += lsz) {
        const int r = e / w, o = e % w;
        const float a = hasW0 ? B0[o] + blk_dot(cs + r * c, W0 + o * c, c) : cs[e];
        x1s[e] = xs[e] + a;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 6. X1 = norm(X + A)
    blk_norm(x1s, u, w, seqNorm, eps, x1 + x1o + rw, rstd1 + r1o + (seqNorm ? b : b * u), red);
    // 7. Z1 = X1 W1^T + b1, H1 = hidden(Z1)
    for (int e = lid; e < u * ff; e += lsz) {
        const int r = e / ff, j = e % ff;
        const float z = B1[j] + blk_dot(x1s + r * w, W1 + j * w, w);
        const float hv = nnwb_act(z, hidden);
        hs[e] = hv;
        z1[z1o + rf + e] = z;
        h1[h1o + rf + e] = hv;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 8. Z2 = H1 W2^T + b2, F = ffOut(Z2); X1 + F into xs
    for (int e = lid; e < uw; e += lsz) {
        const int r = e / w, o = e % w;
        const float z = B2[o];
        float s = 0.0f;
        for (int j = 0; j < ff; ++j) s += hs[r * ff + j] * W2[o * ff + j];
        const float zz = z + s, fv = nnwb_act(zz, ffOut);
        z2[z2o + rw + e] = zz;
        f[fo + rw + e] = fv;
        xs[e] = x1s[e] + fv;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 9. out = norm(X1 + F)
    blk_norm(xs, u, w, seqNorm, eps, out + oo + rw, rstd2 + r2o + (seqNorm ? b : b * u), red);
}

// A parameter gradient value: added to the model's gradient (direct: the model's only sample)
// or stored in the sample's row of partials for attention_block_reduce.
void blk_grad(__global float* g, __global float* part, int direct, int idx, float v) {
    if (direct)
        g[idx] += v;
    else
        part[idx] = v;
}

// The backward of attention_block_forward for one sample per work-group: dX (when hasDx) and
// the sample's parameter gradients (direct: added to the gradients; else written to
// partial[b][...], the parameters one after the other in BlockParam order).
// Local memory (floats, in this order):
//   ga  U W          dR2 = dL/d(X1 + F), the norm 2 backward of dY
//   gb  U W          dZ2
//   gx  U W          dX1 + dR2, then dR1 = dA (the norm 1 backward)
//   gc  U C          dC
//   big max(U F, U Q + G U U)     dZ1; from stage 7 on dQKV rows, then P of G heads [G][U][U]
//                                  (turned into dS row by row), the heads in groups of
//                                  G = headGroup; Q, K and V are read from the forward's qkv
//   red 2 L          reductions of the sequence norm
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
    __global const float* rstd2, ulong r2o, __local float* lm) {
    const int b = (int)get_group_id(0), m = b / samplesPerModel;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int u = units, w = window, q = heads * (2 * dk + dv), c = heads * dv, ff = 4 * w;
    const int hd = heads * dk, uw = u * w;
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

    // 1. dR2 = norm 2 backward of dY (y = out)
    for (int e = lid; e < uw; e += lsz) ga[e] = dy[dyo + rw + e];
    barrier(CLK_LOCAL_MEM_FENCE);
    blk_norm_backward(ga, out + oo + rw, rstd2 + r2o + (seqNorm ? b : b * u), u, w, seqNorm, red);
    // 2. dZ2 = dF * ffOut'(Z2), dF = dR2
    for (int e = lid; e < uw; e += lsz)
        gb[e] = ga[e] * nnwb_act_grad(z2[z2o + rw + e], f[fo + rw + e], ffOut);
    barrier(CLK_LOCAL_MEM_FENCE);
    // 3. dW2 = dZ2^T H1, db2 = column sums of dZ2, dZ1 = (dZ2 W2) * hidden'(Z1)
    for (int e = lid; e < w * ff; e += lsz) {
        const int o = e / ff, j = e % ff;
        float s = 0.0f;
        for (int r = 0; r < u; ++r) s += gb[r * w + o] * H1[r * ff + j];
        blk_grad(G2, part[6], direct, e, s);
    }
    for (int o = lid; o < w; o += lsz) {
        float s = 0.0f;
        for (int r = 0; r < u; ++r) s += gb[r * w + o];
        blk_grad(Gb2, part[7], direct, o, s);
    }
    for (int e = lid; e < u * ff; e += lsz) {
        const int r = e / ff, j = e % ff;
        float s = 0.0f;
        for (int o = 0; o < w; ++o) s += gb[r * w + o] * W2[o * ff + j];
        gh[e] = s * nnwb_act_grad(Z1[e], H1[e], hidden);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 4. dW1 = dZ1^T X1, db1, and dX1 + dR2 = dZ1 W1 + dR2 (the residual)
    for (int e = lid; e < ff * w; e += lsz) {
        const int j = e / w, k = e % w;
        float s = 0.0f;
        for (int r = 0; r < u; ++r) s += gh[r * ff + j] * X1[r * w + k];
        blk_grad(G1, part[4], direct, e, s);
    }
    for (int j = lid; j < ff; j += lsz) {
        float s = 0.0f;
        for (int r = 0; r < u; ++r) s += gh[r * ff + j];
        blk_grad(Gb1, part[5], direct, j, s);
    }
    for (int e = lid; e < uw; e += lsz) {
        const int r = e / w, k = e % w;
        float s = ga[e];
        for (int j = 0; j < ff; ++j) s += gh[r * ff + j] * W1[j * w + k];
        gx[e] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 5. dR1 = dA = norm 1 backward (y = X1)
    blk_norm_backward(gx, X1, rstd1 + r1o + (seqNorm ? b : b * u), u, w, seqNorm, red);
    // 6. dW0 = dA^T C, db0, dC = dA W0 (or dC = dA)
    if (hasW0) {
        for (int e = lid; e < w * c; e += lsz) {
            const int o = e / c, k = e % c;
            float s = 0.0f;
            for (int r = 0; r < u; ++r) s += gx[r * w + o] * Cg[r * c + k];
            blk_grad(G0, part[2], direct, e, s);
        }
        for (int o = lid; o < w; o += lsz) {
            float s = 0.0f;
            for (int r = 0; r < u; ++r) s += gx[r * w + o];
            blk_grad(Gb0, part[3], direct, o, s);
        }
        for (int e = lid; e < u * c; e += lsz) {
            const int r = e / c, k = e % c;
            float s = 0.0f;
            for (int o = 0; o < w; ++o) s += gx[r * w + o] * W0[o * c + k];
            gc[e] = s;
        }
    } else {
        for (int e = lid; e < u * c; e += lsz) gc[e] = gx[e];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h0 = 0; h0 < heads; h0 += headGroup) {
        const int hn = min(headGroup, heads - h0);
        for (int e = lid; e < hn * u * u; e += lsz) ps[e] = Pg[h0 * u * u + e];
        barrier(CLK_LOCAL_MEM_FENCE);
        // 7. dV_h = P_h^T dC_h (key j: only queries i >= j see it when causal)
        for (int e = lid; e < u * hn * dv; e += lsz) {
            const int j = e / (hn * dv), col = h0 * dv + e % (hn * dv), hh = col / dv;
            const int first = causal ? j : 0;
            __local const float* pc = ps + (hh - h0) * u * u + j;  // column j of P_h
            float s = 0.0f;
            for (int i = first; i < u; ++i) s += pc[i * u] * gc[i * c + col];
            dqs[j * q + 2 * hd + col] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // 8. dS = scale * P * (dP - rowsum(dP * P)) with dP = dC_h V_h^T, in place of P's rows
        for (int t = lid; t < hn * u; t += lsz) {
            const int hh = h0 + t / u, i = t % u, valid = causal ? i + 1 : u;
            __local float* row = ps + t * u;
            __local const float* dci = gc + i * c + hh * dv;
            float dot = 0.0f;
            for (int j = 0; j < valid; ++j) {
                __global const float* vj = QKVg + j * q + 2 * hd + hh * dv;
                float d = 0.0f;
                for (int k = 0; k < dv; ++k) d += dci[k] * vj[k];
                row[j] *= d;  // P * dP
                dot += row[j];
            }
            __global const float* pi = Pg + (hh * u + i) * u;
            for (int j = 0; j < u; ++j)
                row[j] = j < valid ? scale * (row[j] - pi[j] * dot) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // 9. dQ_h = dS_h K_h, dK_h = dS_h^T Q_h
        for (int e = lid; e < u * hn * dk; e += lsz) {
            const int i = e / (hn * dk), col = h0 * dk + e % (hn * dk), hh = col / dk;
            const int valid = causal ? i + 1 : u;
            __local const float* row = ps + ((hh - h0) * u + i) * u;
            float s = 0.0f;
            for (int j = 0; j < valid; ++j) s += row[j] * QKVg[j * q + hd + col];
            dqs[i * q + col] = s;
        }
        for (int e = lid; e < u * hn * dk; e += lsz) {
            const int j = e / (hn * dk), col = h0 * dk + e % (hn * dk), hh = col / dk;
            const int first = causal ? j : 0;
            __local const float* sc = ps + (hh - h0) * u * u + j;  // column j of dS_h
            float s = 0.0f;
            for (int i = first; i < u; ++i) s += sc[i * u] * QKVg[i * q + col];
            dqs[j * q + hd + col] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // 10. dWqkv = dQKV^T X, dbqkv, dX = dR1 + dQKV Wqkv
    for (int e = lid; e < q * w; e += lsz) {
        const int j = e / w, k = e % w;
        float s = 0.0f;
        for (int r = 0; r < u; ++r) s += dqs[r * q + j] * X[r * w + k];
        blk_grad(Gq, part[0], direct, e, s);
    }
    for (int j = lid; j < q; j += lsz) {
        float s = 0.0f;
        for (int r = 0; r < u; ++r) s += dqs[r * q + j];
        blk_grad(Gbq, part[1], direct, j, s);
    }
    if (hasDx)
        for (int e = lid; e < uw; e += lsz) {
            const int r = e / w, k = e % w;
            float s = gx[e];
            for (int j = 0; j < q; ++j) s += dqs[r * q + j] * Wq[j * w + k];
            dx[dxo + rw + e] = s;
        }
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
