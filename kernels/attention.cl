// The attention core fused per (sample, head): one work-group per (sample b, head h), work-item
// `lid` handles query rows lid, lid + lsz, ... (compute/Ops.h, AttentionShape, gives the
// layout). K, V and the rows of scores live in local memory; the host uses these kernels only
// where they fit, else composes the core from gemm and softmax. Local rows indexed by the
// query are padded to an odd length (ODD) so that work-items reading one column each hit
// different banks.

#define ODD(n) ((n) | 1)

// P = softmax(scale * Q K^T) (causal: query i sees keys 0..i), C = P V.
__kernel void attention_forward(int heads, int units, int dk, int dv, int ldQkv, int ldCtx,
                                float scale, int causal, __global const float* qkv, ulong qo,
                                __global float* p, ulong po, __global float* ctx, ulong co,
                                __local float* ql, __local float* kl, __local float* vl,
                                __local float* sl) {
    const int g = (int)get_group_id(0), b = g / heads, h = g % heads;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int u = units, lq = ODD(dk), ls = ODD(u);
    __global const float* base = qkv + qo + (ulong)b * (ulong)u * (ulong)ldQkv;
    __global const float* Q = base + h * dk;
    __global const float* K = base + heads * dk + h * dk;
    __global const float* V = base + 2 * heads * dk + h * dv;
    for (int e = lid; e < u * dk; e += lsz) {
        const int j = e / dk, k = e % dk;
        ql[j * lq + k] = Q[(ulong)j * ldQkv + k];
        kl[e] = K[(ulong)j * ldQkv + k];
    }
    for (int e = lid; e < u * dv; e += lsz) vl[e] = V[(ulong)(e / dv) * ldQkv + e % dv];
    barrier(CLK_LOCAL_MEM_FENCE);

    __global float* C = ctx + co + (ulong)b * (ulong)u * (ulong)ldCtx + h * dv;
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u;
        __local float* row = sl + i * ls;
        __local const float* qi = ql + i * lq;
        // scores, four keys at a time
        int j = 0;
        for (; j + 4 <= valid; j += 4) {
            float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
            __local const float* k0 = kl + j * dk;
            for (int k = 0; k < dk; ++k) {
                const float q = qi[k];
                s0 += q * k0[k];
                s1 += q * k0[dk + k];
                s2 += q * k0[2 * dk + k];
                s3 += q * k0[3 * dk + k];
            }
            row[j] = s0 * scale;
            row[j + 1] = s1 * scale;
            row[j + 2] = s2 * scale;
            row[j + 3] = s3 * scale;
        }
        for (; j < valid; ++j) {
            float s = 0.0f;
            for (int k = 0; k < dk; ++k) s += qi[k] * kl[j * dk + k];
            row[j] = s * scale;
        }
        // softmax over the valid keys; masked keys get 0
        float mx = row[0];
        for (j = 1; j < valid; ++j) mx = fmax(mx, row[j]);
        float sum = 0.0f;
        for (j = 0; j < valid; ++j) {
            const float e = exp(row[j] - mx);
            row[j] = e;
            sum += e;
        }
        const float inv = 1.0f / sum;
        for (j = 0; j < valid; ++j) row[j] *= inv;
        for (; j < u; ++j) row[j] = 0.0f;
        // context row, four values at a time
        __global float* ci = C + (ulong)i * ldCtx;
        int c = 0;
        for (; c + 4 <= dv; c += 4) {
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (j = 0; j < valid; ++j) {
                const float pj = row[j];
                __local const float* vj = vl + j * dv + c;
                a0 += pj * vj[0];
                a1 += pj * vj[1];
                a2 += pj * vj[2];
                a3 += pj * vj[3];
            }
            ci[c] = a0;
            ci[c + 1] = a1;
            ci[c + 2] = a2;
            ci[c + 3] = a3;
        }
        for (; c < dv; ++c) {
            float a = 0.0f;
            for (j = 0; j < valid; ++j) a += row[j] * vl[j * dv + c];
            ci[c] = a;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // P in consecutive addresses (coalesced)
    __global float* P = p + po + (ulong)g * (ulong)u * (ulong)u;
    for (int e = lid; e < u * u; e += lsz) P[e] = sl[(e / u) * ls + e % u];
}

// From dC to dQ, dK and dV (overwritten in dqkv's Q, K and V columns):
// dV = P^T dC, dP = dC V^T, dS = scale * P * (dP - rowsum(dP * P)), dQ = dS K, dK = dS^T Q.
// Local: kl holds K; vq holds V, then Q; dcl holds dC (rows padded); sl holds P, then dS.
// Inner loops produce four results at a time, so each local value read serves four sums.
__kernel void attention_backward(int heads, int units, int dk, int dv, int ldQkv, int ldCtx,
                                 float scale, int causal, __global const float* qkv, ulong qo,
                                 __global const float* p, ulong po, __global const float* dctx,
                                 ulong dco, __global float* dqkv, ulong dqo, __local float* kl,
                                 __local float* vq, __local float* dcl, __local float* sl) {
    const int g = (int)get_group_id(0), b = g / heads, h = g % heads;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int u = units, lc = ODD(dv), ls = ODD(u);
    const ulong rowsOff = (ulong)b * (ulong)u * (ulong)ldQkv;
    __global const float* base = qkv + qo + rowsOff;
    __global const float* Q = base + h * dk;
    __global const float* K = base + heads * dk + h * dk;
    __global const float* V = base + 2 * heads * dk + h * dv;
    __global const float* dC = dctx + dco + (ulong)b * (ulong)u * (ulong)ldCtx + h * dv;
    __global const float* P = p + po + (ulong)g * (ulong)u * (ulong)u;
    __global float* dbase = dqkv + dqo + rowsOff;
    for (int e = lid; e < u * dk; e += lsz) kl[e] = K[(ulong)(e / dk) * ldQkv + e % dk];
    for (int e = lid; e < u * dv; e += lsz) {
        const int j = e / dv, c = e % dv;
        vq[e] = V[(ulong)j * ldQkv + c];
        dcl[j * lc + c] = dC[(ulong)j * ldCtx + c];
    }
    for (int e = lid; e < u * u; e += lsz) sl[(e / u) * ls + e % u] = P[e];
    barrier(CLK_LOCAL_MEM_FENCE);

    // dV rows (key j): only queries i >= j see key j when causal
    for (int j = lid; j < u; j += lsz) {
        const int first = causal ? j : 0;
        __global float* dvr = dbase + (ulong)j * ldQkv + 2 * heads * dk + h * dv;
        int c = 0;
        for (; c + 4 <= dv; c += 4) {
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (int i = first; i < u; ++i) {
                const float pij = sl[i * ls + j];
                __local const float* d = dcl + i * lc + c;
                a0 += pij * d[0];
                a1 += pij * d[1];
                a2 += pij * d[2];
                a3 += pij * d[3];
            }
            dvr[c] = a0;
            dvr[c + 1] = a1;
            dvr[c + 2] = a2;
            dvr[c + 3] = a3;
        }
        for (; c < dv; ++c) {
            float a = 0.0f;
            for (int i = first; i < u; ++i) a += sl[i * ls + j] * dcl[i * lc + c];
            dvr[c] = a;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // rows of dS in place of P's: first P * dP with the row's sum of it, then the rest
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u;
        __local float* row = sl + i * ls;
        __local const float* ci = dcl + i * lc;
        float dot = 0.0f;
        int j = 0;
        for (; j + 4 <= valid; j += 4) {
            float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
            __local const float* v0 = vq + j * dv;
            for (int c = 0; c < dv; ++c) {
                const float x = ci[c];
                d0 += x * v0[c];
                d1 += x * v0[dv + c];
                d2 += x * v0[2 * dv + c];
                d3 += x * v0[3 * dv + c];
            }
            d0 *= row[j];
            d1 *= row[j + 1];
            d2 *= row[j + 2];
            d3 *= row[j + 3];
            row[j] = d0;
            row[j + 1] = d1;
            row[j + 2] = d2;
            row[j + 3] = d3;
            dot += (d0 + d1) + (d2 + d3);
        }
        for (; j < valid; ++j) {
            float d = 0.0f;
            for (int c = 0; c < dv; ++c) d += ci[c] * vq[j * dv + c];
            d *= row[j];
            row[j] = d;
            dot += d;
        }
        __global const float* pi = P + (ulong)i * u;
        for (j = 0; j < valid; ++j) row[j] = scale * (row[j] - pi[j] * dot);
        for (; j < u; ++j) row[j] = 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = lid; e < u * dk; e += lsz) vq[e] = Q[(ulong)(e / dk) * ldQkv + e % dk];
    barrier(CLK_LOCAL_MEM_FENCE);

    // dQ rows (query i)
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u;
        __local const float* row = sl + i * ls;
        __global float* dq = dbase + (ulong)i * ldQkv + h * dk;
        int k = 0;
        for (; k + 4 <= dk; k += 4) {
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (int j = 0; j < valid; ++j) {
                const float s = row[j];
                __local const float* kj = kl + j * dk + k;
                a0 += s * kj[0];
                a1 += s * kj[1];
                a2 += s * kj[2];
                a3 += s * kj[3];
            }
            dq[k] = a0;
            dq[k + 1] = a1;
            dq[k + 2] = a2;
            dq[k + 3] = a3;
        }
        for (; k < dk; ++k) {
            float a = 0.0f;
            for (int j = 0; j < valid; ++j) a += row[j] * kl[j * dk + k];
            dq[k] = a;
        }
    }
    // dK rows (key j)
    for (int j = lid; j < u; j += lsz) {
        const int first = causal ? j : 0;
        __global float* dkr = dbase + (ulong)j * ldQkv + heads * dk + h * dk;
        int k = 0;
        for (; k + 4 <= dk; k += 4) {
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (int i = first; i < u; ++i) {
                const float s = sl[i * ls + j];
                __local const float* qi = vq + i * dk + k;
                a0 += s * qi[0];
                a1 += s * qi[1];
                a2 += s * qi[2];
                a3 += s * qi[3];
            }
            dkr[k] = a0;
            dkr[k + 1] = a1;
            dkr[k + 2] = a2;
            dkr[k + 3] = a3;
        }
        for (; k < dk; ++k) {
            float a = 0.0f;
            for (int i = first; i < u; ++i) a += sl[i * ls + j] * vq[i * dk + k];
            dkr[k] = a;
        }
    }
}
