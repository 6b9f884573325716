// The attention core fused per (sample, head): one work-group per (sample b, head h), work-item
// `lid` handles query rows (or key rows) lid, lid + lsz, ... (compute/Ops.h, AttentionShape,
// gives the layout). K, V and the rows of scores live in local memory; the host uses these
// kernels only where they fit, else composes the core from gemm and softmax.
// Rows of Q, K, V and dC are held as float4s, zero-padded to whole float4s, so each local read
// brings four values and serves four to sixteen multiply-adds; rows that each work-item reads
// for itself are padded to an odd number of float4s (PAD4) and score rows to an odd length
// (ODD), so that work-items reading their own rows hit different banks.

#define ODD(n) ((n) | 1)
#define V4(n) (((n) + 3) >> 2)
#define PAD4(n) (V4(n) | 1)

inline float hsum4(float4 v) {
    return (v.x + v.y) + (v.z + v.w);
}

// p[c .. c + 3] = v, the components at c + t >= n skipped.
inline void store4(__global float* p, int c, int n, float4 v) {
    if (c < n) p[c] = v.x;
    if (c + 1 < n) p[c + 1] = v.y;
    if (c + 2 < n) p[c + 2] = v.z;
    if (c + 3 < n) p[c + 3] = v.w;
}

// rows x n values from src (row stride ld) into dst as rows of w4 float4s, zeros past n.
inline void loadRows(__local float4* dst, int w4, __global const float* src, ulong ld, int rows,
                     int n, int lid, int lsz) {
    __local float* d = (__local float*)dst;
    const int w = 4 * w4;
    for (int e = lid; e < rows * w; e += lsz) {
        const int j = e / w, k = e % w;
        d[e] = k < n ? src[(ulong)j * ld + k] : 0.0f;
    }
}

