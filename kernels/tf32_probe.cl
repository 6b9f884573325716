// The run-time probe for TF32 tensor cores (matmul precision `high`): one warp multiplies a
// 16 x 8 A (row-major) by an 8 x 8 B (k x n) with mma.sync.aligned.m16n8k8 .tf32 through inline
// PTX, in the fragment layout kernels/gemm_reg.cl's TF32 build uses. The host builds this file
// only on NVIDIA's OpenCL and uses the TF32 kernels only where it builds and D matches its own
// product (OpenClBackend::setMatmulPrecision); it is not part of the regular kernel build.

uint tf32_probe_cvt(float x) {
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

__kernel __attribute__((reqd_work_group_size(32, 1, 1))) void tf32_probe(
    __global const float* A, __global const float* B, __global float* D) {
    const int lane = (int)get_local_id(0), g = lane >> 2, t = lane & 3;
    const uint a0 = tf32_probe_cvt(A[g * 8 + t]), a1 = tf32_probe_cvt(A[(g + 8) * 8 + t]);
    const uint a2 = tf32_probe_cvt(A[g * 8 + t + 4]), a3 = tf32_probe_cvt(A[(g + 8) * 8 + t + 4]);
    const uint b0 = tf32_probe_cvt(B[t * 8 + g]), b1 = tf32_probe_cvt(B[(t + 4) * 8 + g]);
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
    D[(g + 8) * 8 + 2 * t] = d2;
    D[(g + 8) * 8 + 2 * t + 1] = d3;
}
