// Sinusoidal positional encoding (Vaswani et al. 2017) added to a sample's inputs:
// PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)), where pos is
// the bar's position in the window (0 = oldest) and d the number of features.
// Pure functions; any thread.
#pragma once

namespace nnwb {

double positionalEncoding(int pos, int feature, int features);
// Adds PE to a row-major units x features block.
void addPositionalEncoding(float* block, int units, int features);

}  // namespace nnwb
