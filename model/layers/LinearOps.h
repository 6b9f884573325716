// The fully connected projection shared by Dense, Conv and the attention blocks: y = f(x Wᵀ + b)
// over `rows` rows of `in` values with W [out][in], its backward (weight and bias gradients
// added, input gradient written) and the backward's parts. A population (w.models > 1): `rows`
// over all models, model m's rows the m-th block, with its W and b at m * modelStride: one
// strided-batched product for all models. Free functions on the caller's backend; its owner
// thread only.
#pragma once

#include "model/layers/Layer.h"

namespace nnwb {

void linearForward(Backend& be, BufRef x, int rows, int in, int out, const Param& w, const Param& b,
                   BufRef z, BufRef y, Activation act);
// dz receives dy * f'(z); dx (rows x in) is skipped when empty.
void linearBackward(Backend& be, BufRef x, int rows, int in, int out, Param& w, Param& b, BufRef z,
                    BufRef y, BufRef dy, BufRef dz, BufRef dx, Activation act);

// The parts of linearBackward, per model for a population:
// dz = dy * f'(z) unless dy is empty (then dz holds the gradient; dz may alias dy), then
// b.grad += column sums of dz and w.grad += dzᵀ x (dz [rows][out], x [rows][in]): one
// projectionGradient op.
void linearParamGradients(Backend& be, BufRef x, BufRef dz, int rows, int in, int out, Param& w,
                          Param& b, Activation act = Activation::None, BufRef z = {}, BufRef y = {},
                          BufRef dy = {});
// dx = dz W + beta dx.
void linearInputGradient(Backend& be, BufRef dz, int rows, int in, int out, const Param& w,
                         BufRef dx, float beta);

}  // namespace nnwb
