// Losses, one work-group per row: the per-row loss value and the gradient w.r.t. the output.

// loss[r] = mean over cols of (y - t)^2; dy = 2 (y - t) / cols * gradScale.
__kernel void mse_loss(int rows, int cols, __global const float* y, ulong yo,
                       __global const float* t, ulong to, __global float* dy, ulong dyo,
                       __global float* loss, ulong lo, float gradScale,
                       __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    y += yo + o;
    t += to + o;
    dy += dyo + o;
    float s = 0.0f;
    for (int j = lid; j < cols; j += lsz) {
        const float e = y[j] - t[j];
        s += e * e;
        dy[j] = 2.0f * e / (float)cols * gradScale;
    }
    s = nnwb_group_sum(scratch, s);
    if (lid == 0) loss[lo + r] = s / (float)cols;
}

// p = softmax(logits); loss = -sum t log p; dy = (sum(t) * p - t) * gradScale.
__kernel void softmax_cross_entropy(int rows, int cols, __global const float* x, ulong xo,
                                    __global const float* t, ulong to, __global float* prob,
                                    ulong po, __global float* dy, ulong dyo, __global float* loss,
                                    ulong lo, float gradScale, __local float* scratch) {
    const int r = (int)get_group_id(0);
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    if (r >= rows) return;
    const ulong o = (ulong)r * (ulong)cols;
    x += xo + o;
    t += to + o;
    prob += po + o;
    dy += dyo + o;
    float mx = -INFINITY;
    for (int j = lid; j < cols; j += lsz) mx = fmax(mx, x[j]);
    mx = nnwb_group_max(scratch, mx);
    float sum = 0.0f;
    for (int j = lid; j < cols; j += lsz) sum += exp(x[j] - mx);
    sum = nnwb_group_sum(scratch, sum);
    const float lse = mx + log(sum);
    float l = 0.0f, ts = 0.0f;
    for (int j = lid; j < cols; j += lsz) {
        l += t[j] * (x[j] - lse);
        ts += t[j];
    }
    const float2 lt = nnwb_group_sum2(scratch, l, ts);
    for (int j = lid; j < cols; j += lsz) {
        const float p = exp(x[j] - lse);
        prob[j] = p;
        dy[j] = (lt.y * p - t[j]) * gradScale;
    }
    if (lid == 0) loss[lo + r] = -lt.x;
}
