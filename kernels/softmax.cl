// Attention softmax over rows: y = softmax(scale * x), with an optional causal mask where row
// r is query (r % queries) and sees columns 0..query only. One work-group per row.

__kernel void softmax_forward(int rows, int cols, float scale, int causal, int queries,
                              __global const float* x, ulong xo, __global float* y, ulong yo,
                              __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    x += xo + o;
    y += yo + o;
    const int valid = causal ? min(cols, (r % queries) + 1) : cols;
    float mx = -INFINITY;
    for (int j = lid; j < valid; j += lsz) mx = fmax(mx, x[j] * scale);
    mx = nnwb_group_max(scratch, mx);
    float sum = 0.0f;
    for (int j = lid; j < valid; j += lsz) sum += exp(x[j] * scale - mx);
    sum = nnwb_group_sum(scratch, sum);
    const float inv = 1.0f / sum;
    for (int j = lid; j < cols; j += lsz) y[j] = j < valid ? exp(x[j] * scale - mx) * inv : 0.0f;
}

// dx = scale * y * (dy - sum(dy * y)) per row.
__kernel void softmax_backward(int rows, int cols, float scale, __global const float* y,
                               ulong yo, __global const float* dy, ulong dyo, __global float* dx,
                               ulong dxo, __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    y += yo + o;
    dy += dyo + o;
    dx += dxo + o;
    float dot = 0.0f;
    for (int j = lid; j < cols; j += lsz) dot += dy[j] * y[j];
    dot = nnwb_group_sum(scratch, dot);
    for (int j = lid; j < cols; j += lsz) dx[j] = scale * y[j] * (dy[j] - dot);
}
