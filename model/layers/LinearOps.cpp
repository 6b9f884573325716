#include "model/layers/LinearOps.h"

namespace nnwb {

void linearForward(Backend& be, BufRef x, int rows, int in, int out, const Param& w,
                   const Param& b, BufRef z, BufRef y, Activation act) {
    GemmArgs g;  // Z = X W^T
    g.transB = true;
    g.m = rows;
    g.n = out;
    g.k = in;
    g.a = x;
    g.lda = in;
    g.b = w.value;
    g.ldb = in;
    g.c = z;
    g.ldc = out;
    be.gemmBiasActivation(g, b.value, act, y);
}

void linearBackward(Backend& be, BufRef x, int rows, int in, int out, Param& w, Param& b,
                    BufRef z, BufRef y, BufRef dy, BufRef dz, BufRef dx, Activation act) {
    be.activationBiasBackward(rows, out, z, y, dy, dz, act, b.grad);
    GemmArgs gw;  // dW += dZ^T X
    gw.transA = true;
    gw.m = out;
    gw.n = in;
    gw.k = rows;
    gw.a = dz;
    gw.lda = out;
    gw.b = x;
    gw.ldb = in;
    gw.c = w.grad;
    gw.ldc = in;
    gw.beta = 1.0f;
    be.gemm(gw);
    if (dx.empty()) return;
    GemmArgs gx;  // dX = dZ W
    gx.m = rows;
    gx.n = in;
    gx.k = out;
    gx.a = dz;
    gx.lda = out;
    gx.b = w.value;
    gx.ldb = in;
    gx.c = dx;
    gx.ldc = in;
    be.gemm(gx);
}

}  // namespace nnwb
