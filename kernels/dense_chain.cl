// A chain of up to 4 dense layers in few launches (nnwb::DenseChainForwardArgs in
// compute/Ops.h): y_l = f_l(y_{l-1} W_l^T + b_l), y_{-1} = x; f element-wise (the host falls
// back to the per-op path for softmax). Forward: one work-group per row, the row's activations
// ping-pong between two __local arrays of the widest layer's width, plus one __local array for
// partial sums (see dc_rows_product); weights are read from global memory. Backward: one work-group per row for the dz chain and dx, then one launch
// for every layer's weight and bias gradients. A population: row r is model r / rowsPerModel,
// whose W and b (dW and db) lie m * stride floats after model 0's.
// Unused layer slots (n >= layers) get sizes 0 and any valid buffer.

// Kernel arguments of layer n.
#define DC_FWD_LAYER(n)                                                                     \
    int in##n, int out##n, int act##n, __global const float *w##n, ulong wo##n,              \
        __global const float *b##n, ulong bo##n, ulong st##n, __global float *z##n, ulong zo##n, \
        __global float *y##n, ulong yo##n
#define DC_BWD_LAYER(n)                                                                     \
    int in##n, int out##n, int act##n, __global const float *w##n, ulong wo##n, ulong st##n, \
        __global const float *z##n, ulong zo##n, __global const float *y##n, ulong yo##n,    \
        __global float *dz##n, ulong dzo##n
#define DC_GRAD_LAYER(n)                                                                      \
    int in##n, int out##n, __global float *dw##n, ulong dwo##n, __global float *db##n,         \
        ulong dbo##n, ulong st##n, __global const float *dz##n, ulong dzo##n,                   \
        __global const float *y##n, ulong yo##n

// The start of the per-row kernels: row r of the group (its model m), the flat work-item id and
// count, and each layer slot's sizes, activation and model m's W. A group past the rows
// returns (uniform per group).
#define DC_ROW_PROLOGUE                                                                     \
    const int r = (int)get_group_id(0);                                                     \
    if (r >= rows) return;                                                                  \
    const int tid = (int)(get_local_id(1) * 32 + get_local_id(0));                          \
    const int T = (int)(get_local_size(1) * 32);                                            \
    const ulong m = (ulong)(r / rowsPerModel);                                              \
    const int IN[4] = {in0, in1, in2, in3}, OUT[4] = {out0, out1, out2, out3};              \
    const int ACT[4] = {act0, act1, act2, act3};                                            \
    __global const float* W[4] = {w0 + wo0 + m * st0, w1 + wo1 + m * st1, w2 + wo2 + m * st2, \
                                  w3 + wo3 + m * st3};

// The work-group is 2-D: 32 lanes (dimension 0, one warp's worth of consecutive addresses)
// by G groups (dimension 1). Row-major products y_i = sum_j W[i][j] a[j] give each group
// DC_K outputs per round, its lanes striding j (coalesced reads of W's rows), and reduce the
// 32 partial sums through __local `part` (G * DC_K * 33 floats); column products
// h_j = sum_i W[i][j] g[i] give each lane DC_K columns per round (32 * DC_K columns, coalesced)
// and each group every G-th i, reduced over the groups through `part` (G * 32 * DC_K floats).
// At batch 1 one work-group streams every weight, so the loads are issued DC_U at a time per
// output or column before they are used: the time goes to memory latency, not arithmetic.
#define DC_K 8
#define DC_U 4

