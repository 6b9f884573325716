// A chain of up to 4 dense layers in few launches (nnwb::DenseChainForwardArgs in
// compute/Ops.h): y_l = f_l(y_{l-1} W_l^T + b_l), y_{-1} = x; f element-wise (the host falls
// back to the per-op path for softmax). Forward: one work-group per row, the row's activations
// ping-pong between two __local arrays of the widest layer's width; weights are read from
// global memory. Backward: one work-group per row for the dz chain and dx, then one launch
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

// Dot product of a global row and a local vector, four at a time where it can.
float dc_dot(__global const float* w, __local const float* a, int n) {
    float s = 0.0f;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        const float4 wv = vload4(0, w + j);
        s = fma(wv.x, a[j], s);
        s = fma(wv.y, a[j + 1], s);
        s = fma(wv.z, a[j + 2], s);
        s = fma(wv.w, a[j + 3], s);
    }
    for (; j < n; ++j) s = fma(w[j], a[j], s);
    return s;
}

__kernel void dense_chain_forward(int layers, int rows, int rowsPerModel,
                                  __global const float* x, ulong xo, DC_FWD_LAYER(0),
                                  DC_FWD_LAYER(1), DC_FWD_LAYER(2), DC_FWD_LAYER(3),
                                  __local float* bufA, __local float* bufB) {
    const int r = (int)get_group_id(0);
    if (r >= rows) return;  // uniform per group
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const ulong m = (ulong)(r / rowsPerModel);
    const int IN[4] = {in0, in1, in2, in3}, OUT[4] = {out0, out1, out2, out3};
    const int ACT[4] = {act0, act1, act2, act3};
    __global const float* W[4] = {w0 + wo0 + m * st0, w1 + wo1 + m * st1, w2 + wo2 + m * st2,
                                  w3 + wo3 + m * st3};
    __global const float* B[4] = {b0 + bo0 + m * st0, b1 + bo1 + m * st1, b2 + bo2 + m * st2,
                                  b3 + bo3 + m * st3};
    __global float* Z[4] = {z0 + zo0, z1 + zo1, z2 + zo2, z3 + zo3};
    __global float* Y[4] = {y0 + yo0, y1 + yo1, y2 + yo2, y3 + yo3};
    __local float* a = bufA;
    __local float* next = bufB;
    x += xo + (ulong)r * (ulong)in0;
    for (int j = lid; j < in0; j += lsz) a[j] = x[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = 0; l < layers; ++l) {
        const int in = IN[l], out = OUT[l];
        const ulong o = (ulong)r * (ulong)out;
        for (int i = lid; i < out; i += lsz) {
            const float s = dc_dot(W[l] + (ulong)i * (ulong)in, a, in) + B[l][i];
            const float v = nnwb_act(s, ACT[l]);
            Z[l][o + i] = s;
            Y[l][o + i] = v;
            next[i] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
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
                                        __local float* bufB) {
    const int r = (int)get_group_id(0);
    if (r >= rows) return;  // uniform per group
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const ulong m = (ulong)(r / rowsPerModel);
    const int IN[4] = {in0, in1, in2, in3}, OUT[4] = {out0, out1, out2, out3};
    const int ACT[4] = {act0, act1, act2, act3};
    __global const float* W[4] = {w0 + wo0 + m * st0, w1 + wo1 + m * st1, w2 + wo2 + m * st2,
                                  w3 + wo3 + m * st3};
    __global const float* Z[4] = {z0 + zo0, z1 + zo1, z2 + zo2, z3 + zo3};
    __global const float* Y[4] = {y0 + yo0, y1 + yo1, y2 + yo2, y3 + yo3};
    __global float* DZ[4] = {dz0 + dzo0, dz1 + dzo1, dz2 + dzo2, dz3 + dzo3};
    __local float* g = bufA;
    __local float* h = bufB;
    const int last = layers - 1;
    {
        const ulong o = (ulong)r * (ulong)OUT[last];
        for (int i = lid; i < OUT[last]; i += lsz) {
            const float v = dy[dyo + o + i] * nnwb_act_grad(Z[last][o + i], Y[last][o + i], ACT[last]);
            DZ[last][o + i] = v;
            g[i] = v;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = last; l >= 0; --l) {
        if (l == 0 && !hasDx) break;
        const int in = IN[l], out = OUT[l];
        const ulong oi = (ulong)r * (ulong)in;
        for (int j = lid; j < in; j += lsz) {
            float s = 0.0f;
            for (int i = 0; i < out; ++i) s = fma(W[l][(ulong)i * (ulong)in + j], g[i], s);
            if (l > 0) {
                s *= nnwb_act_grad(Z[l - 1][oi + j], Y[l - 1][oi + j], ACT[l - 1]);
                DZ[l - 1][oi + j] = s;
                h[j] = s;
            } else {
                dx[dxo + oi + j] = s;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
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
    ulong total = 0;
    for (int l = 0; l < layers; ++l)
        total += (ulong)models * (ulong)OUT[l] * (ulong)(IN[l] + 1);
    for (ulong k = get_global_id(0); k < total; k += get_global_size(0)) {
        int l = 0;
        ulong rest = k;
        for (;;) {
            const ulong n = (ulong)models * (ulong)OUT[l] * (ulong)(IN[l] + 1);
            if (rest < n) break;
            rest -= n;
            ++l;
        }
        const int in = IN[l], out = OUT[l];
        const ulong per = (ulong)out * (ulong)(in + 1);
        const ulong m = rest / per, e = rest % per;
        const int i = (int)(e / (ulong)(in + 1)), j = (int)(e % (ulong)(in + 1));
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
