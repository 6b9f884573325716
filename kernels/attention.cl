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
// dP = dC V^T, dS = scale * P * (dP - rowsum(dP * P)), dQ = dS K, dK = dS^T Q, dV = P^T dC.
__kernel void attention_backward(int heads, int units, int dk, int dv, int ldQkv, int ldCtx,
                                 float scale, int causal, __global const float* qkv, ulong qo,
                                 __global const float* p, ulong po, __global const float* dctx,
                                 ulong dco, __global float* dqkv, ulong dqo, __local float* kl,
                                 __local float* vl, __local float* dcl, __local float* sl) {
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
    for (int e = lid; e < u * dk; e += lsz) kl[e] = K[(ulong)(e / dk) * ldQkv + e % dk];
    for (int e = lid; e < u * dv; e += lsz) {
        const int j = e / dv, c = e % dv;
        vl[e] = V[(ulong)j * ldQkv + c];
        dcl[j * lc + c] = dC[(ulong)j * ldCtx + c];
    }
    for (int e = lid; e < u * u; e += lsz) sl[(e / u) * ls + e % u] = P[e];
    barrier(CLK_LOCAL_MEM_FENCE);

    // rows of dS (in place of P's rows)
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u;
        __local float* row = sl + i * ls;
        __local const float* ci = dcl + i * lc;
        float dot = 0.0f;
        for (int j = 0; j < valid; ++j) {
            float dp = 0.0f;
            for (int c = 0; c < dv; ++c) dp += ci[c] * vl[j * dv + c];
            dot += dp * row[j];
        }
        for (int j = 0; j < valid; ++j) {
            float dp = 0.0f;
            for (int c = 0; c < dv; ++c) dp += ci[c] * vl[j * dv + c];
            row[j] = scale * row[j] * (dp - dot);
        }
        for (int j = valid; j < u; ++j) row[j] = 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    __global float* dbase = dqkv + dqo + rowsOff;
    // dQ rows (query i)
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u;
        __local const float* row = sl + i * ls;
        __global float* dq = dbase + (ulong)i * ldQkv + h * dk;
        for (int k = 0; k < dk; ++k) {
            float a = 0.0f;
            for (int j = 0; j < valid; ++j) a += row[j] * kl[j * dk + k];
            dq[k] = a;
        }
    }
    // dK and dV rows (key j): only queries i >= j see key j when causal
    for (int j = lid; j < u; j += lsz) {
        const int first = causal ? j : 0;
        __global float* dkr = dbase + (ulong)j * ldQkv + heads * dk + h * dk;
        __global float* dvr = dbase + (ulong)j * ldQkv + 2 * heads * dk + h * dv;
        for (int k = 0; k < dk; ++k) {
            float a = 0.0f;
            for (int i = first; i < u; ++i) a += sl[i * ls + j] * Q[(ulong)i * ldQkv + k];
            dkr[k] = a;
        }
        for (int c = 0; c < dv; ++c) {
            float a = 0.0f;
            for (int i = first; i < u; ++i) a += P[(ulong)i * u + j] * dcl[i * lc + c];
            dvr[c] = a;
        }
    }
}
