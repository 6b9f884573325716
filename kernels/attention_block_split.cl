// One attention block (model/layers/AttentionBlock.h has the math) in four launches, for blocks
// whose rows or weights do not fit one work-group's local memory (attention_block.cl's kernels;
// docs/decisions/fused-block-split.md): the same op, arguments, activation and gradient layouts.
//   attention_block_split_fwd_heads  a work-group per (sample, head): the head's Q, K, V columns,
//                                    P_h and context columns (stages 2-4)
//   attention_block_split_fwd_rows   a work-group per sample: W0, add & norm, the feed-forward,
//                                    add & norm (stages 5-9, from the context in global memory)
//   attention_block_split_bwd_rows   a work-group per sample: backward stages 1-6, dC and dR1 to
//                                    a scratch buffer (dcr at dco and dro), the gradients of W0,
//                                    W1, W2 and their biases
//   attention_block_split_bwd_heads  a work-group per (sample, head): backward stages 7-10 of
//                                    the head (its rows of dWqkv and dbqkv) and its part of dX,
//                                    the parts added in head order by the last group to arrive
// plus attention_block_reduce when a model has more than one sample (partials as there). The
// forward kernels take attention_block_forward's arguments, the backward ones
// attention_block_backward's (and the scratch): the host sets them alike. The stages and helpers
// are kernels/attention_block_helpers.cl's (prepended by the backend); E = 2 D + Dv.