// out values z_i = sum_j w[i * in + j] a[j] + b[i], y_i = f(z_i) of one row, also into `next`;
// every work-item of the group must call it (barriers).
void dc_rows_product(__global const float* w, __global const float* b, int in, int out,
                     int act, __local const float* a, __local float* next, __local float* part,
                     __global float* z, __global float* y) {
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int G = (int)get_local_size(1), tid = ly * 32 + lx;
    for (int base = 0; base < out; base += G * DC_K) {
        float acc[DC_K];
        for (int k = 0; k < DC_K; ++k) acc[k] = 0.0f;
        for (int j0 = lx; j0 < in; j0 += 32 * DC_U) {
            float av[DC_U], wv[DC_K][DC_U];
            for (int u = 0; u < DC_U; ++u) av[u] = j0 + 32 * u < in ? a[j0 + 32 * u] : 0.0f;
            for (int k = 0; k < DC_K; ++k) {
                const int i = base + ly + G * k;
                for (int u = 0; u < DC_U; ++u) {
                    const int j = j0 + 32 * u;
                    wv[k][u] = i < out && j < in ? w[(ulong)i * (ulong)in + j] : 0.0f;
                }
            }
            for (int k = 0; k < DC_K; ++k)
                for (int u = 0; u < DC_U; ++u) acc[k] = fma(wv[k][u], av[u], acc[k]);
        }
        for (int k = 0; k < DC_K; ++k) part[(ly + G * k) * 33 + lx] = acc[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < G * DC_K && base + tid < out) {
            const int i = base + tid;
            float s = 0.0f;
            for (int t = 0; t < 32; ++t) s += part[tid * 33 + t];
            s += b[i];
            const float v = nnwb_act(s, act);
            z[i] = s;
            y[i] = v;
            next[i] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// h_j = sum_i w[i * in + j] g[i] for j < in, then (below) h_j *= f'(z_j, y_j) of the layer
// below, written to dst and `next`; else written to dst. Every work-item calls it.
void dc_cols_product(__global const float* w, int in, int out, __local const float* g,
                     __local float* next, __local float* part, __global const float* zb,
                     __global const float* yb, int actb, __global float* dst, int below) {
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int G = (int)get_local_size(1), tid = ly * 32 + lx;
    const int chunk = 32 * DC_K;
    for (int base = 0; base < in; base += chunk) {
        float acc[DC_K];
        for (int k = 0; k < DC_K; ++k) acc[k] = 0.0f;
        for (int i0 = ly; i0 < out; i0 += G * DC_U) {
            float gv[DC_U], wv[DC_U][DC_K];
            for (int u = 0; u < DC_U; ++u) {
                const int i = i0 + G * u;
                gv[u] = i < out ? g[i] : 0.0f;
                for (int k = 0; k < DC_K; ++k) {
                    const int j = base + lx + 32 * k;
                    wv[u][k] = i < out && j < in ? w[(ulong)i * (ulong)in + j] : 0.0f;
                }
            }
            for (int u = 0; u < DC_U; ++u)
                for (int k = 0; k < DC_K; ++k) acc[k] = fma(wv[u][k], gv[u], acc[k]);
        }
        for (int k = 0; k < DC_K; ++k) part[ly * chunk + lx + 32 * k] = acc[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int c = tid; c < chunk && base + c < in; c += G * 32) {
            const int j = base + c;
            float s = 0.0f;
            for (int t = 0; t < G; ++t) s += part[t * chunk + c];
            if (below) {
                s *= nnwb_act_grad(zb[j], yb[j], actb);
                next[j] = s;
            }
            dst[j] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void dense_chain_forward(int layers, int rows, int rowsPerModel,
                                  __global const float* x, ulong xo, DC_FWD_LAYER(0),
                                  DC_FWD_LAYER(1), DC_FWD_LAYER(2), DC_FWD_LAYER(3),
                                  __local float* bufA, __local float* bufB,
                                  __local float* part) {
    DC_ROW_PROLOGUE
    __global const float* B[4] = {b0 + bo0 + m * st0, b1 + bo1 + m * st1, b2 + bo2 + m * st2,
                                  b3 + bo3 + m * st3};
    __global float* Z[4] = {z0 + zo0, z1 + zo1, z2 + zo2, z3 + zo3};
    __global float* Y[4] = {y0 + yo0, y1 + yo1, y2 + yo2, y3 + yo3};
    __local float* a = bufA;
    __local float* next = bufB;
    x += xo + (ulong)r * (ulong)in0;
    for (int j = tid; j < in0; j += T) a[j] = x[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = 0; l < layers; ++l) {
        const ulong o = (ulong)r * (ulong)OUT[l];
        dc_rows_product(W[l], B[l], IN[l], OUT[l], ACT[l], a, next, part, Z[l] + o, Y[l] + o);
        __local float* t = a;
        a = next;
        next = t;
    }
}

// Per row, last layer first: dz_L = dy * f'(z_L); the input gradient g = dz_l W_l goes to
// dz_{l-1} = g * f'(z_{l-1}) or, for layer 0, to dx (when hasDx).
__kernel void dense_chain_backward_rows(int layers, int rows, int rowsPerModel,
                                        __global const float* dy, ulong dyo, __global float* dx,
                                        ulong dxo, int hasDx, DC_BWD_LAYER(0), DC_BWD_LAYER(1),
                                        DC_BWD_LAYER(2), DC_BWD_LAYER(3), __local float* bufA,
                                        __local float* bufB, __local float* part) {
    DC_ROW_PROLOGUE
    __global const float* Z[4] = {z0 + zo0, z1 + zo1, z2 + zo2, z3 + zo3};
    __global const float* Y[4] = {y0 + yo0, y1 + yo1, y2 + yo2, y3 + yo3};
    __global float* DZ[4] = {dz0 + dzo0, dz1 + dzo1, dz2 + dzo2, dz3 + dzo3};
    __local float* g = bufA;
    __local float* h = bufB;
    const int last = layers - 1;
    {
        const ulong o = (ulong)r * (ulong)OUT[last];
        for (int i = tid; i < OUT[last]; i += T) {
            const float v =
                dy[dyo + o + i] * nnwb_act_grad(Z[last][o + i], Y[last][o + i], ACT[last]);
            DZ[last][o + i] = v;
            g[i] = v;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = last; l >= 0; --l) {
        if (l == 0 && !hasDx) break;
        const ulong oi = (ulong)r * (ulong)IN[l];
        if (l > 0)
            dc_cols_product(W[l], IN[l], OUT[l], g, h, part, Z[l - 1] + oi, Y[l - 1] + oi,
                            ACT[l - 1], DZ[l - 1] + oi, 1);
        else
            dc_cols_product(W[0], IN[0], OUT[0], g, h, part, Z[0], Y[0], 0, dx + dxo + oi, 0);
        __local float* t = g;
        g = h;
        h = t;
    }
}

// dW_l[m] += dz_l^T input_l and db_l[m] += column sums of dz_l over model m's rows; one
// work-item per weight or bias value of every layer and model (bias as column `in`).
__kernel void dense_chain_weight_grad(int layers, int models, int rowsPerModel,
                                      __global const float* x, ulong xo, DC_GRAD_LAYER(0),
                                      DC_GRAD_LAYER(1), DC_GRAD_LAYER(2), DC_GRAD_LAYER(3)) {
    const int IN[4] = {in0, in1, in2, in3}, OUT[4] = {out0, out1, out2, out3};
    __global float* DW[4] = {dw0 + dwo0, dw1 + dwo1, dw2 + dwo2, dw3 + dwo3};
    __global float* DB[4] = {db0 + dbo0, db1 + dbo1, db2 + dbo2, db3 + dbo3};
    const ulong ST[4] = {st0, st1, st2, st3};
    __global const float* DZ[4] = {dz0 + dzo0, dz1 + dzo1, dz2 + dzo2, dz3 + dzo3};
    __global const float* A[4] = {x + xo, y0 + yo0, y1 + yo1, y2 + yo2};  // layer inputs
    // 32-bit index arithmetic (the host keeps the total under 2^31).
    uint total = 0;
    for (int l = 0; l < layers; ++l) total += (uint)models * (uint)OUT[l] * (uint)(IN[l] + 1);
    for (uint k = get_global_id(0); k < total; k += get_global_size(0)) {
        int l = 0;
        uint rest = k;
        for (;;) {
            const uint n = (uint)models * (uint)OUT[l] * (uint)(IN[l] + 1);
            if (rest < n) break;
            rest -= n;
            ++l;
        }
        const int in = IN[l], out = OUT[l];
        const uint per = (uint)out * (uint)(in + 1);
        const ulong m = rest / per;
        const uint e = rest % per;
        const int i = (int)(e / (uint)(in + 1)), j = (int)(e % (uint)(in + 1));
        const ulong r0 = m * (ulong)rowsPerModel, r1 = r0 + (ulong)rowsPerModel;
        float s = 0.0f;
        if (j < in) {
            for (ulong r = r0; r < r1; ++r)
                s = fma(DZ[l][r * (ulong)out + i], A[l][r * (ulong)in + j], s);
            DW[l][m * ST[l] + (ulong)i * (ulong)in + j] += s;
        } else {
            for (ulong r = r0; r < r1; ++r) s += DZ[l][r * (ulong)out + i];
            DB[l][m * ST[l] + i] += s;
        }
    }
}
