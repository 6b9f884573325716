// Each attention-family layer learns a small deterministic synthetic task (fixtures in
// tests/fixtures/attention): the training loss falls from about ln 3 below a stated level, and
// the same seed gives the same numbers twice.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/CpuBackend.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/Trainer.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

namespace {
std::vector<double> trainLosses(const std::string& path) {
    const Experiment e = Experiment::load(path);
    const ExperimentData data = loadExperimentData(e);
    if (!data.ok) throw std::runtime_error(data.error);
    CpuBackend be(Precision::Float, 2);
    Network net(Network::layersFromJson(e.model), data.split.train.inputShape);
    Trainer trainer(be, net, e.training, data.split);
    std::vector<double> losses;
    for (int i = 0; i < e.training.epochs; ++i) losses.push_back(trainer.runEpoch().train.loss);
    return losses;
}
}  // namespace

struct LearnsCase {
    const char* tag;
    const char* fixture;
    double maxFinalLoss;
};

class AttentionTrain : public ::testing::TestWithParam<LearnsCase> {};

TEST_P(AttentionTrain, learns) {
    const std::string fixture = GetParam().fixture;
    const double maxFinalLoss = GetParam().maxFinalLoss;
    const std::string path = std::string(NNWB_TEST_FIXTURES) + "/attention/" + fixture + ".json";
    const auto losses = trainLosses(path);
    ASSERT_TRUE(losses.front() > 0.9);
    ASSERT_TRUE(losses.back() < maxFinalLoss) << "final loss " << losses.back();
    ASSERT_EQ(trainLosses(path), losses);
}

INSTANTIATE_TEST_SUITE_P(AttentionTrain, AttentionTrain,
                         ::testing::Values(LearnsCase{"attention", "attention-synthetic", 0.7},
                                           LearnsCase{"multihead", "multihead-synthetic", 0.6},
                                           LearnsCase{"stack", "stack-synthetic", 0.7},
                                           LearnsCase{"gpt", "gpt-synthetic", 0.95},
                                           LearnsCase{"lightconv", "lightconv-synthetic", 0.8}),
                         [](const ::testing::TestParamInfo<LearnsCase>& info) {
                             return std::string(info.param.tag);
                         });
