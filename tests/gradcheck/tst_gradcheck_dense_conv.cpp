// Finite-difference gradient checks (double-precision CPU backend) of the dense and conv
// layers for every activation and parameter tensor, and of both losses.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>

#include "common/GradCheck.h"
#include "common/ParamName.h"
#include "compute/CpuBackend.h"
#include "model/Loss.h"
#include "model/Rng.h"
#include "model/layers/ActivationNames.h"
#include "model/layers/ConvLayer.h"
#include "model/layers/DenseLayer.h"

using namespace nnwb;

namespace {

struct ConvRow {
    const char* name;
    int window, step;
    std::string activation;
};
void PrintTo(const ConvRow& r, std::ostream* os) {
    *os << r.name;
}
const ConvRow kConvRows[] = {
    {"step==window sigmoid", 4, 4, "sigmoid"},
    {"overlapping tanh", 5, 2, "tanh"},
    {"gaps swish", 3, 4, "swish"},
    {"leaky", 4, 1, "leaky_relu"},
    {"softmax", 4, 4, "softmax"},
    {"none", 6, 3, "none"},
};

struct LossRow {
    const char* name;
    std::string loss;
    bool weighted;
};
void PrintTo(const LossRow& r, std::ostream* os) {
    *os << r.name;
}
const LossRow kLossRows[] = {
    {"mse", "mse", false},
    {"cross_entropy", "cross_entropy", false},
    {"mse, class weights", "mse", true},
    {"cross_entropy, class weights", "cross_entropy", true},
};

}  // namespace

// One row per activation name.
class GradcheckDenseConvActivation : public ::testing::TestWithParam<std::string> {};
class GradcheckDenseConvConv : public ::testing::TestWithParam<ConvRow> {};
class GradcheckDenseConvLoss : public ::testing::TestWithParam<LossRow> {};

TEST_P(GradcheckDenseConvActivation, dense) {
    const Activation act = activationFromName(GetParam());
    const auto msg =
        test::gradCheckLayer([&] { return std::make_unique<DenseLayer>(5, act); }, Shape{3, 4});
    ASSERT_TRUE(msg.empty()) << msg;
}

INSTANTIATE_TEST_SUITE_P(, GradcheckDenseConvActivation, ::testing::ValuesIn(activationNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                             return test::paramName(i.param);
                         });

TEST(GradcheckDenseConv, denseBatchOne) {
    const auto msg = test::gradCheckLayer(
        [] { return std::make_unique<DenseLayer>(7, Activation::Tanh); }, Shape{1, 9}, 1);
    ASSERT_TRUE(msg.empty()) << msg;
}

TEST_P(GradcheckDenseConvConv, conv) {
    const ConvRow& r = GetParam();
    const Activation act = activationFromName(r.activation);
    const auto msg = test::gradCheckLayer(
        [&] { return std::make_unique<ConvLayer>(r.window, r.step, 3, act); }, Shape{5, 4});
    ASSERT_TRUE(msg.empty()) << msg;
}

INSTANTIATE_TEST_SUITE_P(, GradcheckDenseConvConv, ::testing::ValuesIn(kConvRows), test::RowName());

// d(mean loss)/d(output) from Loss::compute against central differences; with class
// weights, the gradient scaled per sample by Backend::scaleRows against the differences of
// the weighted mean loss (sum of w_s * loss_s / batch).
TEST_P(GradcheckDenseConvLoss, losses) {
    const std::string loss = GetParam().loss;
    const bool weighted = GetParam().weighted;
    CpuBackend be(Precision::Double, 1);
    const int batch = 4, outs = 3;
    Loss l(be, lossFromName(loss), outs, batch);
    Rng rng(5);
    std::vector<double> y(batch * outs), t(batch * outs, 0.0);
    for (auto& v : y) v = rng.uniform(-2, 2);
    for (int b = 0; b < batch; ++b) t[b * outs + rng.below(outs)] = 1.0;
    t[outs + 0] = 1.0;  // an outside-bar style target with two classes set
    Buffer yb = be.alloc(y.size()), tb = be.alloc(t.size());
    be.uploadF64(tb, t.data(), t.size());
    std::vector<double> w(batch, 1.0);
    if (weighted) w = {0.5, 2.25, 1.0, 3.5};
    Buffer wb = be.alloc(batch);
    be.uploadF64(wb, w.data(), w.size());
    auto meanLoss = [&](const std::vector<double>& yy) {
        be.uploadF64(yb, yy.data(), yy.size());
        l.compute(yb, tb, batch);
        std::vector<double> per(batch);
        be.downloadF64(l.perSample(), per.data(), batch);
        double s = 0;
        for (int b = 0; b < batch; ++b) s += w[b] * per[b];
        return s / batch;
    };
    meanLoss(y);
    if (weighted) be.scaleRows({batch, outs, wb, l.gradient()});
    std::vector<double> g(y.size());
    be.downloadF64(l.gradient(), g.data(), g.size());
    const double eps = 1e-6;
    for (size_t i = 0; i < y.size(); ++i) {
        auto yp = y, ym = y;
        yp[i] += eps;
        ym[i] -= eps;
        const double num = (meanLoss(yp) - meanLoss(ym)) / (2 * eps);
        ASSERT_LT(std::fabs(num - g[i]), 1e-7)
            << "output " << i << ": analytic " << g[i] << " numeric " << num;
    }
}

INSTANTIATE_TEST_SUITE_P(, GradcheckDenseConvLoss, ::testing::ValuesIn(kLossRows), test::RowName());
