#include "model/trading/Underwater.h"

#include <algorithm>

namespace nnwb {

std::vector<double> underwaterOf(const std::vector<double>& equity) {
    std::vector<double> out;
    out.reserve(equity.size());
    double peak = 0;
    for (double e : equity) {
        peak = std::max(peak, e);
        out.push_back(e - peak);
    }
    return out;
}

}  // namespace nnwb
