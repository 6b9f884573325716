// Bias + activation forward, activation backward and the bias gradient (column sums).
// Activation codes are nnwb::Activation's (NNWB_ACT_* defines, see common.cl); softmax is per
// row: bias_softmax_rows below, its backward softmax_backward in softmax.cl.

// nnwb_act and nnwb_act_grad live in common.cl (the gemm epilogue uses them too).

// z = x + bias[col] (hasBias != 0), y = f(z); element-wise activations. z may alias x.
// A population (biasStride != 0): row r adds the bias of model r / rowsPerModel, biasStride
// floats after the previous model's.
__kernel void bias_activation(int rows, int cols, __global const float* x, ulong xo,
                              __global const float* bias, ulong bo, int hasBias,
                              __global float* z, ulong zo, __global float* y, ulong yo, int act,
                              int rowsPerModel, ulong biasStride) {
    x += xo;
    bias += bo;
    z += zo;
    y += yo;
    const ulong n = (ulong)rows * (ulong)cols;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const ulong bi = i % (ulong)cols +
                         (biasStride ? i / (ulong)cols / (ulong)rowsPerModel * biasStride : 0);
        const float v = x[i] + (hasBias ? bias[bi] : 0.0f);
        z[i] = v;
        y[i] = nnwb_act(v, act);
    }
}

// Softmax activation: one work-group per row. z = x + bias, y = softmax(z) over the row.
__kernel void bias_softmax_rows(int rows, int cols, __global const float* x, ulong xo,
                                __global const float* bias, ulong bo, int hasBias,
                                __global float* z, ulong zo, __global float* y, ulong yo,
                                int rowsPerModel, ulong biasStride, __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;  // uniform per group
    const ulong o = (ulong)r * (ulong)cols;
    x += xo + o;
    bias += bo + (ulong)(r / rowsPerModel) * biasStride;
    z += zo + o;
    y += yo + o;
    float mx = -INFINITY;
    for (int j = lid; j < cols; j += lsz) {
        const float v = x[j] + (hasBias ? bias[j] : 0.0f);
        z[j] = v;
        mx = fmax(mx, v);
    }
    mx = nnwb_group_max(scratch, mx);
    float sum = 0.0f;
    for (int j = lid; j < cols; j += lsz) sum += exp(z[j] - mx);
    sum = nnwb_group_sum(scratch, sum);
    const float inv = 1.0f / sum;
    for (int j = lid; j < cols; j += lsz) y[j] = exp(z[j] - mx) * inv;
}

// dz = dy * f'(z) for the element-wise activations. dz may alias dy.
__kernel void activation_backward(int rows, int cols, __global const float* z, ulong zo,
                                  __global const float* y, ulong yo, __global const float* dy,
                                  ulong dyo, __global float* dz, ulong dzo, int act) {
    z += zo;
    y += yo;
    dy += dyo;
    dz += dzo;
    const ulong n = (ulong)rows * (ulong)cols;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        dz[i] = dy[i] * nnwb_act_grad(z[i], y[i], act);
}

// db[c] += sum over rows of dz[r][c]. Local size (LX, LY): LX columns per group, LY lanes
// splitting the rows (LY a power of two), reduced in a fixed tree order (deterministic).
// Global dimension 1 is (chunks * LY): with chunks > 1, group row g sums rows
// [g * rowChunk, (g + 1) * rowChunk) into partial[g][c] instead, and gemm_reduce_splits adds
// the chunks into db. scratch holds LX * LY floats. With act >= 0 the kernel first computes
// dz = dy * f'(z) (f element-wise, code act) and writes it: activation backward and bias
// gradient in one launch (dz may alias dy). A population: global dimension 2 is the model p;
// `rows` are one model's, its rows start p * rows * cols floats in, its sums go to
// db + p * dbStride (partial: the chunks of model p after those of model p - 1).
__kernel void bias_gradient(int rows, int cols, __global float* dz, ulong dzo,
                            __global float* db, ulong dbo, int rowChunk,
                            __global float* partial, int act, __global const float* z, ulong zo,
                            __global const float* y, ulong yo, __global const float* dy,
                            ulong dyo, ulong dbStride, __local float* scratch) {
    const int cx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int lx = (int)get_local_size(0), lyN = (int)get_local_size(1);
    const int c = (int)get_group_id(0) * lx + cx;
    const int chunk = (int)get_group_id(1), chunks = (int)get_num_groups(1);
    const int r0 = chunk * rowChunk, r1 = min(rows, r0 + rowChunk);
    const ulong model = get_group_id(2), rowOff = model * (ulong)rows * (ulong)cols;
    dzo += rowOff;
    zo += rowOff;
    yo += rowOff;
    dyo += rowOff;
    partial += model * (ulong)chunks * (ulong)cols;
    dz += dzo;
    db += dbo + model * dbStride;
    float s = 0.0f;
    if (c < cols) {
        if (act < 0) {
            for (int r = r0 + ly; r < r1; r += lyN) s += dz[(ulong)r * (ulong)cols + c];
        } else {
            for (int r = r0 + ly; r < r1; r += lyN) {
                const ulong i = (ulong)r * (ulong)cols + c;
                const float g = dy[dyo + i] * nnwb_act_grad(z[zo + i], y[yo + i], act);
                dz[i] = g;
                s += g;
            }
        }
    }
    scratch[ly * lx + cx] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lyN / 2; h > 0; h >>= 1) {
        if (ly < h) scratch[ly * lx + cx] += scratch[(ly + h) * lx + cx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ly != 0 || c >= cols) return;
    if (chunks == 1)
        db[c] += scratch[cx];
    else
        partial[(ulong)chunk * (ulong)cols + c] = scratch[cx];
}
