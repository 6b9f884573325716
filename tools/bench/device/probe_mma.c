// Probe: does NVIDIA's OpenCL take inline PTX mma.sync m16n8k8 tf32, with the fragment layout
// nnwb's TF32 kernels assume? One warp, A 16x8 row-major, B 8x8 (k x n), D 16x8.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static const char* src =
"uint tf32(float x){uint r; asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(x)); return r;}\n"
"__kernel void mma(__global const float* A, __global const float* B, __global float* D){\n"
" int lane = get_local_id(0); int g = lane >> 2, t = lane & 3;\n"
" uint a0 = tf32(A[g*8+t]), a1 = tf32(A[(g+8)*8+t]), a2 = tf32(A[g*8+t+4]), a3 = tf32(A[(g+8)*8+t+4]);\n"
" uint b0 = tf32(B[t*8+g]), b1 = tf32(B[(t+4)*8+g]);\n"
" float d0=0,d1=0,d2=0,d3=0;\n"
" asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
"   : \"+f\"(d0),\"+f\"(d1),\"+f\"(d2),\"+f\"(d3) : \"r\"(a0),\"r\"(a1),\"r\"(a2),\"r\"(a3),\"r\"(b0),\"r\"(b1));\n"
" D[g*8+2*t]=d0; D[g*8+2*t+1]=d1; D[(g+8)*8+2*t]=d2; D[(g+8)*8+2*t+1]=d3;}\n";
int main(void) {
  cl_platform_id p[8]; cl_uint np = 0; clGetPlatformIDs(8, p, &np);
  for (cl_uint pi = 0; pi < np; ++pi) {
    cl_device_id d; cl_uint nd = 0;
    if (clGetDeviceIDs(p[pi], CL_DEVICE_TYPE_GPU, 1, &d, &nd) != CL_SUCCESS || !nd) continue;
    char name[256]; cl_ulong lm; cl_uint cu;
    clGetDeviceInfo(d, CL_DEVICE_NAME, 256, name, 0); clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, 8, &lm, 0);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, 4, &cu, 0);
    printf("platform %u: %s local %lu CUs %u\n", pi, name, (unsigned long)lm, cu);
    cl_int e; cl_context c = clCreateContext(0, 1, &d, 0, 0, &e);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
    cl_program pr = clCreateProgramWithSource(c, 1, &src, 0, &e);
    e = clBuildProgram(pr, 1, &d, "", 0, 0);
    if (e) { char log[8192]; clGetProgramBuildInfo(pr, d, CL_PROGRAM_BUILD_LOG, 8192, log, 0); printf("build %d: %s\n", e, log); continue; }
    float A[128], B[64], D[128]; double err = 0, ref2 = 0;
    srand(1); for (int i = 0; i < 128; ++i) A[i] = rand() / (float)RAND_MAX - 0.5f;
    for (int i = 0; i < 64; ++i) B[i] = rand() / (float)RAND_MAX - 0.5f;
    for (int i = 0; i < 128; ++i) D[i] = NAN;
    cl_mem bA = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, sizeof A, A, &e), bB = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, sizeof B, B, &e),
           bD = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, sizeof D, D, &e);
    cl_kernel k = clCreateKernel(pr, "mma", &e);
    clSetKernelArg(k, 0, sizeof bA, &bA); clSetKernelArg(k, 1, sizeof bB, &bB); clSetKernelArg(k, 2, sizeof bD, &bD);
    size_t g = 32; e = clEnqueueNDRangeKernel(q, k, 1, 0, &g, &g, 0, 0, 0);
    clEnqueueReadBuffer(q, bD, CL_TRUE, 0, sizeof D, D, 0, 0, 0);
    for (int i = 0; i < 16; ++i) for (int j = 0; j < 8; ++j) { double r = 0; for (int l = 0; l < 8; ++l) r += (double)A[i*8+l] * B[l*8+j];
      err += (D[i*8+j] - r) * (D[i*8+j] - r); ref2 += r * r; }
    printf("mma tf32 launch %d: rel err %.3g (nan-free %d)\n", e, sqrt(err / ref2), !isnan(err));
  }
  return 0;
}
