// Helpers shared by every nnwb kernel file. The backend prepends this file to each of the
// other .cl files before building them; it holds no kernels of its own.
// Work-group reductions assume a power-of-two local size (the host guarantees it) and must be
// reached by every work-item of the group (they contain barriers).

// Sum of v over the work-group (dimension 0); every work-item gets the result.
// `buf` holds get_local_size(0) floats. Fixed tree order: deterministic run to run.
float nnwb_group_sum(__local float* buf, float v) {
    const uint lid = (uint)get_local_id(0);
    buf[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = (uint)get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) buf[lid] += buf[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float r = buf[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

// Maximum of v over the work-group (dimension 0); every work-item gets the result.
float nnwb_group_max(__local float* buf, float v) {
    const uint lid = (uint)get_local_id(0);
    buf[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = (uint)get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) buf[lid] = fmax(buf[lid], buf[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float r = buf[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

// Two sums at once; `buf` holds 2 * get_local_size(0) floats.
float2 nnwb_group_sum2(__local float* buf, float a, float b) {
    const uint lid = (uint)get_local_id(0), n = (uint)get_local_size(0);
    buf[lid] = a;
    buf[n + lid] = b;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = n / 2; s > 0; s >>= 1) {
        if (lid < s) {
            buf[lid] += buf[lid + s];
            buf[n + lid] += buf[n + lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float2 r = (float2)(buf[0], buf[n]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}
