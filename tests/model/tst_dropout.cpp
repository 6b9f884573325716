// Dropout (Backend::dropoutForward/Backward, the dropout layer, the attention layers'
// score_dropout and ff_dropout, the Network's dropout stream) on every device: rate 0 and
// evaluation are the identity, the mean is preserved and the fraction of zeros is the rate
// (statistically, over 2^21 values, within 5 standard deviations), the mask is the
// counter-based one of compute/DropoutMask.h, a new step gives a new mask and the same
// (seed, step) the same mask; JSON parameters are checked.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "common/FuzzyCompare.h"
#include "common/LayerRun.h"
#include "common/ParamName.h"
#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "compute/DropoutMask.h"
#include "model/Network.h"
#include "model/layers/DropoutLayer.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

constexpr size_t kLarge = size_t(1) << 21;

struct Drawn {
    std::vector<float> y, mask;
};

Drawn draw(Backend& be, const std::vector<float>& x, float rate, uint64_t key) {
    const size_t n = x.size();
    Buffer bx = be.alloc(n), bm = be.alloc(n), by = be.alloc(n);
    be.upload(bx, x.data(), n);
    be.dropoutForward({n, rate, key, bx, bm, by});
    Drawn d{std::vector<float>(n), std::vector<float>(n)};
    be.download(by, d.y.data(), n);
    be.download(bm, d.mask.data(), n);
    return d;
}

double zeroFraction(const std::vector<float>& mask) {
    size_t z = 0;
    for (float m : mask) z += m == 0.0f;
    return double(z) / double(mask.size());
}

double differingFraction(const std::vector<float>& a, const std::vector<float>& b) {
    size_t d = 0;
    for (size_t i = 0; i < a.size(); ++i) d += (a[i] == 0.0f) != (b[i] == 0.0f);
    return double(d) / double(a.size());
}

const nlohmann::json kStack{
    {"type", "attention_stack"}, {"key_size", 3},    {"heads", 2}, {"layers", 2},
    {"score_dropout", 0.3},      {"ff_dropout", 0.2}};

}  // namespace

// The device-parameterized functions (Qt Test's devices_data() rows: "cpu" and every OpenCL
// device).
class OnDevice : public ::testing::TestWithParam<std::string> {};

// Rate 0 keeps every value unchanged (mask 1), on the op and on the layers.
TEST_P(OnDevice, rateZeroIsIdentity) {
    const std::string device = GetParam();
    auto be = createBackend(device);
    const auto x = randomVector(70001, 5);
    const Drawn d = draw(*be, x, 0.0f, dropoutKey(1, 2));
    ASSERT_TRUE(d.y == x);
    for (float m : d.mask) ASSERT_FUZZY_EQ(m, 1.0f);
    LayerRun r(createBackend(device), std::make_unique<DropoutLayer>(0.0), Shape{7, 3}, 5);
    const auto xin = randomDoubles(r.inCount(), 6);
    r.setInput(xin);
    const auto y = r.forward(true);
    for (size_t i = 0; i < y.size(); ++i) ASSERT_FUZZY_EQ(float(y[i]), float(xin[i]));
    const auto dy = randomDoubles(r.outCount(), 7);
    const auto dx = r.backward(dy);
    for (size_t i = 0; i < dx.size(); ++i) ASSERT_FUZZY_EQ(float(dx[i]), float(dy[i]));
}

// Outside training the dropout layer and the attention rates change nothing: the same
// weights with and without rates give bit-identical outputs; in training they differ.
TEST_P(OnDevice, evaluationIsIdentity) {
    const std::string device = GetParam();
    const std::string id = device;
    LayerRun d(createBackend(id), std::make_unique<DropoutLayer>(0.5), Shape{7, 3}, 5);
    const auto xin = randomDoubles(d.inCount(), 8);
    d.setInput(xin);
    const auto y = d.forward(false);
    for (size_t i = 0; i < y.size(); ++i) ASSERT_FUZZY_EQ(float(y[i]), float(xin[i]));
    const auto dy = randomDoubles(d.outCount(), 9);
    const auto dx = d.backward(dy);
    for (size_t i = 0; i < dx.size(); ++i) ASSERT_FUZZY_EQ(float(dx[i]), float(dy[i]));

    nlohmann::json plain = kStack;
    plain.erase("score_dropout");
    plain.erase("ff_dropout");
    auto a = LayerRun::fromJson(createBackend(id), kStack, Shape{7, 6}, 3, 4);
    auto b = LayerRun::fromJson(createBackend(id), plain, Shape{7, 6}, 3, 4);
    const auto in = randomDoubles(a->inCount(), 10);
    a->setInput(in);
    b->setInput(in);
    ASSERT_TRUE(a->forward(false) == b->forward(false));
    ASSERT_TRUE(a->forward(true) != b->forward(true));
    ASSERT_TRUE(b->forward(true) == b->forward(false));  // no rates: training = evaluation
}

