// Gradient clipping by the global L2 norm over the parameter arena, and per-row scaling (class
// weights on the loss gradient). The norm stays on the device: clip_scale reads it there.

// A population (docs/decisions/population.md): work-group p takes model p's slice of n values
// (starting p * n in) and writes norm[p]; the partial kernels below likewise per model.

// norm[0] = sqrt(sum of g[i]^2). One work-group; each work-item sums a stride, then a tree.
__kernel void clip_sum_squares(ulong n, __global const float* g, ulong go, __global float* norm,
                               ulong no, __local float* scratch) {
    g += go + get_group_id(0) * n;
    no += get_group_id(0);
    float s = 0.0f;
    for (ulong i = get_local_id(0); i < n; i += get_local_size(0)) s += g[i] * g[i];
    s = nnwb_group_sum(scratch, s);
    if (get_local_id(0) == 0) norm[no] = sqrt(s);
}

// The global norm of a large gradient in two launches: work-group r sums g[i]^2 over its chunk
// [r * chunk, min(n, (r + 1) * chunk)) into partial[r] (model p: groups p * groupsPer .. of
// its slice of n values) ...
__kernel void clip_partial_squares(ulong n, ulong chunk, __global const float* g, ulong go,
                                   __global float* partial, ulong groupsPer,
                                   __local float* scratch) {
    g += go + get_group_id(0) / groupsPer * n;
    const ulong b = (ulong)(get_group_id(0) % groupsPer) * chunk;
    const ulong e = min(n, b + chunk);
    float s = 0.0f;
    for (ulong i = b + get_local_id(0); i < e; i += get_local_size(0)) s += g[i] * g[i];
    s = nnwb_group_sum(scratch, s);
    if (get_local_id(0) == 0) partial[get_group_id(0)] = s;
}

// ... then one work-group adds the partial sums: norm[0] = sqrt(sum of partial[0, groups)).
__kernel void clip_norm_of_partials(ulong groups, __global const float* partial,
                                    __global float* norm, ulong no, __local float* scratch) {
    partial += get_group_id(0) * groups;
    no += get_group_id(0);
    float s = 0.0f;
    for (ulong i = get_local_id(0); i < groups; i += get_local_size(0)) s += partial[i];
    s = nnwb_group_sum(scratch, s);
    if (get_local_id(0) == 0) norm[no] = sqrt(s);
}

// g *= maxNorm / norm[0] when the norm is finite and above maxNorm; with slice < n, element i
// uses the norm of its model, norm[i / slice].
__kernel void clip_scale(ulong n, __global float* g, ulong go, __global const float* norm,
                         ulong no, float maxNorm, ulong slice) {
    if (slice < n) {
        for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
            const float nrm = norm[no + i / slice];
            if (isfinite(nrm) && nrm > maxNorm) g[go + i] *= maxNorm / nrm;
        }
        return;
    }
    const float nrm = norm[no];
    if (!isfinite(nrm) || !(nrm > maxNorm)) return;
    const float f = maxNorm / nrm;
    g += go;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) g[i] *= f;
}

// x[r][c] *= scale[r] for rows x cols values.
__kernel void scale_rows(int rows, int cols, __global const float* scale, ulong so,
                         __global float* x, ulong xo) {
    const ulong n = (ulong)rows * (ulong)cols;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        x[xo + i] *= scale[so + i / (ulong)cols];
}
