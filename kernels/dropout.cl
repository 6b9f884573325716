// Inverted dropout with the counter-based mask of compute/DropoutMask.h: the same splitmix64
// integer arithmetic as the CPU reference, so every device draws the same mask for a key.

ulong dropout_mix(ulong z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    return z ^ (z >> 31);
}

// mask[i] = scale when the 24 bits (0 .. 2^24 - 1, so an int holds them) of (key, i) are >= threshold, else 0; y = x * mask.
// y may alias x (each work-item reads its x[i] before writing y[i]).
__kernel void dropout_forward(ulong n, ulong key, int threshold, float scale,
                              __global const float* x, ulong xo, __global float* mask, ulong mo,
                              __global float* y, ulong yo) {
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const int bits = (int)(dropout_mix(key + (i + 1) * 0x9E3779B97F4A7C15UL) >> 40);
        const float m = bits >= threshold ? scale : 0.0f;
        const float xi = x[xo + i];
        mask[mo + i] = m;
        y[yo + i] = xi * m;
    }
}

// dx = dy * mask; dx may alias dy.
__kernel void dropout_backward(ulong n, __global const float* mask, ulong mo,
                               __global const float* dy, ulong dyo, __global float* dx,
                               ulong dxo) {
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        dx[dxo + i] = dy[dyo + i] * mask[mo + i];
}