// E[y] = x: the mean of y over 2^21 values equals the mean of x within 5 standard
// deviations of the estimate (sd = sqrt(rate / (1 - rate) * mean(x^2) / n)).
TEST_P(OnDevice, meanIsPreserved) {
    const std::string device = GetParam();
    auto be = createBackend(device);
    const auto x = randomVector(kLarge, 11, 0.5f, 1.5f);
    double mx = 0, mx2 = 0;
    for (float v : x) {
        mx += v;
        mx2 += double(v) * v;
    }
    mx /= double(kLarge);
    mx2 /= double(kLarge);
    for (float rate : {0.1f, 0.5f, 0.9f}) {
        const Drawn d = draw(*be, x, rate, dropoutKey(42, 7));
        double my = 0;
        for (float v : d.y) my += v;
        my /= double(kLarge);
        const double sd = std::sqrt(rate / (1.0 - rate) * mx2 / double(kLarge));
        const double err = std::fabs(my - mx);
        std::printf("%s rate %.1f: mean(x) %.6f mean(y) %.6f |diff| %.2e (sd %.2e, rel %.2e)\n",
                    device.c_str(), rate, mx, my, err, sd, err / mx);
        ASSERT_TRUE(err < 5 * sd) << "mean " << my << " vs " << mx;
        ASSERT_TRUE(err / mx < 5e-3);
    }
}

// The fraction of dropped values is the rate within 5 standard deviations
// (sqrt(rate (1 - rate) / n)); kept values are scaled by exactly 1 / (1 - rate).
TEST_P(OnDevice, zeroFractionIsRate) {
    const std::string device = GetParam();
    auto be = createBackend(device);
    const std::vector<float> ones(kLarge, 1.0f);
    for (float rate : {0.05f, 0.1f, 0.3f, 0.5f, 0.9f}) {
        const Drawn d = draw(*be, ones, rate, dropoutKey(3, 1));
        const double f = zeroFraction(d.mask);
        const double sd = std::sqrt(rate * (1.0 - rate) / double(kLarge));
        std::printf("%s rate %.2f: zero fraction %.6f (|diff| %.2e, sd %.2e)\n", device.c_str(),
                    rate, f, std::fabs(f - rate), sd);
        ASSERT_TRUE(std::fabs(f - rate) < 5 * sd) << "zeros " << f;
        const float scale = dropoutScale(rate);
        for (size_t i = 0; i < kLarge; ++i)
            if (d.mask[i] != 0.0f && (d.mask[i] != scale || d.y[i] != scale))
                FAIL() << "element " << i << ": mask " << d.mask[i];
    }
}

// Every device draws exactly the mask of the host generator (compute/DropoutMask.h).
TEST_P(OnDevice, maskIsTheCounterBasedOne) {
    const std::string device = GetParam();
    auto be = createBackend(device);
    const size_t n = 100003;
    const uint64_t key = dropoutKey(123456789, 987654321);
    const float rate = 0.37f;
    const Drawn d = draw(*be, std::vector<float>(n, 2.0f), rate, key);
    const uint32_t t = dropoutThreshold(rate);
    for (size_t i = 0; i < n; ++i) {
        const bool kept = dropoutBits(key, i) >= t;
        if ((d.mask[i] != 0.0f) != kept) FAIL() << "element " << i;
    }
}

// The same (seed, step) gives the same mask; another step or seed another one (about
// 2 rate (1 - rate) of the positions differ).
TEST_P(OnDevice, stepsGiveNewMasks) {
    const std::string device = GetParam();
    auto be = createBackend(device);
    const std::vector<float> ones(size_t(1) << 16, 1.0f);
    const float rate = 0.5f;
    const auto a = draw(*be, ones, rate, dropoutKey(9, 0)).mask;
    ASSERT_TRUE(draw(*be, ones, rate, dropoutKey(9, 0)).mask == a);
    for (const auto key : {dropoutKey(9, 1), dropoutKey(9, 2), dropoutKey(10, 0)}) {
        const double f = differingFraction(a, draw(*be, ones, rate, key).mask);
        ASSERT_TRUE(std::fabs(f - 0.5) < 0.02) << "differing " << f;
    }
}

