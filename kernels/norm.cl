// Layer normalization over `cols` values per row (no learned gain), one work-group per row.
// Mean and variance in two passes, as the CPU reference. Both kernels optionally take the
// residual connection that precedes a norm in attention blocks (one launch instead of two).

// x' = x + b (hasB; x' also written to sum) or x; y = (x' - mean) * rstd,
// rstd = 1 / sqrt(var + eps); rstd[r] kept for backward.
__kernel void norm_forward(int rows, int cols, float eps, __global const float* x, ulong xo,
                           __global const float* b, ulong bo, int hasB, __global float* sum,
                           ulong so, __global float* y, ulong yo, __global float* rstd, ulong ro,
                           __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    x += xo + o;
    b += bo + o;
    sum += so + o;
    y += yo + o;
    float s = 0.0f;
    for (int j = lid; j < cols; j += lsz) {
        const float v = hasB ? x[j] + b[j] : x[j];
        if (hasB) sum[j] = v;
        s += v;
    }
    const float mean = nnwb_group_sum(scratch, s) / (float)cols;
    float q = 0.0f;
    for (int j = lid; j < cols; j += lsz) {
        const float d = (hasB ? x[j] + b[j] : x[j]) - mean;
        q += d * d;
    }
    const float var = nnwb_group_sum(scratch, q) / (float)cols;
    const float rs = 1.0f / sqrt(var + eps);
    for (int j = lid; j < cols; j += lsz) y[j] = ((hasB ? x[j] + b[j] : x[j]) - mean) * rs;
    if (lid == 0) rstd[ro + r] = rs;
}

// g = dy + dy2 (hasDy2; g also written back to dy) or dy;
// dx = rstd * (g - mean(g) - y * mean(g * y)).
__kernel void norm_backward(int rows, int cols, __global const float* y, ulong yo,
                            __global const float* rstd, ulong ro, __global float* dy, ulong dyo,
                            __global const float* dy2, ulong d2o, int hasDy2, __global float* dx,
                            ulong dxo, __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    y += yo + o;
    dy += dyo + o;
    dy2 += d2o + o;
    dx += dxo + o;
    float a = 0.0f, c = 0.0f;
    for (int j = lid; j < cols; j += lsz) {
        float g = dy[j];
        if (hasDy2) {
            g += dy2[j];
            dy[j] = g;
        }
        a += g;
        c += g * y[j];
    }
    const float2 m = nnwb_group_sum2(scratch, a, c) / (float)cols;
    const float rs = rstd[ro + r];
    for (int j = lid; j < cols; j += lsz) dx[j] = rs * (dy[j] - m.x - y[j] * m.y);
}
