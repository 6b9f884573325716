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

// The activation codes come from nnwb::Activation (compute/Ops.h) as -D defines
// (nnwb::kernelDefines()); a build without them stops here.
#if !defined(NNWB_ACT_NONE) || !defined(NNWB_ACT_TANH) || !defined(NNWB_ACT_SIGMOID) || \
    !defined(NNWB_ACT_RELU) || !defined(NNWB_ACT_LEAKY_RELU) || !defined(NNWB_ACT_SWISH) || \
    !defined(NNWB_ACT_SOFTMAX) || !defined(NNWB_ACTIVATION_COUNT)
#error "kernels built without the activation defines of nnwb::kernelDefines()"
#endif
#if NNWB_ACTIVATION_COUNT != 7
#error "nnwb::Activation changed: update nnwb_act and nnwb_act_grad"
#endif

// Element-wise activations by nnwb::Activation code (softmax is per row and not handled here).
float nnwb_act(float z, int act) {
    switch (act) {
        case NNWB_ACT_TANH: return tanh(z);
        case NNWB_ACT_SIGMOID: return 1.0f / (1.0f + exp(-z));
        case NNWB_ACT_RELU: return z > 0.0f ? z : 0.0f;
        case NNWB_ACT_LEAKY_RELU: return z > 0.0f ? z : 0.01f * z;
        case NNWB_ACT_SWISH: return z / (1.0f + exp(-z));
        default: return z;
    }
}

float nnwb_act_grad(float z, float y, int act) {
    switch (act) {
        case NNWB_ACT_TANH: return 1.0f - y * y;
        case NNWB_ACT_SIGMOID: return y * (1.0f - y);
        case NNWB_ACT_RELU: return z > 0.0f ? 1.0f : 0.0f;
        case NNWB_ACT_LEAKY_RELU: return z > 0.0f ? 1.0f : 0.01f;
        case NNWB_ACT_SWISH: {
            const float s = 1.0f / (1.0f + exp(-z));
            return s + y * (1.0f - s);
        }
        default: return 1.0f;
    }
}

// A gemm work-item's indices (gemm.cl, gemm_reg.cl: local size (RTSN, RTSM), NDRange dimension 2
// = (batch index, split), the kernels' arguments splits, kChunk, K and batch1): tn, tm and tid
// in the work-group; the tile's first row m0 and column n0; the batch index bi = (i0, i1); the
// split and its K range [kBegin, kEnd).
#define GEMM_WORK_ITEM_INDICES                                                   \
    const int tn = (int)get_local_id(0), tm = (int)get_local_id(1);             \
    const int tid = tm * RTSN + tn;                                              \
    const int m0 = (int)get_group_id(1) * TSM, n0 = (int)get_group_id(0) * TSN; \
    const ulong bi = get_global_id(2) / (ulong)splits;                           \
    const int split = (int)(get_global_id(2) % (ulong)splits);                   \
    const int kBegin = split * kChunk, kEnd = min(K, kBegin + kChunk);           \
    const ulong i0 = bi / (ulong)batch1, i1 = bi % (ulong)batch1;