// P = softmax(scale * Q K^T) (causal: query i sees keys 0..i), C = P V.
// Local: ql holds Q (rows of PAD4(dk) float4s), kl K and vl V (V4 float4s a row), sl the
// score rows (ODD(units) floats a row).
__kernel void attention_forward(int heads, int units, int dk, int dv, int ldQkv, int ldCtx,
                                float scale, int causal, __global const float* qkv, ulong qo,
                                __global float* p, ulong po, __global float* ctx, ulong co,
                                __local float4* ql, __local float4* kl, __local float4* vl,
                                __local float* sl) {
    const int g = (int)get_group_id(0), b = g / heads, h = g % heads;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int u = units, d4 = V4(dk), q4 = PAD4(dk), v4 = V4(dv), ls = ODD(u);
    __global const float* base = qkv + qo + (ulong)b * (ulong)u * (ulong)ldQkv;
    loadRows(ql, q4, base + h * dk, ldQkv, u, dk, lid, lsz);
    loadRows(kl, d4, base + heads * dk + h * dk, ldQkv, u, dk, lid, lsz);
    loadRows(vl, v4, base + 2 * heads * dk + h * dv, ldQkv, u, dv, lid, lsz);
    barrier(CLK_LOCAL_MEM_FENCE);

    __global float* C = ctx + co + (ulong)b * (ulong)u * (ulong)ldCtx + h * dv;
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u;
        __local float* row = sl + i * ls;
        __local const float4* qi = ql + i * q4;
        // scores, four keys at a time
        int j = 0;
        for (; j + 4 <= valid; j += 4) {
            float4 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
            __local const float4* k0 = kl + j * d4;
            for (int k = 0; k < d4; ++k) {
                const float4 q = qi[k];
                s0 += q * k0[k];
                s1 += q * k0[d4 + k];
                s2 += q * k0[2 * d4 + k];
                s3 += q * k0[3 * d4 + k];
            }
            row[j] = hsum4(s0) * scale;
            row[j + 1] = hsum4(s1) * scale;
            row[j + 2] = hsum4(s2) * scale;
            row[j + 3] = hsum4(s3) * scale;
        }
        for (; j < valid; ++j) {
            float4 s = 0.0f;
            for (int k = 0; k < d4; ++k) s += qi[k] * kl[j * d4 + k];
            row[j] = hsum4(s) * scale;
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
        // context row, sixteen values at a time
        __global float* ci = C + (ulong)i * ldCtx;
        int c = 0;
        for (; c + 4 <= v4; c += 4) {
            float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (j = 0; j < valid; ++j) {
                const float pj = row[j];
                __local const float4* vj = vl + j * v4 + c;
                a0 += pj * vj[0];
                a1 += pj * vj[1];
                a2 += pj * vj[2];
                a3 += pj * vj[3];
            }
            store4(ci, 4 * c, dv, a0);
            store4(ci, 4 * c + 4, dv, a1);
            store4(ci, 4 * c + 8, dv, a2);
            store4(ci, 4 * c + 12, dv, a3);
        }
        for (; c < v4; ++c) {
            float4 a = 0.0f;
            for (j = 0; j < valid; ++j) a += row[j] * vl[j * v4 + c];
            store4(ci, 4 * c, dv, a);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // P in consecutive addresses (coalesced)
    __global float* P = p + po + (ulong)g * (ulong)u * (ulong)u;
    for (int e = lid; e < u * u; e += lsz) P[e] = sl[(e / u) * ls + e % u];
}

// From dC to dQ, dK and dV (overwritten in dqkv's Q, K and V columns):
// dV = P^T dC, dP = dC V^T, dS = scale * P * (dP - rowsum(dP * P)), dQ = dS K, dK = dS^T Q.
// Local: kl holds K (V4(dk) float4s a row); vq holds V (V4(dv)), then Q (V4(dk)); dcl holds
// dC (PAD4(dv)); sl holds P, then dS (ODD(units) floats a row).
__kernel void attention_backward(int heads, int units, int dk, int dv, int ldQkv, int ldCtx,
                                 float scale, int causal, __global const float* qkv, ulong qo,
                                 __global const float* p, ulong po, __global const float* dctx,
                                 ulong dco, __global float* dqkv, ulong dqo, __local float4* kl,
                                 __local float4* vq, __local float4* dcl, __local float* sl) {
    const int g = (int)get_group_id(0), b = g / heads, h = g % heads;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const int u = units, d4 = V4(dk), v4 = V4(dv), c4 = PAD4(dv), ls = ODD(u);
    const ulong rowsOff = (ulong)b * (ulong)u * (ulong)ldQkv;
    __global const float* base = qkv + qo + rowsOff;
    __global const float* P = p + po + (ulong)g * (ulong)u * (ulong)u;
    __global float* dbase = dqkv + dqo + rowsOff;
    loadRows(kl, d4, base + heads * dk + h * dk, ldQkv, u, dk, lid, lsz);
    loadRows(vq, v4, base + 2 * heads * dk + h * dv, ldQkv, u, dv, lid, lsz);
    loadRows(dcl, c4, dctx + dco + (ulong)b * (ulong)u * (ulong)ldCtx + h * dv, ldCtx, u, dv, lid,
             lsz);
    for (int e = lid; e < u * u; e += lsz) sl[(e / u) * ls + e % u] = P[e];
    barrier(CLK_LOCAL_MEM_FENCE);

    // dV rows (key j): only queries i >= j see key j when causal
    for (int j = lid; j < u; j += lsz) {
        const int first = causal ? j : 0;
        __global float* dvr = dbase + (ulong)j * ldQkv + 2 * heads * dk + h * dv;
        int c = 0;
        for (; c + 4 <= v4; c += 4) {
            float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (int i = first; i < u; ++i) {
                const float pij = sl[i * ls + j];
                __local const float4* d = dcl + i * c4 + c;
                a0 += pij * d[0];
                a1 += pij * d[1];
                a2 += pij * d[2];
                a3 += pij * d[3];
            }
            store4(dvr, 4 * c, dv, a0);
            store4(dvr, 4 * c + 4, dv, a1);
            store4(dvr, 4 * c + 8, dv, a2);
            store4(dvr, 4 * c + 12, dv, a3);
        }
        for (; c < v4; ++c) {
            float4 a = 0.0f;
            for (int i = first; i < u; ++i) a += sl[i * ls + j] * dcl[i * c4 + c];
            store4(dvr, 4 * c, dv, a);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // rows of dS in place of P's: first P * dP with the row's sum of it, then the rest
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u;
        __local float* row = sl + i * ls;
        __local const float4* ci = dcl + i * c4;
        float dot = 0.0f;
        int j = 0;
        for (; j + 4 <= valid; j += 4) {
            float4 d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
            __local const float4* v0 = vq + j * v4;
            for (int c = 0; c < v4; ++c) {
                const float4 x = ci[c];
                d0 += x * v0[c];
                d1 += x * v0[v4 + c];
                d2 += x * v0[2 * v4 + c];
                d3 += x * v0[3 * v4 + c];
            }
            const float e0 = hsum4(d0) * row[j], e1 = hsum4(d1) * row[j + 1],
                        e2 = hsum4(d2) * row[j + 2], e3 = hsum4(d3) * row[j + 3];
            row[j] = e0;
            row[j + 1] = e1;
            row[j + 2] = e2;
            row[j + 3] = e3;
            dot += (e0 + e1) + (e2 + e3);
        }
        for (; j < valid; ++j) {
            float4 d = 0.0f;
            for (int c = 0; c < v4; ++c) d += ci[c] * vq[j * v4 + c];
            const float e = hsum4(d) * row[j];
            row[j] = e;
            dot += e;
        }
        __global const float* pi = P + (ulong)i * u;
        for (j = 0; j < valid; ++j) row[j] = scale * (row[j] - pi[j] * dot);
        for (; j < u; ++j) row[j] = 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    loadRows(vq, d4, base + h * dk, ldQkv, u, dk, lid, lsz);
    barrier(CLK_LOCAL_MEM_FENCE);

    // dQ rows (query i)
    for (int i = lid; i < u; i += lsz) {
        const int valid = causal ? i + 1 : u;
        __local const float* row = sl + i * ls;
        __global float* dq = dbase + (ulong)i * ldQkv + h * dk;
        int k = 0;
        for (; k + 4 <= d4; k += 4) {
            float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (int j = 0; j < valid; ++j) {
                const float s = row[j];
                __local const float4* kj = kl + j * d4 + k;
                a0 += s * kj[0];
                a1 += s * kj[1];
                a2 += s * kj[2];
                a3 += s * kj[3];
            }
            store4(dq, 4 * k, dk, a0);
            store4(dq, 4 * k + 4, dk, a1);
            store4(dq, 4 * k + 8, dk, a2);
            store4(dq, 4 * k + 12, dk, a3);
        }
        for (; k < d4; ++k) {
            float4 a = 0.0f;
            for (int j = 0; j < valid; ++j) a += row[j] * kl[j * d4 + k];
            store4(dq, 4 * k, dk, a);
        }
    }
    // dK rows (key j)
    for (int j = lid; j < u; j += lsz) {
        const int first = causal ? j : 0;
        __global float* dkr = dbase + (ulong)j * ldQkv + heads * dk + h * dk;
        int k = 0;
        for (; k + 4 <= d4; k += 4) {
            float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (int i = first; i < u; ++i) {
                const float s = sl[i * ls + j];
                __local const float4* qi = vq + i * d4 + k;
                a0 += s * qi[0];
                a1 += s * qi[1];
                a2 += s * qi[2];
                a3 += s * qi[3];
            }
            store4(dkr, 4 * k, dk, a0);
            store4(dkr, 4 * k + 4, dk, a1);
            store4(dkr, 4 * k + 8, dk, a2);
            store4(dkr, 4 * k + 12, dk, a3);
        }
        for (; k < d4; ++k) {
            float4 a = 0.0f;
            for (int i = first; i < u; ++i) a += sl[i * ls + j] * vq[i * d4 + k];
            store4(dkr, 4 * k, dk, a);
        }
    }
}
