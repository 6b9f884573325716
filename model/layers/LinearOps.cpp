#include "model/layers/LinearOps.h"

namespace nnwb {

using M = TensorView;

namespace {
// Activations of `rows` rows (over all models) of `cols` values.
M rowsView(BufRef r, int models, int rows, int cols) {
    return M::modelRows(r, models, rows, cols);
}

// A weight [out][in] (value or gradient at `r`): one matrix, or model m's at m * modelStride.
M weightView(BufRef r, const Param& w, int out, int in) {
    return M::modelMatrices(r, w.models, w.modelStride, out, in);
}
}  // namespace

void linearForward(Backend& be, BufRef x, int rows, int in, int out, const Param& w, const Param& b,
                   BufRef z, BufRef y, Activation act) {
    // Z = X W^T, y = f(Z + b)
    const int P = w.models;
    const GemmArgs g = GemmArgs::product(
        rowsView(x, P, rows, in), weightView(w.value, w, out, in).t(), rowsView(z, P, rows, out));
    if (P > 1)
        be.gemmBiasActivation({g, b.value, act, y, b.modelStride});
    else
        be.gemmBiasActivation({g, b.value, act, y});
}

void linearParamGradients(Backend& be, BufRef x, BufRef dz, int rows, int in, int out, Param& w,
                          Param& b, Activation act, BufRef z, BufRef y, BufRef dy) {
    const int P = w.models;  // db += column sums of dZ, dW += dZ^T X
    const GemmArgs g = GemmArgs::product(rowsView(dz, P, rows, out).t(), rowsView(x, P, rows, in),
                                         weightView(w.grad, w, out, in), 1.0f);
    be.projectionGradient({g, b.grad, P > 1 ? b.modelStride : 0, act, z, y, dy});
}

void linearInputGradient(Backend& be, BufRef dz, int rows, int in, int out, const Param& w,
                         BufRef dx, float beta) {
    const int P = w.models;  // dX = dZ W + beta dX
    be.gemm(GemmArgs::product(rowsView(dz, P, rows, out), weightView(w.value, w, out, in),
                              rowsView(dx, P, rows, in), beta));
}

void linearBackward(Backend& be, BufRef x, int rows, int in, int out, Param& w, Param& b, BufRef z,
                    BufRef y, BufRef dy, BufRef dz, BufRef dx, Activation act) {
    linearParamGradients(be, x, dz, rows, in, out, w, b, act, z, y, dy);
    if (dx.empty()) return;
    linearInputGradient(be, dz, rows, in, out, w, dx, 0.0f);
}

}  // namespace nnwb
