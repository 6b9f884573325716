// Layer normalization over `cols` values per row (no learned gain), a team of work-items per row.
// Mean and variance in two passes, as the CPU reference. Both kernels optionally take the
// residual connection that precedes a norm in attention blocks (one launch instead of two).

// Rows are spread over teams of `team` work-items (a power of two dividing the local size; the
// host picks the power of two at or above cols, up to the local size), local size / team rows
// per work-group, so that short rows (64 values) do not leave most of a work-group idle. The
// sums run over a team in the same order as a whole work-group's did with team == local size.

// Sum of v over the calling work-item's team of `team` (every work-item of the work-group must
// call it); `buf` holds get_local_size(0) floats.
float norm_team_sum(__local float* buf, float v, int team) {
    const int lid = (int)get_local_id(0), lane = lid % team;
    buf[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = team / 2; s > 0; s >>= 1) {
        if (lane < s) buf[lid] += buf[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float r = buf[lid - lane];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

// Two sums at once; `buf` holds 2 * get_local_size(0) floats.
float2 norm_team_sum2(__local float* buf, float a, float b, int team) {
    const int lid = (int)get_local_id(0), lane = lid % team, n = (int)get_local_size(0);
    buf[lid] = a;
    buf[n + lid] = b;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = team / 2; s > 0; s >>= 1) {
        if (lane < s) {
            buf[lid] += buf[lid + s];
            buf[n + lid] += buf[n + lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float2 r = (float2)(buf[lid - lane], buf[n + lid - lane]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

// x' = x + b (hasB; x' also written to sum) or x; y = (x' - mean) * rstd,
// rstd = 1 / sqrt(var + eps); rstd[r] kept for backward.
__kernel void norm_forward(int rows, int cols, float eps, __global const float* x, ulong xo,
                           __global const float* b, ulong bo, int hasB, __global float* sum,
                           ulong so, __global float* y, ulong yo, __global float* rstd, ulong ro,
                           int team, __local float* scratch) {
    const int lid = (int)get_local_id(0), lane = lid % team;
    const int r = (int)get_group_id(0) * ((int)get_local_size(0) / team) + lid / team;
    const int end = r < rows ? cols : 0;  // a team past the last row only joins the sums
    const ulong o = (ulong)min(r, rows - 1) * (ulong)cols;
    x += xo + o;
    b += bo + o;
    sum += so + o;
    y += yo + o;
    float s = 0.0f;
    for (int j = lane; j < end; j += team) {
        const float v = hasB ? x[j] + b[j] : x[j];
        if (hasB) sum[j] = v;
        s += v;
    }
    const float mean = norm_team_sum(scratch, s, team) / (float)cols;
    float q = 0.0f;
    for (int j = lane; j < end; j += team) {
        const float d = (hasB ? x[j] + b[j] : x[j]) - mean;
        q += d * d;
    }
    const float var = norm_team_sum(scratch, q, team) / (float)cols;
    const float rs = 1.0f / sqrt(var + eps);
    for (int j = lane; j < end; j += team) y[j] = ((hasB ? x[j] + b[j] : x[j]) - mean) * rs;
    if (lane == 0 && r < rows) rstd[ro + r] = rs;
}

// g = dy + dy2 (hasDy2; g also written back to dy) or dy;
// dx = rstd * (g - mean(g) - y * mean(g * y)).
__kernel void norm_backward(int rows, int cols, __global const float* y, ulong yo,
                            __global const float* rstd, ulong ro, __global float* dy, ulong dyo,
                            __global const float* dy2, ulong d2o, int hasDy2, __global float* dx,
                            ulong dxo, int team, __local float* scratch) {
    const int lid = (int)get_local_id(0), lane = lid % team;
    const int r = (int)get_group_id(0) * ((int)get_local_size(0) / team) + lid / team;
    const int end = r < rows ? cols : 0;
    const ulong o = (ulong)min(r, rows - 1) * (ulong)cols;
    y += yo + o;
    dy += dyo + o;
    dy2 += d2o + o;
    dx += dxo + o;
    float a = 0.0f, c = 0.0f;
    for (int j = lane; j < end; j += team) {
        float g = dy[j];
        if (hasDy2) {
            g += dy2[j];
            dy[j] = g;
        }
        a += g;
        c += g * y[j];
    }
    const float2 m = norm_team_sum2(scratch, a, c, team) / (float)cols;
    const float rs = rstd[ro + min(r, rows - 1)];
    for (int j = lane; j < end; j += team) dx[j] = rs * (dy[j] - m.x - y[j] * m.y);
}