// Local memory (floats, in this order):
//   xs  U W          X
//   qh  U E          the head's Q, K and V columns
//   ps  U U          P_h
//   wl  max(E (W|1), U Dv)   the head's rows of Wqkv (Q, K, V), then its context columns C_h
__kernel void attention_block_split_fwd_heads(
    BLK_FORWARD_PARAMS, __local float* lm) {
    BLK_SAMPLE_SIZES(heads)
    const int h = piece, e3 = 2 * dk + dv, wp = w | 1;
    // the head's rows of Wqkv and bqkv: Q at r0, K at r1, V at r2
    const int r0 = h * dk, r1 = hd + h * dk, r2 = 2 * hd + h * dv;
    __global const float* Wq = wqkv + woff.s0 + (ulong)m * wstride.s0;
    __global const float* Bq = bqkv + woff.s1 + (ulong)m * wstride.s1;
    __global float* QKVg = qkv + qkvo + (ulong)b * (ulong)u * (ulong)q;
    __global float* Pg = p + po + ((ulong)b * (ulong)heads + (ulong)h) * (ulong)u * (ulong)u;
    __global float* Cg = ctx + co + (ulong)b * (ulong)u * (ulong)c + (ulong)(h * dv);
    __local float* xs = lm;
    __local float* qh = xs + uw;
    __local float* ps = qh + u * e3;
    __local float* wl = ps + u * u;

    // 1. X and the head's rows of Wqkv (row stride W | 1)
    blk_stage(xs, uw, x + xo + (ulong)b * (ulong)uw, uw, 0, 1, uw);
    blk_stage(wl, wp, Wq + (ulong)r0 * (ulong)w, w, 0, dk, w);
    blk_stage(wl + dk * wp, wp, Wq + (ulong)r1 * (ulong)w, w, 0, dk, w);
    blk_stage(wl + 2 * dk * wp, wp, Wq + (ulong)r2 * (ulong)w, w, 0, dv, w);
    // 2. the head's columns of QKV = X Wqkv^T + bqkv (the bias added after the sum, as
    // blk_product4 adds it: the same bits as attention_block_forward)
    blk_product4(qh, e3, xs, w, u, w, wl, wp, 1, e3, Bq, 0);
    for (int e = lid; e < u * e3; e += lsz) {
        const int i = e / e3, k = e % e3;
        const int col = k < dk ? r0 + k : k < 2 * dk ? r1 + k - dk : r2 + k - 2 * dk;
        const float v = Bq[col] + qh[e];
        qh[e] = v;
        QKVg[i * q + col] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // 3.-4. P_h and the context columns C_h (into wl, then to ctx)
    blk_heads_forward(u, 1, dk, dv, causal, scale, qh, e3, 0, dk, 2 * dk, ps, Pg, wl, dv);
    for (int e = lid; e < u * dv; e += lsz) Cg[(e / dv) * c + e % dv] = wl[e];
}

// Local memory (floats, in this order):
//   xs  U W             X, from stage 8 on X1 + F (then the output)
//   x1s U W             X + A, then X1 = norm(X + A)
//   big max(U C, U F)   the context C, from stage 7 on H1
//   red L               reductions of the sequence norm
//   wl                  the staged weights of one product (max of W (C|1), F (W|1), W (F|1))
__kernel void attention_block_split_fwd_rows(
    BLK_FORWARD_PARAMS, __local float* lm) {
    BLK_SAMPLE_SIZES(1)
    __global const float* W0 = w0 + woff.s2 + (ulong)m * wstride.s2;
    __global const float* B0 = b0 + woff.s3 + (ulong)m * wstride.s3;
    __global const float* W1 = w1 + woff.s4 + (ulong)m * wstride.s4;
    __global const float* B1 = b1 + woff.s5 + (ulong)m * wstride.s5;
    __global const float* W2 = w2 + woff.s6 + (ulong)m * wstride.s6;
    __global const float* B2 = b2 + woff.s7 + (ulong)m * wstride.s7;
    const ulong rw = (ulong)b * (ulong)uw, rf = (ulong)b * (ulong)u * (ulong)ff;
    __local float* xs = lm;
    __local float* x1s = xs + uw;
    __local float* cs = x1s + uw;
    __local float* hs = cs;
    __local float* red = cs + max(u * c, u * ff);
    __local float* wl = red + lsz;

    blk_stage(xs, uw, x + xo + rw, uw, 0, 1, uw);
    blk_stage(cs, u * c, ctx + co + (ulong)b * (ulong)u * (ulong)c, 0, 0, 1, u * c);
    // 5.-9. W0, add & norm, the feed-forward, add & norm
    blk_forward_tail(u, w, c, hasW0, seqNorm, hidden, ffOut, eps, xs, cs, x1s, hs, red, wl, W0, B0,
                     W1, B1, W2, B2, x1 + x1o + rw, rstd1 + r1o + (seqNorm ? b : b * u),
                     z1 + z1o + rf, h1 + h1o + rf, z2 + z2o + rw, f + fo + rw, out + oo + rw,
                     rstd2 + r2o + (seqNorm ? b : b * u));
}

// Local memory (floats, in this order):
//   ga  U W             dR2
//   gb  U W             dZ2
//   gx  U W             dX1 + dR2, then dR1
//   big max(U F, U C)   dZ1, from stage 6 on dC
//   red 2 L             reductions of the sequence norm
//   wl                  the staged weights or activation rows of one product
__kernel void attention_block_split_bwd_rows(
    BLK_BACKWARD_PARAMS, __global float* dcr, ulong dco, ulong dro, __local float* lm) {
    BLK_SAMPLE_SIZES(1)
    __global const float* W0 = w0 + woff.s2 + (ulong)m * wstride.s2;
    __global const float* W1 = w1 + woff.s4 + (ulong)m * wstride.s4;
    __global const float* W2 = w2 + woff.s6 + (ulong)m * wstride.s6;
    int cnt[8];
    const int total = blk_param_counts(w, heads, dk, dv, hasW0, cnt);
    __global float* part[8];
    part[0] = partial + (ulong)b * (ulong)total;
    for (int i = 1; i < 8; ++i) part[i] = part[i - 1] + cnt[i - 1];
    __global float* G0 = gw0 + goff.s2 + (ulong)m * gstride.s2;
    __global float* Gb0 = gb0 + goff.s3 + (ulong)m * gstride.s3;
    __global float* G1 = gw1 + goff.s4 + (ulong)m * gstride.s4;
    __global float* Gb1 = gb1 + goff.s5 + (ulong)m * gstride.s5;
    __global float* G2 = gw2 + goff.s6 + (ulong)m * gstride.s6;
    __global float* Gb2 = gb2 + goff.s7 + (ulong)m * gstride.s7;
    const ulong rw = (ulong)b * (ulong)uw, rf = (ulong)b * (ulong)u * (ulong)ff;
    const ulong rc = (ulong)b * (ulong)u * (ulong)c;
    __local float* ga = lm;
    __local float* gb = ga + uw;
    __local float* gx = gb + uw;
    __local float* gh = gx + uw;
    __local float* gc = gh;
    __local float* red = gh + max(u * ff, u * c);
    __local float* wl = red + 2 * lsz;

    // 1.-6. the norms, the feed-forward and W0 backward: dR1 in gx, dC in gc
    blk_backward_rows(u, w, c, hasW0, seqNorm, hidden, ffOut, direct, (int2)(0, w), (int2)(0, ff),
                      ga, gb, gx, gh, gc, red, wl, dy + dyo + rw, out + oo + rw,
                      rstd2 + r2o + (seqNorm ? b : b * u), z2 + z2o + rw, f + fo + rw,
                      x1 + x1o + rw, rstd1 + r1o + (seqNorm ? b : b * u), z1 + z1o + rf,
                      h1 + h1o + rf, ctx + co + rc, W0, W1, W2, G0, Gb0, G1, Gb1, G2, Gb2, part[2],
                      part[3], part[4], part[5], part[6], part[7]);
    // dC and dR1 for attention_block_split_bwd_heads
    for (int e = lid; e < u * c; e += lsz) dcr[dco + rc + e] = gc[e];
    for (int e = lid; e < uw; e += lsz) dcr[dro + rw + e] = gx[e];
}

// Local memory (floats, in this order):
//   dch U Dv            dC_h (from attention_block_split_bwd_rows)
//   dqh U E             dQKV_h: dQ_h, dK_h, dV_h
//   ps  U U             P_h, then dS_h
//   ga  U W             the head's part of dX, dQKV_h Wqkv_h
//   gx  U W             dR1 (from attention_block_split_bwd_rows)
//   wl  max(U E, U W, E W)   Q_h, K_h, V_h; X's rows; the head's rows of Wqkv
//   last 1              the last group of the sample to arrive (an int)
__kernel void attention_block_split_bwd_heads(
    BLK_BACKWARD_PARAMS, __global float* dcr, ulong dco, ulong dro, __local float* lm) {
    BLK_SAMPLE_SIZES(heads)
    const int h = piece, e3 = 2 * dk + dv;
    const int r0 = h * dk, r1 = hd + h * dk, r2 = 2 * hd + h * dv;  // the head's rows of Wqkv
    __global const float* Wq = wqkv + woff.s0 + (ulong)m * wstride.s0;
    int cnt[8];
    const int total = blk_param_counts(w, heads, dk, dv, hasW0, cnt);
    __global float* part0 = partial + (ulong)b * (ulong)total;
    __global float* part1 = part0 + cnt[0];
    __global float* Gq = gqkv + goff.s0 + (ulong)m * gstride.s0;
    __global float* Gbq = gbqkv + goff.s1 + (ulong)m * gstride.s1;
    const ulong rw = (ulong)b * (ulong)uw;
    __global const float* X = x + xo + rw;
    __global const float* QKVg = qkv + qkvo + (ulong)b * (ulong)u * (ulong)q;
    __global const float* Pg = p + po + (ulong)b * (ulong)heads * (ulong)u * (ulong)u;
    __local float* dch = lm;
    __local float* dqh = dch + u * dv;
    __local float* ps = dqh + u * e3;
    __local float* ga = ps + u * u;
    __local float* gx = ga + uw;
    __local float* wl = gx + uw;
    __local int* last = (__local int*)(wl + max(max(u * e3, uw), e3 * w));

    // 7.-9. dV_h, dS_h, dQ_h and dK_h from dC_h
    blk_stage(dch, dv, dcr + dco + (ulong)b * (ulong)u * (ulong)c, c, h * dv, u, dv);
    blk_heads_backward(u, h, 1, dk, dv, q, hd, causal, scale, QKVg, Pg, dch, dv, ps, wl, dqh,
                       dqh + dk, dqh + 2 * dk, e3);
    // 10. the head's rows of dWqkv = dQKV^T X and dbqkv (X staged once)
    blk_weight_grad(Gq + r0 * w, part0 + r0 * w, direct, dqh, e3, u, 0, dk, X, w, 0, wl);
    blk_weight_grad(Gq + r1 * w, part0 + r1 * w, direct, dqh + dk, e3, u, 0, dk, X, w, 1, wl);
    blk_weight_grad(Gq + r2 * w, part0 + r2 * w, direct, dqh + 2 * dk, e3, u, 0, dv, X, w, 1, wl);
    blk_bias_grad(Gbq + r0, part1 + r0, direct, dqh, e3, u, 0, dk);
    blk_bias_grad(Gbq + r1, part1 + r1, direct, dqh + dk, e3, u, 0, dk);
    blk_bias_grad(Gbq + r2, part1 + r2, direct, dqh + 2 * dk, e3, u, 0, dv);
    // the head's part of dX: dQKV_h Wqkv_h (its Q, K and V rows staged in dqh's column order)
    const int nd = hasDx ? w : 0;
    blk_stage(wl, nd, Wq + (ulong)r0 * (ulong)w, w, 0, dk, nd);
    blk_stage(wl + dk * nd, nd, Wq + (ulong)r1 * (ulong)w, w, 0, dk, nd);
    blk_stage(wl + 2 * dk * nd, nd, Wq + (ulong)r2 * (ulong)w, w, 0, dv, nd);
    blk_product4(ga, w, dqh, e3, u, e3, wl, 1, nd, nd, Wq, 0);
    blk_stage(gx, uw, dcr + dro + rw, uw, 0, 1, hasDx ? uw : 0);
    // dX = dR1 + the heads' parts (in head order, by the last of the sample's groups)
    blk_dx_finish(ga, gx, heads > 1 && hasDx, h, heads, hasDx,
                  dxPart + dpo + (ulong)b * (ulong)heads * (ulong)uw, counters + b, dx + dxo + rw,
                  uw, last);
}
