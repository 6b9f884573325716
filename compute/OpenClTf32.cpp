// Matmul precision high on OpenCL: the run-time probe for TF32 tensor cores and the TF32 builds
// of the register-tiled gemm (kernels/tf32_probe.cl, kernels/gemm_reg.cl with TF32 defined).

#include <cmath>
#include <sstream>

#include "compute/OpenClBackend.h"
#include "compute/OpenClBackendImpl.h"

namespace nnwb {

using namespace cldetail;

// Whether this device multiplies through inline PTX mma.sync .tf32: only NVIDIA's OpenCL takes
// PTX; there the probe kernel must build and its 16 x 8 x 8 product of fixed data must match
// the double-precision product within 1e-2 (TF32 rounding gives about 3e-4; a wrong fragment
// layout or no tensor cores gives order 1 or a build failure).
bool OpenClBackend::Impl::probeTf32() {
    if (info.platform.find("NVIDIA") == std::string::npos || tf32ProbeSource.empty()) return false;
    ClProgram program;
    try {
        program = buildProgram(kTf32ProbeFile, tf32ProbeSource, "");
    } catch (const ComputeError&) {
        return false;  // an older device or driver without sm_80 PTX: FP32
    }
    cl_int err = CL_SUCCESS;
    ClKernel k(clCreateKernel(program.get(), "tf32_probe", &err));
    if (err != CL_SUCCESS) return false;
    float a[128], b[64], d[128];
    for (int i = 0; i < 128; ++i) a[i] = float((i * 37) % 23 - 11) / 7.0f;
    for (int i = 0; i < 64; ++i) b[i] = float((i * 29) % 19 - 9) / 5.0f;
    for (float& v : d) v = NAN;
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    ClMem ba(clCreateBuffer(context.get(), in, sizeof a, a, &err));
    if (err != CL_SUCCESS) return false;
    ClMem bb(clCreateBuffer(context.get(), in, sizeof b, b, &err));
    if (err != CL_SUCCESS) return false;
    ClMem bd(
        clCreateBuffer(context.get(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof d, d, &err));
    if (err != CL_SUCCESS) return false;
    cl_mem args[3] = {ba.get(), bb.get(), bd.get()};
    for (cl_uint i = 0; i < 3; ++i)
        if (clSetKernelArg(k.get(), i, sizeof(cl_mem), &args[i]) != CL_SUCCESS) return false;
    const size_t n = 32;
    if (clEnqueueNDRangeKernel(queue.get(), k.get(), 1, nullptr, &n, &n, 0, nullptr, nullptr) !=
            CL_SUCCESS ||
        clEnqueueReadBuffer(queue.get(), bd.get(), CL_TRUE, 0, sizeof d, d, 0, nullptr, nullptr) !=
            CL_SUCCESS)
        return false;
    double err2 = 0, ref2 = 0;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 8; ++j) {
            double r = 0;
            for (int l = 0; l < 8; ++l) r += double(a[i * 8 + l]) * double(b[l * 8 + j]);
            err2 += (double(d[i * 8 + j]) - r) * (double(d[i * 8 + j]) - r);
            ref2 += r * r;
        }
    return std::isfinite(err2) && err2 <= 1e-4 * ref2;  // relative error at most 1e-2
}

// The TF32 tilings: kGemmTf32Configs, or for A/B runs NNWB_TF32_TILINGS, tilings separated by
// ';', each "TSM,TSN,TSK,WPTM,WPTN,LPAD" (kernels/gemm_reg.cl checks them when it builds).
std::vector<GemmConfig> tf32Tilings() {
    const std::string text = envStr("NNWB_TF32_TILINGS");
    if (text.empty()) return {std::begin(kGemmTf32Configs), std::end(kGemmTf32Configs)};
    std::vector<GemmConfig> out;
    std::istringstream list(text);
    std::string one;
    while (std::getline(list, one, ';')) {
        GemmConfig c{0, 0, 0, 0, 0, 0};
        char sep[5] = {};
        std::istringstream in(one);
        in >> c.tsm >> sep[0] >> c.tsn >> sep[1] >> c.tsk >> sep[2] >> c.wptm >> sep[3] >> c.wptn >>
            sep[4] >> c.pad;
        if (!in || std::string(sep, 5) != ",,,,," || c.tsm <= 0 || c.tsn <= 0 || c.tsk <= 0 ||
            c.wptm <= 0 || c.wptn <= 0 || c.pad < 0)
            throw ComputeError("NNWB_TF32_TILINGS: '" + one +
                               "' is not TSM,TSN,TSK,WPTM,WPTN,LPAD (positive integers)");
        out.push_back(c);
    }
    return out;
}

// The TF32 builds of gemm_reg.cl (tf32Tilings()) that fit the device, once.
void OpenClBackend::Impl::loadGemmTf32() {
    if (tf32Built) return;
    tf32Built = true;
    const std::string mode = tf32Emulate ? " -DTF32=2" : " -DTF32=1";
    for (const GemmConfig& c : tf32Tilings())
        addGemmVariant(kGemmRegFile, gemmRegSource, gemmRegDefines + mode, c, c.tf32KernelName(),
                       true, true);
    sortGemmVariants();
}

MatmulPrecision OpenClBackend::setMatmulPrecision(MatmulPrecision p) {
    Impl& m = *d_;
    m.tf32 = false;
    if (p == MatmulPrecision::Highest || m.gemmRegSource.empty()) return MatmulPrecision::Highest;
    if (m.tf32Usable == 0) m.tf32Usable = m.tf32Emulate || m.probeTf32() ? 1 : -1;
    if (m.tf32Usable < 0) return MatmulPrecision::Highest;
    m.loadGemmTf32();
    for (const GemmVariant& v : m.gemmVariants)
        if (v.tf32) m.tf32 = true;
    return m.tf32 ? MatmulPrecision::High : MatmulPrecision::Highest;
}

}  // namespace nnwb
