// Inverted dropout with the counter-based mask of compute/DropoutMask.h: the same splitmix64
// integer arithmetic as the CPU reference, so every device draws the same mask for a key.

ulong dropout_mix(ulong z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    return z ^ (z >> 31);
}

// mask[i] = scale when the 24 bits (0 .. 2^24 - 1, so an int holds them) of (key, i) are >= threshold, else 0; y = x * mask.
// y may alias x (each work-item reads its x[i] before writing y[i]).
// A population (hasBases): element i is index i % slice of model i / slice, whose key is
// dropoutKey(base, step) with the base in 4 floats of 16-bit limbs at bases[bo + 4 p].
__kernel void dropout_forward(ulong n, ulong key, int threshold, float scale,
                              __global const float* x, ulong xo, __global float* mask, ulong mo,
                              __global float* y, ulong yo, int hasBases, ulong slice,
                              __global const float* bases, ulong bo, ulong step) {
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        ulong k = key, idx = i;
        if (hasBases) {
            const ulong p = i / slice;
            __global const float* l = bases + bo + 4 * p;
            const ulong base = (ulong)l[0] | ((ulong)l[1] << 16) | ((ulong)l[2] << 32) |
                               ((ulong)l[3] << 48);
            k = dropout_mix(dropout_mix(base + 0x9E3779B97F4A7C15UL) ^
                            (step * 0xD1B54A32D192ED03UL + 0x8CB92BA72F3D8DD7UL));
            idx = i % slice;
        }
        const int bits = (int)(dropout_mix(k + (idx + 1) * 0x9E3779B97F4A7C15UL) >> 40);
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