// The Network advances the step per training forward (every batch a new mask), not in
// evaluation; rewinding the step repeats the masks; layers get different seeds.
TEST_P(OnDevice, networkStepsPerTrainingForward) {
    const std::string device = GetParam();
    auto be = createBackend(device);
    Network net(
        Network::layersFromJson({{"layers", {kStack, {{"type", "dropout"}, {"rate", 0.5}}}}}),
        Shape{5, 6});
    net.build(*be, 4);
    net.initWeights(1);
    net.setDropoutSeed(77);
    const size_t n = 4 * 30;
    const auto xh = randomVector(n, 12);
    Buffer x = be->alloc(n);
    be->upload(x, xh.data(), n);
    auto run = [&](bool training) {
        std::vector<float> y(n);
        be->download(net.forward(x, 4, training), y.data(), n);
        return y;
    };
    ASSERT_EQ(net.dropoutStep(), uint64_t(0));
    const auto e0 = run(false);
    ASSERT_EQ(net.dropoutStep(), uint64_t(0));
    const auto t0 = run(true);
    ASSERT_EQ(net.dropoutStep(), uint64_t(1));
    const auto t1 = run(true);
    ASSERT_TRUE(t0 != t1);
    ASSERT_TRUE(t0 != e0);
    ASSERT_TRUE(run(false) == e0);
    net.setDropoutStep(0);
    ASSERT_TRUE(run(true) == t0);
    // The dropout layer (index 1) and one seeded as index 0 with the same step draw different
    // masks: the layer index is part of the seed.
    auto& drop = static_cast<DropoutLayer&>(net.layer(1));
    std::vector<float> m1(n);
    be->download(drop.mask(), m1.data(), n);
    DropoutLayer other(0.5);
    other.build(*be, Shape{5, 6}, 4);
    other.setDropoutStream(77 * 1000003ull + 0, 0);
    other.forward(x, 4, true);
    std::vector<float> m0(n);
    be->download(other.mask(), m0.data(), n);
    ASSERT_TRUE(m0 != m1);
}

// JSON: rates in [0, 1), clear errors; the rates round-trip (0 when not given); gpt has
// no dropout.
TEST(Dropout, parameters) {
    ASSERT_EQ(makeLayer({{"type", "dropout"}})->toJson(),
              (nlohmann::json{{"type", "dropout"}, {"rate", 0.1}}));
    ASSERT_FUZZY_EQ(makeLayer({{"type", "dropout"}, {"rate", 0}})->toJson()["rate"].get<double>(),
                    0.0);
    auto err = [](const nlohmann::json& j) -> std::string {
        try {
            makeLayer(j);
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return "accepted";
    };
    ASSERT_EQ(err({{"type", "dropout"}, {"rate", 1}}),
              std::string("rate: 1 is outside 0.0 <= rate < 1.0"));
    ASSERT_EQ(err({{"type", "dropout"}, {"rate", -0.25}}),
              std::string("rate: -0.25 is outside 0.0 <= rate < 1.0"));
    ASSERT_EQ(err({{"type", "dropout"}, {"rate", "0.1"}}),
              std::string("rate: must be a number, got \"0.1\""));
    ASSERT_EQ(err({{"type", "attention"}, {"score_dropout", 1.5}}),
              std::string("score_dropout: 1.5 is outside 0.0 <= score_dropout < 1.0"));
    ASSERT_EQ(err({{"type", "gpt"}, {"ff_dropout", 0.1}}),
              std::string("unknown parameter 'ff_dropout' for layer type 'gpt'"));
    for (const char* type : {"attention", "multihead_attention", "attention_stack"}) {
        const auto plain = makeLayer({{"type", type}})->toJson();
        ASSERT_FUZZY_EQ(plain["score_dropout"].get<double>(), 0.0);
        ASSERT_FUZZY_EQ(plain["ff_dropout"].get<double>(), 0.0);
        const auto j =
            makeLayer({{"type", type}, {"score_dropout", 0.25}, {"ff_dropout", 0.1}})->toJson();
        ASSERT_FUZZY_EQ(j["score_dropout"].get<double>(), 0.25);
        ASSERT_FUZZY_EQ(j["ff_dropout"].get<double>(), 0.1);
        ASSERT_EQ(makeLayer(j)->toJson(), j);
    }
    ASSERT_FUZZY_EQ(defaultLayerJson("dropout")["rate"].get<double>(), 0.1);
    ASSERT_EQ(layerParam("attention_stack", "score_dropout").kind, LayerParamSpec::Kind::Real);
    ASSERT_TRUE(!layerParam("attention_stack", "ff_dropout").help.empty());
    // The op itself refuses a rate outside [0, 1).
    CpuBackend be;
    Buffer b = be.alloc(4);
    ASSERT_THROW(be.dropoutForward({4, 1.0f, 0, b, b, b}), ComputeError);
}

INSTANTIATE_TEST_SUITE_P(Dropout, OnDevice, ::testing::ValuesIn(testDeviceIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return paramName(info.param);
                         });
