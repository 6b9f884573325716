#include "compute/Backend.h"

#include <algorithm>
#include <vector>

#include "compute/CpuBackend.h"
#include "compute/OpenClBackend.h"

namespace nnwb {

void Buffer::reset() noexcept {
    if (owner_ && handle_) owner_->release(handle_);
    owner_ = nullptr;
    handle_ = nullptr;
    count_ = 0;
}

void Backend::uploadF64(BufRef dst, const double* src, size_t count) {
    std::vector<float> tmp(src, src + count);
    upload(dst, tmp.data(), count);
}

void Backend::downloadF64(BufRef src, double* dst, size_t count) {
    std::vector<float> tmp(count);
    download(src, tmp.data(), count);
    for (size_t i = 0; i < count; ++i) dst[i] = tmp[i];
}

void Backend::checkProjection(const GemmArgs& g) {
    if (g.batch0 != 1 || g.batch1 != 1 || g.ldc != g.n)
        throw ComputeError("gemmBiasActivation: needs one product with ldc == n (got " +
                           std::to_string(g.batch0) + "x" + std::to_string(g.batch1) +
                           " products, ldc " + std::to_string(g.ldc) + ", n " +
                           std::to_string(g.n) + ")");
}

void Backend::gemmBiasActivation(const GemmArgs& g, BufRef bias, Activation act, BufRef y) {
    checkProjection(g);
    gemm(g);
    biasActivation(g.m, g.n, g.c, bias, g.c, y, act);
}

void Backend::activationBiasBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy,
                                     BufRef dz, Activation act, BufRef db) {
    activationBackward(rows, cols, z, y, dy, dz, act);
    biasGradient(rows, cols, dz, db);
}

void Backend::addNormForward(int rows, int cols, float eps, BufRef a, BufRef b, BufRef sum,
                             BufRef y, BufRef rstd) {
    add(size_t(std::max(rows, 0)) * size_t(std::max(cols, 0)), a, b, sum);
    normForward(rows, cols, eps, sum, y, rstd);
}

void Backend::addNormBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy, BufRef dy2,
                              BufRef dx) {
    axpy(size_t(std::max(rows, 0)) * size_t(std::max(cols, 0)), 1.0f, dy2, dy);
    normBackward(rows, cols, y, rstd, dy, dx);
}

std::unique_ptr<Backend> createBackend(const std::string& id) {
    if (id == "cpu") return std::make_unique<CpuBackend>();
    if (id.rfind("opencl:", 0) == 0) return OpenClBackend::create(id);
    throw ComputeError("unknown device '" + id + "' (use 'cpu' or 'opencl:P:D'; " +
                       "`nnwb-cli devices` lists them)");
}

std::vector<DeviceInfo> listDevices() {
    std::vector<DeviceInfo> out;
    out.push_back(CpuBackend().info());
    for (auto& d : OpenClBackend::enumerate()) out.push_back(std::move(d));
    return out;
}

}  // namespace nnwb
