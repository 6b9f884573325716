// A layer's parity run against the CPU double reference (tests/parity): what one run of a
// LayerRun gives (output, input gradient, every parameter's gradient, the sentinel check), the
// comparison of two runs with a magnitude-scaled tolerance, and the row type of the suites'
// per-device cases. One copy here instead of one per parity suite. Test threads only.
#pragma once

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "common/LayerRun.h"

namespace nnwb::test {

struct LayerResult {
    std::vector<double> y, dx;
    std::vector<std::vector<double>> grads;
    std::vector<std::string> names;
    std::string sentinel;
};

// The result of a run whose forward gave `y` and backward `dx`: adds every parameter's gradient
// and name and the sentinel check.
inline LayerResult layerResult(LayerRun& r, std::vector<double> y, std::vector<double> dx) {
    LayerResult out;
    out.y = std::move(y);
    out.dx = std::move(dx);
    out.sentinel = r.sentinelError();
    for (Param* p : r.layer->params()) {
        out.grads.push_back(r.grad(p));
        out.names.push_back(p->name);
    }
    return out;
}

// |got - want| <= 2e-5 max(1, max|want|) + 1e-3 |want|: an absolute tolerance scaled by the
// tensor's magnitude plus a relative part; "" or the first mismatch, named.
inline std::string compareScaled(const std::string& what, const std::vector<double>& got,
                                 const std::vector<double>& want) {
    if (got.size() != want.size()) return what + ": size differs";
    double scale = 0;
    for (double v : want) scale = std::max(scale, std::abs(v));
    const double atol = 2e-5 * std::max(1.0, scale), rtol = 1e-3;
    for (size_t i = 0; i < got.size(); ++i)
        if (!(std::abs(got[i] - want[i]) <= atol + rtol * std::abs(want[i])))
            return what + "[" + std::to_string(i) + "]: " + std::to_string(got[i]) + " vs " +
                   std::to_string(want[i]) + " (reference)";
    return {};
}

// "" when `got` matches the reference run `ref` (sentinel clean, output, dx and every gradient
// within compareScaled), else the first difference.
inline std::string compareLayerResults(const LayerResult& got, const LayerResult& ref) {
    if (!got.sentinel.empty()) return got.sentinel;
    std::string e = compareScaled("output", got.y, ref.y);
    if (e.empty()) e = compareScaled("dx", got.dx, ref.dx);
    if (e.empty() && got.grads.size() != ref.grads.size())
        e = "parameter count " + std::to_string(got.grads.size()) + " vs " +
            std::to_string(ref.grads.size());
    for (size_t i = 0; e.empty() && i < ref.grads.size(); ++i)
        e = compareScaled(ref.names[i], got.grads[i], ref.grads[i]);
    return e;
}

// One case of a layer suite on one device (a gtest parameter): its printed name, the device id
// and the case's index.
struct LayerRow {
    std::string name, device;
    size_t index;
};
inline void PrintTo(const LayerRow& r, std::ostream* os) {
    *os << r.name;
}

}  // namespace nnwb::test
