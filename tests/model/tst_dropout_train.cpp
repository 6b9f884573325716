// Training with dropout (a dropout layer and the attention stack's score_dropout and
// ff_dropout, on the tiny synthetic stack task of tests/fixtures/attention): the network
// learns, the same seed gives the same numbers, dropout changes the run, and every OpenCL
// device follows the CPU's losses epoch by epoch (the same masks on every device).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/Trainer.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

namespace {

Experiment problem(const std::string& device, bool dropout) {
    Experiment e =
        Experiment::load(std::string(NNWB_TEST_FIXTURES) + "/attention/stack-synthetic.json");
    auto& layers = e.model["layers"];
    if (dropout) {
        layers[0]["score_dropout"] = 0.1;
        layers[0]["ff_dropout"] = 0.1;
        layers.insert(layers.begin() + 1, nlohmann::json{{"type", "dropout"}, {"rate", 0.2}});
    }
    e.training.device = device;
    return e;
}

struct Losses {
    std::vector<double> train, validation;
};

Losses trainLosses(const Experiment& e, int epochs) {
    const ExperimentData data = loadExperimentData(e);
    if (!data.ok) throw std::runtime_error(data.error);
    auto be = createBackend(e.training.device);
    Network net(Network::layersFromJson(e.model), data.split.train.inputShape);
    Trainer trainer(*be, net, e.training, data.split);
    Losses out;
    for (int i = 0; i < epochs; ++i) {
        const auto rep = trainer.runEpoch();
        out.train.push_back(rep.train.loss);
        out.validation.push_back(rep.validation.loss);
    }
    return out;
}

}  // namespace

TEST(DropoutTrain, learnsWithDropout) {
    const auto a = trainLosses(problem("cpu", true), 12);
    std::printf("training loss with dropout: epoch 1 %.4f, epoch 12 %.4f\n", a.train.front(),
                a.train.back());
    ASSERT_TRUE(a.train.front() > 0.9);
    ASSERT_TRUE(a.train.back() < 0.8) << "final loss " << a.train.back();
    const auto b = trainLosses(problem("cpu", true), 12);
    ASSERT_EQ(b.train, a.train);
    ASSERT_EQ(b.validation, a.validation);
    const auto plain = trainLosses(problem("cpu", false), 2);
    ASSERT_TRUE(plain.train[1] != a.train[1]);
}

TEST(DropoutTrain, openclFollowsCpu) {
    const auto ids = test::openClDeviceIds();
    if (ids.empty()) GTEST_SKIP() << "no OpenCL device";
    const int epochs = 3;
    const auto cpu = trainLosses(problem("cpu", true), epochs);
    for (const auto& id : ids) {
        const auto cl = trainLosses(problem(id, true), epochs);
        for (int i = 0; i < epochs; ++i) {
            std::printf("%s epoch %d: train %.7f vs cpu %.7f, validation %.7f vs cpu %.7f\n",
                        id.c_str(), i + 1, cl.train[i], cpu.train[i], cl.validation[i],
                        cpu.validation[i]);
            ASSERT_TRUE(std::fabs(cl.train[i] - cpu.train[i]) / cpu.train[i] < 1e-4)
                << id << " epoch " << i + 1;
            ASSERT_TRUE(std::fabs(cl.validation[i] - cpu.validation[i]) / cpu.validation[i] < 1e-4)
                << id << " epoch " << i + 1;
        }
    }
}
