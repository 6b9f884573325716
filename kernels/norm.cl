// Layer normalization over `cols` values per row (no learned gain), one work-group per row.
// Mean and variance in two passes, as the CPU reference.

// y = (x - mean) * rstd, rstd = 1 / sqrt(var + eps); rstd[r] kept for backward.
__kernel void norm_forward(int rows, int cols, float eps, __global const float* x, ulong xo,
                           __global float* y, ulong yo, __global float* rstd, ulong ro,
                           __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    x += xo + o;
    y += yo + o;
    float s = 0.0f;
    for (int j = lid; j < cols; j += lsz) s += x[j];
    const float mean = nnwb_group_sum(scratch, s) / (float)cols;
    float v = 0.0f;
    for (int j = lid; j < cols; j += lsz) v += (x[j] - mean) * (x[j] - mean);
    const float var = nnwb_group_sum(scratch, v) / (float)cols;
    const float rs = 1.0f / sqrt(var + eps);
    for (int j = lid; j < cols; j += lsz) y[j] = (x[j] - mean) * rs;
    if (lid == 0) rstd[ro + r] = rs;
}

// dx = rstd * (dy - mean(dy) - y * mean(dy * y)).
__kernel void norm_backward(int rows, int cols, __global const float* y, ulong yo,
                            __global const float* rstd, ulong ro, __global const float* dy,
                            ulong dyo, __global float* dx, ulong dxo, __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    y += yo + o;
    dy += dyo + o;
    dx += dxo + o;
    float a = 0.0f, b = 0.0f;
    for (int j = lid; j < cols; j += lsz) {
        a += dy[j];
        b += dy[j] * y[j];
    }
    const float2 m = nnwb_group_sum2(scratch, a, b) / (float)cols;
    const float rs = rstd[ro + r];
    for (int j = lid; j < cols; j += lsz) dx[j] = rs * (dy[j] - m.x - y[j] * m.y);
}

// The residual connection and the norm in one pass: sum = a + b, y = norm(sum), rstd kept.
__kernel void add_norm_forward(int rows, int cols, float eps, __global const float* a, ulong ao,
                               __global const float* b, ulong bo, __global float* sum, ulong so,
                               __global float* y, ulong yo, __global float* rstd, ulong ro,
                               __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    a += ao + o;
    b += bo + o;
    sum += so + o;
    y += yo + o;
    float s = 0.0f;
    for (int j = lid; j < cols; j += lsz) {
        const float x = a[j] + b[j];
        sum[j] = x;
        s += x;
    }
    const float mean = nnwb_group_sum(scratch, s) / (float)cols;
    float v = 0.0f;
    for (int j = lid; j < cols; j += lsz) v += (sum[j] - mean) * (sum[j] - mean);
    const float var = nnwb_group_sum(scratch, v) / (float)cols;
    const float rs = 1.0f / sqrt(var + eps);
    for (int j = lid; j < cols; j += lsz) y[j] = (sum[j] - mean) * rs;
    if (lid == 0) rstd[ro + r] = rs;
}

// dy += dy2, then dx = rstd * (dy - mean(dy) - y * mean(dy * y)).
__kernel void add_norm_backward(int rows, int cols, __global const float* y, ulong yo,
                                __global const float* rstd, ulong ro, __global float* dy,
                                ulong dyo, __global const float* dy2, ulong d2o,
                                __global float* dx, ulong dxo, __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    y += yo + o;
    dy += dyo + o;
    dy2 += d2o + o;
    dx += dxo + o;
    float a = 0.0f, b = 0.0f;
    for (int j = lid; j < cols; j += lsz) {
        const float g = dy[j] + dy2[j];
        dy[j] = g;
        a += g;
        b += g * y[j];
    }
    const float2 m = nnwb_group_sum2(scratch, a, b) / (float)cols;
    const float rs = rstd[ro + r];
    for (int j = lid; j < cols; j += lsz) dx[j] = rs * (dy[j] - m.x - y[j] * m.y);
}
