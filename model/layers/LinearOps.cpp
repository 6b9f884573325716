#include "model/layers/LinearOps.h"

namespace nnwb {

using M = TensorView;

namespace {
// A population's blocks: one rows x cols matrix per model, `stride` floats apart.
M perModel(BufRef r, int models, int rows, int cols, size_t stride) {
    return M::perHead(r, models, 1, rows, cols, cols, stride, 0);
}
}  // namespace

void linearForward(Backend& be, BufRef x, int rows, int in, int out, const Param& w, const Param& b,
                   BufRef z, BufRef y, Activation act) {
    if (w.models > 1) {
        const int P = w.models, r = rows / P;
        const GemmArgs g = GemmArgs::product(perModel(x, P, r, in, size_t(r) * in),
                                             perModel(w.value, P, out, in, w.modelStride).t(),
                                             perModel(z, P, r, out, size_t(r) * out));
        be.gemmBiasActivation({g, b.value, act, y, b.modelStride});
        return;
    }
    // Z = X W^T, y = f(Z + b)
    const GemmArgs g = GemmArgs::product(M::matrix(x, rows, in), M::matrix(w.value, out, in).t(),
                                         M::matrix(z, rows, out));
    be.gemmBiasActivation({g, b.value, act, y});
}

void linearBackward(Backend& be, BufRef x, int rows, int in, int out, Param& w, Param& b, BufRef z,
                    BufRef y, BufRef dy, BufRef dz, BufRef dx, Activation act) {
    if (w.models > 1) {
        const int P = w.models, r = rows / P;
        be.activationBiasBackward({rows, out, z, y, dy, dz, act, b.grad, P, b.modelStride});
        const M dZ = perModel(dz, P, r, out, size_t(r) * out);
        be.gemm(GemmArgs::product(dZ.t(), perModel(x, P, r, in, size_t(r) * in),
                                  perModel(w.grad, P, out, in, w.modelStride), 1.0f));
        if (dx.empty()) return;
        be.gemm(GemmArgs::product(dZ, perModel(w.value, P, out, in, w.modelStride),
                                  perModel(dx, P, r, in, size_t(r) * in)));
        return;
    }
    be.activationBiasBackward({rows, out, z, y, dy, dz, act, b.grad});
    const M dZ = M::matrix(dz, rows, out);
    be.gemm(GemmArgs::product(dZ.t(), M::matrix(x, rows, in), M::matrix(w.grad, out, in),
                              1.0f));  // dW += dZ^T X
    if (dx.empty()) return;
    be.gemm(
        GemmArgs::product(dZ, M::matrix(w.value, out, in), M::matrix(dx, rows, in)));  // dX = dZ W
}

}  // namespace nnwb
