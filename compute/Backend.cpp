#include "compute/Backend.h"

#include <type_traits>
#include <utility>
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
#define NNWB_OP_ENTRY(Name, name)                \
    void Backend::name(const Name##Args& args) { \
        args.check(OpCheck(this, #name));        \
        name##Impl(args);                        \
    }
NNWB_OPS(NNWB_OP_ENTRY)
#undef NNWB_OP_ENTRY

void Backend::unsupported(OpId op) const {
    throw ComputeError(std::string(opName(op)) + ": not supported on " + info().name);
}

// The defaults. A composite op runs its parts (Composer::run below); every other op is not
// supported, so a new op needs no line here.
namespace {
struct Composer {
    Backend& be;
    void run(const GemmBiasActivationArgs& a) {
        be.gemm(a.gemm);
        be.biasActivation({a.gemm.m, a.gemm.n, a.gemm.c, a.bias, a.gemm.c, a.y, a.act});
    }
    void run(const ActivationBiasBackwardArgs& a) {
        be.activationBackward({a.rows, a.cols, a.z, a.y, a.dy, a.dz, a.act});
        be.biasGradient({a.rows, a.cols, a.dz, a.db});
    }
    void run(const AddNormForwardArgs& a) {
        be.add({elems(a.rows, a.cols), a.a, a.b, a.sum});
        be.normForward({a.rows, a.cols, a.eps, a.sum, a.y, a.rstd});
    }
    void run(const AddNormBackwardArgs& a) {
        be.axpy({elems(a.rows, a.cols), 1.0f, a.dy2, a.dy});
        be.normBackward({a.rows, a.cols, a.y, a.rstd, a.dy, a.dx});
    }
};
template <class A, class = void>
struct Composes : std::false_type {};
template <class A>
struct Composes<A, std::void_t<decltype(std::declval<Composer&>().run(std::declval<const A&>()))>>
    : std::true_type {};

// Composer's run for a composite op, else `otherwise` (the op is not supported).
template <class A, class F>
void composeOr(Backend& be, const A& args, F otherwise) {
    if constexpr (Composes<A>::value)
        Composer{be}.run(args);
    else
        otherwise();
}
}  // namespace

#define NNWB_OP_DEFAULT(Name, name)                                  \
    void Backend::name##Impl(const Name##Args& args) {               \
        composeOr(*this, args, [this] { unsupported(OpId::Name); }); \
    }
NNWB_OPS(NNWB_OP_DEFAULT)
#undef NNWB_OP_DEFAULT

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
