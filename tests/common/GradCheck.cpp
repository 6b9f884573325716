#include "common/GradCheck.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "compute/CpuBackend.h"
#include "model/Rng.h"

namespace nnwb::test {

namespace {
double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}
}  // namespace

std::string gradCheck(LayerRun& r, const GradCheckSettings& s, size_t* checked) {
    Rng rng(s.seed);
    auto input = randomDoubles(r.inCount(), s.seed + 1);
    r.setInput(input);
    const auto c = randomDoubles(r.outCount(), s.seed + 2);
    r.forward();
    const auto dxA = r.backward(c);
    if (auto e = r.sentinelError(); !e.empty()) return e;
    size_t count = 0;
    auto compare = [&](const std::string& what, size_t i, double a, double n) -> std::string {
        ++count;
        const double diff = std::abs(a - n);
        if (std::isfinite(a) && diff <= std::max(s.abs, s.rel * std::max(std::abs(a), std::abs(n))))
            return {};
        std::ostringstream o;
        o.precision(12);
        o << what << "[" << i << "]: analytic " << a << " numeric " << n << " (diff " << diff
          << ")";
        return o.str();
    };
    auto positions = [&](size_t n) {
        std::vector<size_t> idx;
        if (n <= s.maxPerTensor) {
            for (size_t i = 0; i < n; ++i) idx.push_back(i);
        } else {
            for (size_t k = 0; k < s.maxPerTensor; ++k) idx.push_back(rng.below(n));
        }
        return idx;
    };
    // L at the current parameters and input.
    auto loss = [&] { return dot(c, r.forward()); };
    for (Param* p : r.layer->params()) {
        const auto ga = r.grad(p);
        auto v = r.value(p);
        for (size_t i : positions(LayerRun::all(p))) {  // every model's of a population
            const double keep = v[i];
            v[i] = keep + s.eps;
            r.setValue(p, v);
            const double lp = loss();
            v[i] = keep - s.eps;
            r.setValue(p, v);
            const double lm = loss();
            v[i] = keep;
            r.setValue(p, v);
            if (auto e = compare(p->name, i, ga[i], (lp - lm) / (2 * s.eps)); !e.empty()) return e;
        }
    }
    if (s.checkInput) {
        for (size_t i : positions(input.size())) {
            const double keep = input[i];
            input[i] = keep + s.eps;
            r.setInput(input);
            const double lp = loss();
            input[i] = keep - s.eps;
            r.setInput(input);
            const double lm = loss();
            input[i] = keep;
            r.setInput(input);
            if (auto e = compare("input", i, dxA[i], (lp - lm) / (2 * s.eps)); !e.empty()) return e;
        }
    }
    if (checked) *checked = count;
    return {};
}

std::string gradCheckLayer(const std::function<LayerPtr()>& make, const Shape& input, int batch,
                           const GradCheckSettings& s) {
    LayerRun run(std::make_unique<CpuBackend>(Precision::Double, 1), make(), input, batch);
    return gradCheck(run, s);
}

}  // namespace nnwb::test
