// Optimizer steps, one work-item per weight (grid stride). The host passes the derived
// constants (Adam's step = lr / bc1, keep = 1 - lr * wd, rbc2 = 1 / sqrt(bc2)) computed in
// float exactly as the CPU reference does.

// With hasSkip, the step does nothing once skip[so] >= 0 (the divergence flag is set).

// SGD with momentum and (coupled) weight decay: v = m v + g + wd w; w -= lr v.
__kernel void sgd_step(ulong n, __global float* w, ulong wo, __global const float* g, ulong go,
                       __global float* vel, ulong vo, float lr, float momentum, float wd,
                       __global const float* skip, ulong so, int hasSkip) {
    if (hasSkip && skip[so] >= 0.0f) return;
    w += wo;
    g += go;
    vel += vo;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const float v = momentum * vel[i] + g[i] + wd * w[i];
        vel[i] = v;
        w[i] -= lr * v;
    }
}

// A population: n values in slices of `slice`, slice p with row p of `hyper` (SGD: lr, momentum,
// wd; Adam: lr, beta1, beta2, eps, wd, bc1, bc2) and masked once skip[so + p] >= 0 (hasSkip).
__kernel void sgd_step_models(ulong n, ulong slice, __global float* w, ulong wo,
                              __global const float* g, ulong go, __global float* vel, ulong vo,
                              __global const float* hyper, ulong ho, __global const float* skip,
                              ulong so, int hasSkip) {
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const ulong p = i / slice;
        if (hasSkip && skip[so + p] >= 0.0f) continue;
        __global const float* h = hyper + ho + p * 3;
        const float v = h[1] * vel[vo + i] + g[go + i] + h[2] * w[wo + i];
        vel[vo + i] = v;
        w[wo + i] -= h[0] * v;
    }
}

__kernel void adam_step_models(ulong n, ulong slice, __global float* w, ulong wo,
                               __global const float* g, ulong go, __global float* m, ulong mo,
                               __global float* v, ulong vo, __global const float* hyper, ulong ho,
                               __global const float* skip, ulong so, int hasSkip) {
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const ulong p = i / slice;
        if (hasSkip && skip[so + p] >= 0.0f) continue;
        __global const float* h = hyper + ho + p * 7;
        const float beta1 = h[1], beta2 = h[2], eps = h[3];
        const float step = h[0] / h[5], keep = 1.0f - h[0] * h[4], rbc2 = 1.0f / sqrt(h[6]);
        const float gi = g[go + i];
        const float mi = beta1 * m[mo + i] + (1.0f - beta1) * gi;
        const float vi = beta2 * v[vo + i] + (1.0f - beta2) * gi * gi;
        m[mo + i] = mi;
        v[vo + i] = vi;
        w[wo + i] = w[wo + i] * keep - step * mi / (sqrt(vi) * rbc2 + eps);
    }
}

// AdamW: m, v moments; w = w * keep - step * m / (sqrt(v) * rbc2 + eps).
__kernel void adam_step(ulong n, __global float* w, ulong wo, __global const float* g, ulong go,
                        __global float* m, ulong mo, __global float* v, ulong vo, float beta1,
                        float beta2, float eps, float step, float keep, float rbc2,
                        __global const float* skip, ulong so, int hasSkip) {
    if (hasSkip && skip[so] >= 0.0f) return;
    w += wo;
    g += go;
    m += mo;
    v += vo;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const float gi = g[i];
        const float mi = beta1 * m[i] + (1.0f - beta1) * gi;
        const float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        w[i] = w[i] * keep - step * mi / (sqrt(vi) * rbc2 + eps);
    }
}
