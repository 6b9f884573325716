// One attention block (model/layers/AttentionBlock.h has the math) fused: forward in one launch,
// backward in one (plus attention_block_reduce when a model has more than one sample). One
// work-group per sample (a population's samples are `models` equal blocks; sample b belongs to
// model b / samplesPerModel and reads that model's weights at off[i] + m * stride[i]). The
// sample's rows live in local memory (one __local array `lm`, carved up as each kernel's comment
// says; the sizes and conventions in kernels/attention_block_helpers.cl, which the backend
// prepends, with the blk_* helpers and the stages both this file and attention_block_split.cl
// run). A work-group per sample is latency-bound: per-element global reads inside the dot
// products cost ~60 us a launch on the H100, hence the staging. Everything backward needs is
// written to the activation buffers in AttentionBlock's layouts, so the per-op backward can
// follow this forward.

// Local memory of attention_block_forward (floats, in this order):
//   xs  U W          X, from stage 8 on X1 + F (then the output)
//   cs  U C          the context C
//   x1s U W          X + A, then X1 = norm(X + A)
//   big max(U Q + G U U, U F)   QKV rows then P of G heads [G][U][U] (the heads go in groups of
//                                G = headGroup, as many as fit); from stage 7 on H1
//   red L            reductions of the sequence norm
//   wl               the staged weights of one product (max of Q (W|1), W (C|1), F (W|1), W (F|1))
__kernel void attention_block_forward(
    BLK_FORWARD_PARAMS, __local float* lm) {
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
    // 3.-4. P and the context, G = headGroup heads at a time
    for (int h0 = 0; h0 < heads; h0 += headGroup)
        blk_heads_forward(u, min(headGroup, heads - h0), dk, dv, causal, scale, qs, q, h0 * dk,
                          hd + h0 * dk, 2 * hd + h0 * dv, ps, Pg + h0 * u * u, cs + h0 * dv, c);
    for (int e = lid; e < u * c; e += lsz) Cg[e] = cs[e];
    // 5.-9. W0, add & norm, the feed-forward, add & norm
    blk_forward_tail(u, w, c, hasW0, seqNorm, hidden, ffOut, eps, xs, cs, x1s, hs, red, wl, W0, B0,
                     W1, B1, W2, B2, x1 + x1o + rw, rstd1 + r1o + (seqNorm ? b : b * u),
                     z1 + z1o + rf, h1 + h1o + rf, z2 + z2o + rw, f + fo + rw, out + oo + rw,
                     rstd2 + r2o + (seqNorm ? b : b * u));
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
    BLK_BACKWARD_PARAMS, __local float* lm) {
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

    // 1.-6. the norms, the feed-forward and W0 backward: dR1 in gx, dC in gc
    blk_backward_rows(u, w, c, hasW0, seqNorm, hidden, ffOut, direct, sw, sf, ga, gb, gx, gh, gc,
                      red, wl, dy + dyo + rw, out + oo + rw, rstd2 + r2o + (seqNorm ? b : b * u),
                      z2 + z2o + rw, f + fo + rw, X1, rstd1 + r1o + (seqNorm ? b : b * u), Z1, H1,
                      Cg, W0, W1, W2, G0, Gb0, G1, Gb1, G2, Gb2, part[2], part[3], part[4],
                      part[5], part[6], part[7]);
    // 7.-9. the attention backward of this group's heads, G = headGroup at a time
    for (int h0 = hA; h0 < hB; h0 += headGroup)
        blk_heads_backward(u, h0, min(headGroup, hB - h0), dk, dv, q, hd, causal, scale, QKVg, Pg,
                           gc + h0 * dv, c, ps, wl, dqs + h0 * dk, dqs + hd + h0 * dk,
                           dqs + 2 * hd + h0 * dv, q);
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
    blk_dx_finish(ga, gx, gather && hasDx, piece, spread, hasDx,
                  dxPart + dpo + (ulong)b * (ulong)spread * (ulong)uw, counters + b,
                  dx + dxo + rw, uw, (__local int*)red);
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
