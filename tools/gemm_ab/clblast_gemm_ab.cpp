// A/B of the matrix products of one transformer-64 training step (batch 256) on one OpenCL
// device: nnwb's own gemm (OpenClBackend::gemm, the kernel the backend picks) against CLBlast's
// SGEMM (Debian libclblast-dev), same shapes, transposes and beta as model/layers/LinearOps.cpp
// issues them. Prints ms per product for each and the sum over the step's 6 blocks.
// Build: see tools/gemm_ab/CMakeLists.txt (-DNNWB_GEMM_AB=ON). Run: clblast_gemm_ab opencl:P:D
#include <CL/cl.h>
#include <clblast.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compute/Backend.h"
#include "compute/BackendRegistry.h"
#include "compute/TensorView.h"
#include "tools/gemm_ab/AbShapes.h"

namespace {

using nnwb::ab::Shape;

constexpr int R = nnwb::ab::kRows;

void die(const std::string& m) {
    std::fprintf(stderr, "clblast_gemm_ab: %s\n", m.c_str());
    std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string id = argc > 1 ? argv[1] : "opencl:0:0";
    unsigned p = 0, d = 0;
    if (std::sscanf(id.c_str(), "opencl:%u:%u", &p, &d) != 2) die("device id opencl:P:D expected");
    auto be = nnwb::createBackend(id);
    std::printf("device %s (%s)\n", be->info().name.c_str(), be->info().version.c_str());

    cl_platform_id plats[16];
    cl_uint np = 0;
    clGetPlatformIDs(16, plats, &np);
    if (p >= np) die("no platform " + std::to_string(p));
    cl_device_id devs[16];
    cl_uint nd = 0;
    clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd);
    if (d >= nd) die("no device " + std::to_string(d));
    cl_int err = 0;
    cl_context ctx = clCreateContext(nullptr, 1, &devs[d], nullptr, nullptr, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, devs[d], 0, &err);
    if (err != CL_SUCCESS) die("context/queue");

    const size_t most = size_t(R) * 768;
    std::vector<float> host(most);
    for (size_t i = 0; i < most; ++i) host[i] = float((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
    nnwb::Buffer A = be->alloc(most), B = be->alloc(most), C = be->alloc(most);
    be->upload(A, host.data(), most);
    be->upload(B, host.data(), most);
    be->upload(C, host.data(), most);
    cl_mem bufs[3];
    for (auto& b : bufs) {
        b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, most * sizeof(float),
                           host.data(), &err);
        if (err != CL_SUCCESS) die("clCreateBuffer");
    }

    double sumN = 0, sumC = 0;
    std::printf("%-12s %6s %6s %6s %10s %10s %8s\n", "product", "M", "N", "K", "nnwb ms",
                "clblast ms", "clb/nnwb");
    for (const Shape& s : nnwb::ab::kTransformerShapes) {
        using M = nnwb::TensorView;
        const M a = s.ta ? M::matrix(A, s.k, s.m).t() : M::matrix(A, s.m, s.k);
        const M b = s.tb ? M::matrix(B, s.n, s.k).t() : M::matrix(B, s.k, s.n);
        const nnwb::GemmArgs g = nnwb::GemmArgs::product(a, b, M::matrix(C, s.m, s.n), s.beta);
        const double tn =
            nnwb::ab::msPerCall([&] { be->gemm(g); }, [&] { be->synchronize(); }, 10, 0.4);
        using clblast::Transpose;
        const double tc = nnwb::ab::msPerCall(
            [&] {
                const auto st = clblast::Gemm<float>(
                    clblast::Layout::kRowMajor, s.ta ? Transpose::kYes : Transpose::kNo,
                    s.tb ? Transpose::kYes : Transpose::kNo, size_t(s.m), size_t(s.n), size_t(s.k),
                    1.0f, bufs[0], 0, size_t(g.lda), bufs[1], 0, size_t(g.ldb), s.beta, bufs[2], 0,
                    size_t(g.ldc), &q, nullptr);
                if (st != clblast::StatusCode::kSuccess)
                    die("clblast::Gemm status " + std::to_string(int(st)));
            },
            [&] { clFinish(q); }, 10, 0.4);
        sumN += tn;
        sumC += tc;
        const double gf = 2.0 * s.m * s.n * s.k * 1e-9;
        std::printf("%-12s %6d %6d %6d %10.4f %10.4f %8.2f   (%.1f vs %.1f TFLOP/s)\n", s.what, s.m,
                    s.n, s.k, tn, tc, tc / tn, gf / tn, gf / tc);
    }
    std::printf("one step (6 blocks): nnwb %.3f ms, clblast %.3f ms, clblast/nnwb %.2f\n", 6 * sumN,
                6 * sumC, sumC / sumN);
    for (auto& b : bufs) clReleaseMemObject(b);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
