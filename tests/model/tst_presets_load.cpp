// Every preset in resources/presets loads with Experiment::load and its network builds on the
// CPU backend for the preset's input shape (file data: {window, 12 features}; synthetic:
// {units, window}) with 3 outputs, and a forward pass gives finite values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "common/ParamName.h"
#include "nnwb/TestPaths.h"

#include "compute/CpuBackend.h"
#include "model/Experiment.h"
#include "model/Network.h"

using namespace nnwb;

namespace {
std::vector<std::string> presetFiles() {
    std::vector<std::string> out;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(NNWB_RESOURCE_DIR) + "/presets"))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}
}  // namespace

class PresetsLoad : public ::testing::TestWithParam<std::string> {};

TEST_P(PresetsLoad, preset) {
    ASSERT_TRUE(presetFiles().size() >= 7);  // Qt Test checked this in preset_data()
    const Experiment e = Experiment::load(GetParam());
    ASSERT_TRUE(!e.name.empty());
    Shape in;
    if (e.data.value("source", std::string("file")) == "synthetic")
        in = Shape{e.data.value("units", 4), e.data.value("window", 3)};
    else
        in = Shape{e.data.value("window", 20), 12};
    CpuBackend be;  // declared first: the network's buffers must go before their backend
    Network net(Network::layersFromJson(e.model), in);
    ASSERT_EQ(int(net.outputShape().size()), 3);
    ASSERT_TRUE(net.parameterCount() > 0);
    const int batch = 2;
    net.build(be, batch);
    net.initWeights(e.training.seed);
    size_t built = 0;
    for (auto& p : net.params()) built += p.param->count();
    ASSERT_EQ(built, net.parameterCount());
    std::vector<float> x(batch * in.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(0.37 * double(i)));
    Buffer xb = be.alloc(x.size());
    be.upload(xb, x.data(), x.size());
    std::vector<float> y(batch * 3);
    be.download(net.forward(xb, batch, false), y.data(), y.size());
    for (float v : y) ASSERT_TRUE(std::isfinite(v));
    // Round trip through the experiment JSON keeps the model.
    ASSERT_EQ(Experiment::fromJson(e.toJson()).model, e.model);
}

INSTANTIATE_TEST_SUITE_P(PresetsLoad, PresetsLoad, ::testing::ValuesIn(presetFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return test::paramName(
                                 std::filesystem::path(info.param).filename().string());
                         });
