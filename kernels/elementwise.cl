// Element-wise ops and copies: fill, copy, copy2d, axpy, add. Every kernel loops with a grid
// stride, so any global size works; offsets are in floats.

__kernel void fill_f32(__global float* x, ulong xo, ulong n, float value) {
    x += xo;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) x[i] = value;
}

__kernel void copy_f32(__global const float* src, ulong so, __global float* dst, ulong dO,
                       ulong n) {
    src += so;
    dst += dO;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) dst[i] = src[i];
}

// rows x cols values from a layout with leading dimension srcLd to one with dstLd.
__kernel void copy2d_f32(__global const float* src, ulong so, int srcLd, __global float* dst,
                         ulong dO, int dstLd, int rows, int cols) {
    src += so;
    dst += dO;
    const ulong n = (ulong)rows * (ulong)cols;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const ulong r = i / (ulong)cols, c = i % (ulong)cols;
        dst[r * (ulong)dstLd + c] = src[r * (ulong)srcLd + c];
    }
}

// y += alpha * x
__kernel void axpy_f32(ulong n, float alpha, __global const float* x, ulong xo, __global float* y,
                       ulong yo) {
    x += xo;
    y += yo;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) y[i] += alpha * x[i];
}

// out = a + b
__kernel void add_f32(ulong n, __global const float* a, ulong ao, __global const float* b,
                      ulong bo, __global float* out, ulong oo) {
    a += ao;
    b += bo;
    out += oo;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) out[i] = a[i] + b[i];
}
