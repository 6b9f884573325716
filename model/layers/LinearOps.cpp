#include "model/layers/LinearOps.h"

namespace nnwb {

using M = TensorView;

void linearForward(Backend& be, BufRef x, int rows, int in, int out, const Param& w, const Param& b,
                   BufRef z, BufRef y, Activation act) {
    // Z = X W^T, y = f(Z + b)
    const GemmArgs g = GemmArgs::product(M::matrix(x, rows, in), M::matrix(w.value, out, in).t(),
                                         M::matrix(z, rows, out));
    be.gemmBiasActivation({g, b.value, act, y});
}

void linearBackward(Backend& be, BufRef x, int rows, int in, int out, Param& w, Param& b, BufRef z,
                    BufRef y, BufRef dy, BufRef dz, BufRef dx, Activation act) {
    be.activationBiasBackward({rows, out, z, y, dy, dz, act, b.grad});
    const M dZ = M::matrix(dz, rows, out);
    be.gemm(GemmArgs::product(dZ.t(), M::matrix(x, rows, in), M::matrix(w.grad, out, in),
                              1.0f));  // dW += dZ^T X
    if (dx.empty()) return;
    be.gemm(
        GemmArgs::product(dZ, M::matrix(w.value, out, in), M::matrix(dx, rows, in)));  // dX = dZ W
}

}  // namespace nnwb
