// Lightweight convolution (fairseq): a depthwise 1-D convolution over the sequence with
// `heads` kernels of k taps, channel c using head c / (channels / heads); x, y and dy are
// [batch][units][channels]. Optional softmax over the taps. No atomics anywhere: the weight
// gradient is one work-group per (head, tap) with a fixed-order tree reduction.
// A population of `models` models: `batch` counts every model's samples (model m's are the
// m-th block of batch / models), model m's raw taps lie at weight + m * wstride (its gradient
// at dw + m * wstride), its effective taps at wsm + m * heads * k.

// wsm[h] = softmax(weight[h]) over the k taps, or a copy; one work-item per (model, head).
__kernel void lightconv_taps(int models, int heads, int k, int softmaxTaps,
                             __global const float* w, ulong wo, ulong wstride, __global float* wsm,
                             ulong so) {
    const int mh = (int)get_global_id(0);
    if (mh >= models * heads) return;
    const int m = mh / heads, h = mh % heads;
    w += wo + (ulong)m * wstride + (ulong)h * k;
    wsm += so + (ulong)mh * k;

    if (!softmaxTaps) {
        for (int j = 0; j < k; ++j) wsm[j] = w[j];
        return;
    }
    float mx = w[0];
    for (int j = 1; j < k; ++j) mx = fmax(mx, w[j]);
    float sum = 0.0f;
    for (int j = 0; j < k; ++j) {
        const float e = exp(w[j] - mx);
        wsm[j] = e;
        sum += e;
    }
    const float inv = 1.0f / sum;
    for (int j = 0; j < k; ++j) wsm[j] *= inv;
}

// y[b][t][c] = sum_j wsm[h][j] * x[b][t + j - padL][c] (zero outside the sequence).
__kernel void lightconv_forward(int models, int batch, int units, int channels, int heads, int k,
                                int padL, __global const float* x, ulong xo,
                                __global const float* wsm, ulong so, __global float* y,
                                ulong yo) {
    x += xo;
    wsm += so;
    y += yo;
    const int per = channels / heads;
    const ulong perModel = (ulong)(batch / models);
    const ulong n = (ulong)batch * (ulong)units * (ulong)channels;
    for (ulong e = get_global_id(0); e < n; e += get_global_size(0)) {
        const int c = (int)(e % (ulong)channels);
        const ulong bt = e / (ulong)channels;
        const int t = (int)(bt % (ulong)units);
        const ulong b = bt / (ulong)units;
        __global const float* w = wsm + ((b / perModel) * (ulong)heads + (ulong)(c / per)) * k;
        float s = 0.0f;
        for (int j = 0; j < k; ++j) {
            const int src = t + j - padL;
            if (src < 0 || src >= units) continue;
            s += w[j] * x[(b * (ulong)units + src) * (ulong)channels + c];
        }
        y[e] = s;
    }
}

// dx[b][s][c] = sum_j wsm[h][j] * dy[b][s - j + padL][c] (overwrites dx).
__kernel void lightconv_backward_dx(int models, int batch, int units, int channels, int heads,
                                    int k, int padL, __global const float* wsm, ulong so,
                                    __global const float* dy, ulong dyo, __global float* dx,
                                    ulong dxo) {
    wsm += so;
    dy += dyo;
    dx += dxo;
    const int per = channels / heads;
    const ulong perModel = (ulong)(batch / models);
    const ulong n = (ulong)batch * (ulong)units * (ulong)channels;
    for (ulong e = get_global_id(0); e < n; e += get_global_size(0)) {
        const int c = (int)(e % (ulong)channels);
        const ulong bs = e / (ulong)channels;
        const int s = (int)(bs % (ulong)units);
        const ulong b = bs / (ulong)units;
        __global const float* w = wsm + ((b / perModel) * (ulong)heads + (ulong)(c / per)) * k;
        float acc = 0.0f;
        for (int j = 0; j < k; ++j) {
            const int t = s - j + padL;
            if (t < 0 || t >= units) continue;
            acc += w[j] * dy[(b * (ulong)units + t) * (ulong)channels + c];
        }
        dx[e] = acc;
    }
}

// gw[m][h][j] = sum over model m's samples b, t and the channels of head h of
// dy[b][t][c] * x[b][t + j - padL][c]. One work-group per (m, h, j) = group id; gw is a scratch
// buffer of models * heads * k floats.
__kernel void lightconv_tap_grad(int models, int batch, int units, int channels, int heads, int k,
                                 int padL, __global const float* x, ulong xo,
                                 __global const float* dy, ulong dyo, __global float* gw,
                                 __local float* scratch) {
    const int mhj = (int)get_group_id(0);
    if (mhj >= models * heads * k) return;
    const int m = mhj / (heads * k), hj = mhj % (heads * k);
    const int h = hj / k, j = hj % k;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    const ulong perModel = (ulong)(batch / models);
    x += xo + (ulong)m * perModel * (ulong)units * (ulong)channels;  // model m's samples
    dy += dyo + (ulong)m * perModel * (ulong)units * (ulong)channels;
    const int per = channels / heads;
    const ulong n = perModel * (ulong)units * (ulong)per;
    float s = 0.0f;
    for (ulong e = lid; e < n; e += lsz) {
        const int cc = (int)(e % (ulong)per);
        const ulong bt = e / (ulong)per;
        const int t = (int)(bt % (ulong)units);
        const ulong b = bt / (ulong)units;
        const int src = t + j - padL;
        if (src < 0 || src >= units) continue;
        const int c = h * per + cc;
        s += dy[(b * (ulong)units + t) * (ulong)channels + c] *
             x[(b * (ulong)units + src) * (ulong)channels + c];
    }
    s = nnwb_group_sum(scratch, s);
    if (lid == 0) gw[mhj] = s;
}

// dw[h] += gw[h] through the optional tap softmax: dw += p * (g - sum(g * p)), or dw += g.
// One work-item per (model, head).
__kernel void lightconv_weight_grad_apply(int models, int heads, int k, int softmaxTaps,
                                          __global const float* gw, __global const float* wsm,
                                          ulong so, __global float* dw, ulong dwo,
                                          ulong wstride) {
    const int mh = (int)get_global_id(0);
    if (mh >= models * heads) return;
    const int m = mh / heads, h = mh % heads;
    gw += (ulong)mh * k;
    wsm += so + (ulong)mh * k;
    dw += dwo + (ulong)m * wstride + (ulong)h * k;
    if (!softmaxTaps) {
        for (int j = 0; j < k; ++j) dw[j] += gw[j];
        return;
    }
    float dot = 0.0f;
    for (int j = 0; j < k; ++j) dot += gw[j] * wsm[j];
    for (int j = 0; j < k; ++j) dw[j] += wsm[j] * (gw[j] - dot);
}
