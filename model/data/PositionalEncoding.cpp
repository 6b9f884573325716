#include "model/data/PositionalEncoding.h"

#include <cmath>

namespace nnwb {

double positionalEncoding(int pos, int feature, int features) {
    const int pair = feature / 2;
    const double angle = pos / std::pow(10000.0, 2.0 * pair / static_cast<double>(features));
    return feature % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

void addPositionalEncoding(float* block, int units, int features) {
    for (int u = 0; u < units; ++u)
        for (int f = 0; f < features; ++f)
            block[u * features + f] += static_cast<float>(positionalEncoding(u, f, features));
}

}  // namespace nnwb
