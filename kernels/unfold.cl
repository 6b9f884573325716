// Sliding windows (the MQL5 convolution): unfold copies windows of `window` values moved by
// `step` into rows; fold sums window gradients back (overwriting dx, no atomics: one
// work-item per dx value gathers every (position, offset) that read it, in position order).

// cols[b][p][w] = x[b][p * step + w] (0 past len).
__kernel void unfold_windows(int batch, int len, int window, int step, int positions,
                             __global const float* x, ulong xo, __global float* cols, ulong co) {
    x += xo;
    cols += co;
    const ulong n = (ulong)batch * (ulong)positions * (ulong)window;
    for (ulong e = get_global_id(0); e < n; e += get_global_size(0)) {
        const int w = (int)(e % (ulong)window);
        const ulong bp = e / (ulong)window;
        const int p = (int)(bp % (ulong)positions);
        const ulong b = bp / (ulong)positions;
        const int i = p * step + w;
        cols[e] = i < len ? x[b * (ulong)len + i] : 0.0f;
    }
}

// dx[b][i] = sum over p with 0 <= i - p * step < window, p < positions, of dcols[b][p][i - p*step].
__kernel void fold_windows(int batch, int len, int window, int step, int positions,
                           __global const float* dcols, ulong dco, __global float* dx, ulong dxo) {
    dcols += dco;
    dx += dxo;
    const ulong n = (ulong)batch * (ulong)len;
    for (ulong e = get_global_id(0); e < n; e += get_global_size(0)) {
        const int i = (int)(e % (ulong)len);
        const ulong b = e / (ulong)len;
        // p * step <= i and p * step > i - window (step >= 1, checked by the host).
        const int pLo = i >= window ? (i - window) / step + 1 : 0;
        const int pHi = min(positions - 1, i / step);
        float s = 0.0f;
        for (int p = pLo; p <= pHi; ++p) {
            const int w = i - p * step;
            s += dcols[(b * (ulong)positions + p) * (ulong)window + w];
        }
        dx[e] = s;
    }
}
