// Finite-difference gradient checks of the dense chain ops (Backend::denseChainBackward):
// L = sum(c * y_last) over a chain of three layers (a population of two models), central
// differences for every weight, bias and input value, on the double-precision CPU
// backend (the layers op by op, tight tolerance) and on every OpenCL device with the chain
// forced fused (kernels/dense_chain.cl; float, so a wider step and tolerance).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "compute/CpuBackend.h"
#include "compute/OpenClBackend.h"

using namespace nnwb;

namespace {

struct Tolerance {
    double eps, rel, abs;
};

// Checks dW, db and dx of a 7 -> 6 -> 5 -> 3 chain of `models` models on `be`.
std::string checkChain(Backend& be, int models, const Tolerance& t) {
    const int batch = 2, rows = batch * models;
    const std::vector<int> w{7, 6, 5, 3};
    const Activation acts[] = {Activation::Tanh, Activation::Swish, Activation::Sigmoid};
    size_t per = 0;
    for (int i = 0; i < 3; ++i) per += size_t(w[i + 1]) * (w[i] + 1);
    const size_t stride = per + 1, all = stride * models;
    const std::vector<float> p0 = test::randomVector(all, 7, -0.6f, 0.6f);
    const std::vector<float> x0 = test::randomVector(size_t(rows) * w[0], 8, -1.0f, 1.0f);
    std::vector<double> params(p0.begin(), p0.end()), x(x0.begin(), x0.end());
    const std::vector<float> c = test::randomVector(size_t(rows) * w[3], 9, -1.0f, 1.0f);
    Buffer P = be.alloc(all), G = be.alloc(all), X = be.alloc(x.size()), C = be.alloc(c.size()),
           DX = be.alloc(x.size());
    DenseChainArgs a;
    a.rows = rows;
    a.models = models;
    a.layers = 3;
    std::vector<Buffer> acts3;
    acts3.reserve(9);  // BufRefs point at the Buffers
    size_t off = 0;
    for (int i = 0; i < 3; ++i) {
        DenseChainLayer& l = a.l[i];
        l.in = w[i];
        l.out = w[i + 1];
        l.act = acts[i];
        l.stride = models > 1 ? stride : 0;
        l.w = BufRef(P) + off;
        l.b = BufRef(P) + off + size_t(l.out) * l.in;
        l.dw = BufRef(G) + off;
        l.db = BufRef(G) + off + size_t(l.out) * l.in;
        off += size_t(l.out) * (l.in + 1);
        for (int k = 0; k < 3; ++k) acts3.push_back(be.alloc(size_t(rows) * l.out));
        l.z = acts3[3 * i];
        l.y = acts3[3 * i + 1];
        l.dz = acts3[3 * i + 2];
    }
    a.x = X;
    a.dy = C;
    a.dx = DX;
    be.upload(C, c.data(), c.size());
    auto loss = [&]() {
        be.uploadF64(P, params.data(), all);
        be.uploadF64(X, x.data(), x.size());
        be.denseChainForward({a});
        std::vector<double> y(c.size());
        be.downloadF64(a.l[2].y, y.data(), y.size());
        double s = 0;
        for (size_t i = 0; i < y.size(); ++i) s += double(c[i]) * y[i];
        return s;
    };
    loss();
    be.fill({G, all, 0.0f});
    be.denseChainBackward({a});
    std::vector<double> g(all), dx(x.size());
    be.downloadF64(G, g.data(), all);
    be.downloadF64(DX, dx.data(), dx.size());
    auto compare = [&](const std::string& what, std::vector<double>& v, size_t i, double analytic) {
        const double keep = v[i];
        v[i] = keep + t.eps;
        const double up = loss();
        v[i] = keep - t.eps;
        const double down = loss();
        v[i] = keep;
        const double numeric = (up - down) / (2 * t.eps);
        const double diff = std::fabs(analytic - numeric);
        if (diff <= std::max(t.abs, t.rel * std::max(std::fabs(analytic), std::fabs(numeric))))
            return std::string();
        return what + "[" + std::to_string(i) + "]: analytic " + std::to_string(analytic) +
               ", numeric " + std::to_string(numeric);
    };
    for (size_t i = 0; i < all; ++i) {
        if (i % stride >= per) continue;  // the gap between models
        const std::string m = compare("param", params, i, g[i]);
        if (!m.empty()) return m;
    }
    for (size_t i = 0; i < x.size(); ++i) {
        const std::string m = compare("x", x, i, dx[i]);
        if (!m.empty()) return m;
    }
    return {};
}

}  // namespace

TEST(GradcheckDenseChain, cpuDouble) {
    for (int models : {1, 2}) {
        CpuBackend be(Precision::Double, 1);
        const std::string m = checkChain(be, models, {1e-5, 1e-6, 1e-8});
        ASSERT_TRUE(m.empty()) << models << " model(s): " << m;
    }
}

TEST(GradcheckDenseChain, openclFused) {
    const std::vector<std::string> ids = test::openClDeviceIds();
    if (ids.empty()) GTEST_SKIP() << "no OpenCL device";
    for (const std::string& id : ids)
        for (int models : {1, 2}) {
            OpenClOptions o;
            o.fused = "on";
            auto be = OpenClBackend::create(id, o);
            const std::string m = checkChain(*be, models, {1e-2, 3e-3, 3e-4});
            ASSERT_TRUE(m.empty()) << id << ", " << models << " model(s): " << m;
        }
}
