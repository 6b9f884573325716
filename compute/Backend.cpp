#include "compute/Backend.h"

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

// The public entries: check once, then the backend's implementation.
#define NNWB_OP_ENTRY(Name, name)                      \
    void Backend::name(const Name##Args& args) {       \
        args.check(OpCheck(this, #name));              \
        name##Impl(args);                              \
    }
NNWB_OPS(NNWB_OP_ENTRY)
#undef NNWB_OP_ENTRY

void Backend::unsupported(OpId op) const {
    throw ComputeError(std::string(opName(op)) + ": not supported on " + info().name);
}

// The defaults: composite ops run their parts; every other op is not supported.
#define NNWB_OP_UNSUPPORTED(Name, name) \
    void Backend::name##Impl(const Name##Args&) { unsupported(OpId::Name); }
NNWB_OP_UNSUPPORTED(Fill, fill)
NNWB_OP_UNSUPPORTED(Copy, copy)
NNWB_OP_UNSUPPORTED(Copy2d, copy2d)
NNWB_OP_UNSUPPORTED(Axpy, axpy)
NNWB_OP_UNSUPPORTED(Add, add)
NNWB_OP_UNSUPPORTED(Gemm, gemm)
NNWB_OP_UNSUPPORTED(BiasActivation, biasActivation)
NNWB_OP_UNSUPPORTED(ActivationBackward, activationBackward)
NNWB_OP_UNSUPPORTED(BiasGradient, biasGradient)
NNWB_OP_UNSUPPORTED(SoftmaxForward, softmaxForward)
NNWB_OP_UNSUPPORTED(SoftmaxBackward, softmaxBackward)
NNWB_OP_UNSUPPORTED(NormForward, normForward)
NNWB_OP_UNSUPPORTED(NormBackward, normBackward)
NNWB_OP_UNSUPPORTED(Unfold, unfold)
NNWB_OP_UNSUPPORTED(Fold, fold)
NNWB_OP_UNSUPPORTED(MseLoss, mseLoss)
NNWB_OP_UNSUPPORTED(SoftmaxCrossEntropy, softmaxCrossEntropy)
NNWB_OP_UNSUPPORTED(SgdStep, sgdStep)
NNWB_OP_UNSUPPORTED(AdamStep, adamStep)
NNWB_OP_UNSUPPORTED(ClipByGlobalNorm, clipByGlobalNorm)
NNWB_OP_UNSUPPORTED(ScaleRows, scaleRows)
NNWB_OP_UNSUPPORTED(RecordOutcomes, recordOutcomes)
NNWB_OP_UNSUPPORTED(LightConvForward, lightConvForward)
NNWB_OP_UNSUPPORTED(LightConvBackward, lightConvBackward)
#undef NNWB_OP_UNSUPPORTED

void Backend::gemmBiasActivationImpl(const GemmBiasActivationArgs& a) {
    gemm(a.gemm);
    biasActivation({a.gemm.m, a.gemm.n, a.gemm.c, a.bias, a.gemm.c, a.y, a.act});
}

void Backend::activationBiasBackwardImpl(const ActivationBiasBackwardArgs& a) {
    activationBackward({a.rows, a.cols, a.z, a.y, a.dy, a.dz, a.act});
    biasGradient({a.rows, a.cols, a.dz, a.db});
}

void Backend::addNormForwardImpl(const AddNormForwardArgs& a) {
    add({elems(a.rows, a.cols), a.a, a.b, a.sum});
    normForward({a.rows, a.cols, a.eps, a.sum, a.y, a.rstd});
}

void Backend::addNormBackwardImpl(const AddNormBackwardArgs& a) {
    axpy({elems(a.rows, a.cols), 1.0f, a.dy2, a.dy});
    normBackward({a.rows, a.cols, a.y, a.rstd, a.dy, a.dx});
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
