// The fully connected projection shared by Dense and Conv: y = f(x Wᵀ + b) over `rows` rows of
// `in` values with W [out][in], and its backward (weight and bias gradients added, input
// gradient written). A population (w.models > 1): `rows` over all models, model m's rows the
// m-th block, with its W and b at m * modelStride: one strided-batched product for all models.
// Free functions on the caller's backend; its owner thread only.
#pragma once

#include "model/layers/Layer.h"

namespace nnwb {

void linearForward(Backend& be, BufRef x, int rows, int in, int out, const Param& w, const Param& b,
                   BufRef z, BufRef y, Activation act);
// dz receives dy * f'(z); dx (rows x in) is skipped when empty.
void linearBackward(Backend& be, BufRef x, int rows, int in, int out, Param& w, Param& b, BufRef z,
                    BufRef y, BufRef dy, BufRef dz, BufRef dx, Activation act);

}  // namespace nnwb
