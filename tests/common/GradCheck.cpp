#include "common/GradCheck.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "compute/CpuBackend.h"
#include "model/Rng.h"

namespace nnwb::test {

namespace {

double functional(Backend& be, Layer& layer, const Buffer& x, const std::vector<double>& r,
                  int batch) {
    layer.forward(x, batch, true);
    std::vector<double> y(r.size());
    be.downloadF64(layer.output(), y.data(), y.size());
    double s = 0;
    for (size_t i = 0; i < r.size(); ++i) s += r[i] * y[i];
    return s;
}

std::vector<size_t> positions(size_t n, size_t maxChecks, Rng& rng) {
    std::vector<size_t> idx;
    if (n <= maxChecks) {
        for (size_t i = 0; i < n; ++i) idx.push_back(i);
    } else {
        for (size_t i = 0; i < maxChecks; ++i) idx.push_back(rng.below(n));
    }
    return idx;
}

std::string compare(const std::string& what, size_t i, double a, double n, double tol) {
    const double err = std::fabs(a - n) / std::max({1.0, std::fabs(a), std::fabs(n)});
    if (err <= tol && std::isfinite(a)) return {};
    return what + "[" + std::to_string(i) + "]: analytic " + std::to_string(a) + " vs numeric " +
           std::to_string(n) + " (error " + std::to_string(err) + ")";
}

}  // namespace

std::string gradCheckLayer(const std::function<LayerPtr()>& make, const Shape& input,
                           const GradCheckOptions& opt) {
    CpuBackend be(Precision::Double, 1);
    LayerPtr owned = make();  // destroyed before the backend
    Layer& layer = *owned;
    const int B = opt.batch;
    layer.build(be, input, B);
    Rng rng(opt.seed);
    layer.initWeights(rng);
    const Shape out = layer.outputShape(input);
    const size_t nx = size_t(B) * input.size(), ny = size_t(B) * out.size();
    std::vector<double> xh(nx), r(ny);
    for (auto& v : xh) v = rng.uniform(-1.0, 1.0);
    for (auto& v : r) v = rng.uniform(-1.0, 1.0);
    Buffer x = be.alloc(nx), dy = be.alloc(ny), dx = be.alloc(nx);
    be.uploadF64(x, xh.data(), nx);
    be.uploadF64(dy, r.data(), ny);
    for (Param* p : layer.params()) be.fill(p->grad, p->count(), 0.0f);
    layer.forward(x, B, true);
    layer.backward(x, dy, opt.checkInput ? BufRef(dx) : BufRef(), B);

    for (Param* p : layer.params()) {
        std::vector<double> g(p->count());
        be.downloadF64(p->grad, g.data(), g.size());
        for (size_t i : positions(p->count(), opt.maxChecksPerTensor, rng)) {
            double w = 0;
            be.downloadF64(p->value + i, &w, 1);
            double wp = w + opt.eps, wm = w - opt.eps;
            be.uploadF64(p->value + i, &wp, 1);
            const double lp = functional(be, layer, x, r, B);
            be.uploadF64(p->value + i, &wm, 1);
            const double lm = functional(be, layer, x, r, B);
            be.uploadF64(p->value + i, &w, 1);
            auto msg = compare(p->name, i, g[i], (lp - lm) / (2 * opt.eps), opt.tolerance);
            if (!msg.empty()) return msg;
        }
    }
    if (opt.checkInput) {
        std::vector<double> g(nx);
        be.downloadF64(dx, g.data(), nx);
        for (size_t i : positions(nx, opt.maxChecksPerTensor * 2, rng)) {
            const double v = xh[i];
            xh[i] = v + opt.eps;
            be.uploadF64(BufRef(x, i), &xh[i], 1);
            const double lp = functional(be, layer, x, r, B);
            xh[i] = v - opt.eps;
            be.uploadF64(BufRef(x, i), &xh[i], 1);
            const double lm = functional(be, layer, x, r, B);
            xh[i] = v;
            be.uploadF64(BufRef(x, i), &xh[i], 1);
            auto msg = compare("input", i, g[i], (lp - lm) / (2 * opt.eps), opt.tolerance);
            if (!msg.empty()) return msg;
        }
    }
    return {};
}

}  // namespace nnwb::test
