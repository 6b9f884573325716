// Parity of dropout across devices: Backend::dropoutForward/Backward on every OpenCL device
// against the CpuBackend reference (odd sizes, guard values, masks compared exactly, y in
// place), and the layers with dropout in training (dropout, attention, multihead_attention,
// attention_stack with score_dropout and ff_dropout): output, input gradient and every
// parameter gradient on every device of listDevices() against the double-precision CPU.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "common/LayerParity.h"
#include "common/LayerRun.h"
#include "common/ParamName.h"
#include "compute/BackendRegistry.h"
#include "compute/DropoutMask.h"
#include "parity/ParityHarness.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

const size_t kSizes[] = {1, 3, 7, 20, 33, 65, 130, 1000, 70001};
const float kRates[] = {0.0f, 0.1f, 0.5f, 0.93f};
// Masks are 0 or 1 / (1 - rate) on every device: compared exactly.
const ParityTolerance kTol{{}, {{"mask", Tolerance{0.0, 0.0}}}};

struct Case {
    const char* name;
    nlohmann::json layer;
    Shape in;
};

std::vector<Case> layerCases() {
    return {
        {"dropout u7 w3 r0.3", {{"type", "dropout"}, {"rate", 0.3}}, {7, 3}},
        {"dropout u1 w65 r0.9", {{"type", "dropout"}, {"rate", 0.9}}, {1, 65}},
        {"attention u7 k4 causal",
         {{"type", "attention"},
          {"key_size", 4},
          {"causal", true},
          {"score_dropout", 0.3},
          {"ff_dropout", 0.2}},
         {7, 9}},
        {"multihead u20 h3 k1 seq",
         {{"type", "multihead_attention"},
          {"key_size", 1},
          {"heads", 3},
          {"norm", "sequence"},
          {"score_dropout", 0.5},
          {"ff_dropout", 0.1}},
         {20, 12}},
        {"stack u33 h8 k4 score only",
         {{"type", "attention_stack"},
          {"key_size", 4},
          {"heads", 8},
          {"layers", 2},
          {"causal", true},
          {"score_dropout", 0.25}},
         {33, 9}},
        {"stack u1 h3 k4 ff only",
         {{"type", "attention_stack"},
          {"key_size", 4},
          {"heads", 3},
          {"layers", 2},
          {"ff_dropout", 0.4}},
         {1, 6}},
    };
}

LayerResult runCase(std::unique_ptr<Backend> be, const Case& c) {
    LayerRun r(std::move(be), makeLayer(c.layer), c.in, 3, 17);
    r.layer->setDropoutStream(2024, 5);
    r.setInput(randomDoubles(r.inCount(), 71));
    std::vector<double> y = r.forward(true);
    return layerResult(r, std::move(y), r.backward(randomDoubles(r.outCount(), 72)));
}

// Layers with dropout in training, the mask held at (seed 2024, step 5) on every device: one row
// per device of listDevices() and layer case.
std::vector<LayerRow> layerRows() {
    std::vector<LayerRow> rows;
    const auto all = layerCases();
    // Under a checking device (oclgrind) only the small cases.
    const bool small = parityCheckingDevice();
    for (const auto& id : testDeviceIds())
        for (size_t i = 0; i < all.size(); ++i)
            if (!small || all[i].in.units <= 7) rows.push_back({id + " " + all[i].name, id, i});
    return rows;
}

}  // namespace

class ParityDropout : public ParitySuite {};

// The layer rows skip without an OpenCL device, like the op parity (each row opens its own
// backend).
class ParityDropoutLayer : public ::testing::TestWithParam<LayerRow> {
protected:
    void SetUp() override {
        static const std::string why = parityUnavailable();
        if (!why.empty()) GTEST_SKIP() << why;
    }
};

// Kernels: dropout_forward (separate y and in place), dropout_backward (separate, in place)
TEST_F(ParityDropout, ops) {
    for (size_t n : kSizes)
        for (float rate : kRates) {
            const std::string c =
                "dropout n=" + std::to_string(n) + " rate=" + std::to_string(rate);
            const uint64_t key = dropoutKey(uint64_t(n) * 31 + 7, uint64_t(rate * 100));
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef x = r.in("x", randomVector(n, 130));
                    BufRef mask = r.out("mask", randomVector(n, 131));
                    BufRef y = r.out("y", randomVector(n, 132));
                    r.be.dropoutForward({n, rate, key, x, mask, y});
                    BufRef dy = r.in("dy", randomVector(n, 133));
                    BufRef dx = r.out("dx", randomVector(n, 134));
                    r.be.dropoutBackward({n, mask, dy, dx});
                },
                kTol, c);
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef xy = r.out("xy", randomVector(n, 135));
                    BufRef mask = r.out("mask", randomVector(n, 136));
                    r.be.dropoutForward({n, rate, key, xy, mask, xy});
                    BufRef g = r.out("g", randomVector(n, 137));
                    r.be.dropoutBackward({n, mask, g, g});
                },
                kTol, c + " in place");
        }
}

TEST_P(ParityDropoutLayer, layer) {
    const Case c = layerCases()[GetParam().index];
    const LayerResult ref = runCase(std::make_unique<CpuBackend>(Precision::Double, 1), c);
    const LayerResult got = runCase(createBackend(GetParam().device), c);
    const std::string e = compareLayerResults(got, ref);
    ASSERT_TRUE(e.empty()) << e;
}

INSTANTIATE_TEST_SUITE_P(, ParityDropoutLayer, ::testing::ValuesIn(layerRows()), RowName());
