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

// Element-wise activations by nnwb::Activation code: 0 none, 1 tanh, 2 sigmoid, 3 relu,
// 4 leaky relu (0.01), 5 swish (6, softmax, is per row and not handled here).
float nnwb_act(float z, int act) {
    switch (act) {
        case 1: return tanh(z);
        case 2: return 1.0f / (1.0f + exp(-z));
        case 3: return z > 0.0f ? z : 0.0f;
        case 4: return z > 0.0f ? z : 0.01f * z;
        case 5: return z / (1.0f + exp(-z));
        default: return z;
    }
}

float nnwb_act_grad(float z, float y, int act) {
    switch (act) {
        case 1: return 1.0f - y * y;
        case 2: return y * (1.0f - y);
        case 3: return z > 0.0f ? 1.0f : 0.0f;
        case 4: return z > 0.0f ? 1.0f : 0.01f;
        case 5: {
            const float s = 1.0f / (1.0f + exp(-z));
            return s + y * (1.0f - s);
        }
        default: return 1.0f;
    }
}
