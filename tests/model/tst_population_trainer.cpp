// Population training in the Trainer (docs/decisions/population.md): P models trained together
// equal the same P models trained one by one, bit for bit on the CPU (every epoch's figures,
// gradient norms and the final weights), with different seeds, learning rates, schedules and
// class weights and a last batch cut short; a diverged model is masked while the others go on
// unchanged; a stopped model's weights stay; populationMembers and populationRefusal.
#include <gtest/gtest.h>

#include <memory>

#include <cstring>
#include <limits>

#include "compute/BackendRegistry.h"
#include "compute/CpuBackend.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/NetworkWeights.h"
#include "model/PopulationCheck.h"
#include "model/PopulationSpec.h"
#include "model/Trainer.h"

using namespace nnwb;

namespace {

Experiment base() {
    Experiment e;
    e.name = "pop";
    // 203 samples, 30 % validation, batch 16: the last training batch is cut short.
    e.data = {{"source", "synthetic"}, {"samples", 203}, {"units", 4},
              {"window", 5},           {"seed", 3},      {"validationShare", 0.3}};
    e.model = {{"layers",
                {{{"type", "dense"}, {"neurons", 12}, {"activation", "tanh"}},
                 {{"type", "dropout"}, {"rate", 0.2}},
                 {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}};
    e.training.batchSize = 16;
    e.training.epochs = 3;
    e.training.device = "cpu";
    e.training.clipNorm = 0.5;
    return e;
}

std::vector<Experiment> members() {
    Experiment b = base();
    std::vector<Experiment> m =
        populationMembers(b, 3,
                          {"seed=7..9", "optimizer.learningRate=0.003,0.01,0.001",
                           "lrSchedule.type=constant,step,constant"});
    m[1].training.lrSchedule.stepEpochs = 1;
    m[1].training.lrSchedule.gamma = 0.5;
    m[2].training.classWeights.mode = "balanced";
    return m;
}

struct PopRun {
    ExperimentData data;
    std::unique_ptr<Backend> be;
    std::unique_ptr<Network> net;
    std::unique_ptr<Trainer> trainer;
    explicit PopRun(const std::vector<Experiment>& ms, Precision precision = Precision::Float)
        : data(loadExperimentData(ms.front())) {
        if (!data.ok) throw std::runtime_error(data.error);
        be = std::make_unique<CpuBackend>(precision);
        net = std::make_unique<Network>(Network::layersFromJson(ms.front().model),
                                        data.split.train.inputShape);
        std::vector<TrainingConfig> cfgs;
        for (const Experiment& e : ms) cfgs.push_back(e.training);
        trainer = std::make_unique<Trainer>(*be, *net, cfgs, data.split);
    }
};

void expectSameReport(const EpochReport& a, const EpochReport& b, const std::string& where) {
    EXPECT_EQ(a.train.loss, b.train.loss) << where;
    EXPECT_EQ(a.validation.loss, b.validation.loss) << where;
    EXPECT_EQ(a.train.accuracyPct, b.train.accuracyPct) << where;
    EXPECT_EQ(a.validation.missedPct, b.validation.missedPct) << where;
    EXPECT_EQ(a.gradNormMax, b.gradNormMax) << where;
    EXPECT_EQ(a.gradNormMean, b.gradNormMean) << where;
    EXPECT_EQ(a.learningRate, b.learningRate) << where;
}

void expectSameWeights(const TensorMap& a, const TensorMap& b, const std::string& where) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (const auto& [name, t] : a) EXPECT_EQ(t.values, b.at(name).values) << where << " " << name;
}

void togetherEqualsOneByOne(Precision precision) {
    const std::vector<Experiment> ms = members();
    PopRun together(ms, precision);
    std::vector<std::vector<EpochReport>> reps;
    for (int e = 0; e < 3; ++e) reps.push_back(together.trainer->runEpochAll());
    for (size_t m = 0; m < ms.size(); ++m) {
        PopRun alone({ms[m]}, precision);
        for (int e = 0; e < 3; ++e) {
            const EpochReport r = alone.trainer->runEpoch();
            expectSameReport(reps[size_t(e)][m], r,
                             "model " + std::to_string(m) + " epoch " + std::to_string(e + 1));
            EXPECT_EQ(reps[size_t(e)][m].model, int(m));
        }
        expectSameWeights(readWeights(*together.net, int(m)), readWeights(*alone.net),
                          "model " + std::to_string(m));
    }
    // The models differ (seeds, rates).
    EXPECT_NE(reps[2][0].train.loss, reps[2][1].train.loss);
}

// Bit for bit, NaN included (a diverged model's weights).
void expectSameBits(const TensorMap& a, const TensorMap& b, const std::string& where) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (const auto& [name, t] : a) {
        const auto& u = b.at(name).values;
        ASSERT_EQ(t.values.size(), u.size()) << where << " " << name;
        EXPECT_EQ(std::memcmp(t.values.data(), u.data(), u.size() * sizeof(float)), 0)
            << where << " " << name;
    }
}

}  // namespace

TEST(PopulationTrainer, TogetherEqualsOneByOneFloat) {
    togetherEqualsOneByOne(Precision::Float);
}

TEST(PopulationTrainer, TogetherEqualsOneByOneDouble) {
    togetherEqualsOneByOne(Precision::Double);
}

TEST(PopulationTrainer, EvaluateAllGivesEachModelsOutputs) {
    const std::vector<Experiment> ms = members();
    PopRun together(ms);
    together.trainer->runEpochAll();
    std::vector<float> outs;
    const auto figures =
        together.trainer->evaluateAll(together.data.split.validation, nullptr, &outs);
    const size_t per = together.data.split.validation.size() * 3;
    ASSERT_EQ(outs.size(), per * ms.size());
    for (size_t m = 0; m < ms.size(); ++m) {
        PopRun alone({ms[m]});
        alone.trainer->runEpoch();
        std::vector<float> one;
        const EpochMetrics f = alone.trainer->evaluate(alone.data.split.validation, nullptr, &one);
        EXPECT_EQ(f.loss, figures[m].loss) << m;
        EXPECT_EQ(one, std::vector<float>(outs.begin() + long(m * per),
                                          outs.begin() + long((m + 1) * per)))
            << m;
    }
}

TEST(PopulationTrainer, ADivergedModelIsMaskedAndTheOthersGoOn) {
    std::vector<Experiment> ms = members();
    // Diverges in its first epoch (set past the file's checks).
    ms[1].training.optimizer.learningRate = std::numeric_limits<double>::infinity();
    PopRun together(ms);
    std::vector<EpochReport> first = together.trainer->runEpochAll();
    EXPECT_NE(first[1].error.find("the loss became"), std::string::npos) << first[1].error;
    EXPECT_TRUE(together.trainer->modelStopped(1));
    const TensorMap frozen = readWeights(*together.net, 1);
    std::vector<EpochReport> second = together.trainer->runEpochAll();
    EXPECT_TRUE(second[1].error.empty());  // reported once
    expectSameBits(readWeights(*together.net, 1), frozen, "masked model");
    for (size_t m : {size_t(0), size_t(2)}) {
        PopRun alone({ms[m]});
        expectSameReport(first[m], alone.trainer->runEpoch(), "epoch 1");
        expectSameReport(second[m], alone.trainer->runEpoch(), "epoch 2");
        EXPECT_TRUE(first[m].error.empty());
    }
}

TEST(PopulationTrainer, AStoppedModelKeepsItsWeights) {
    PopRun together(members());
    together.trainer->runEpochAll();
    together.trainer->stopModel(0);
    const TensorMap before = readWeights(*together.net, 0);
    const TensorMap other = readWeights(*together.net, 2);
    together.trainer->runEpochAll();
    expectSameWeights(readWeights(*together.net, 0), before, "stopped model");
    EXPECT_NE(readWeights(*together.net, 2).at("layers.0.weight").values,
              other.at("layers.0.weight").values);
}

TEST(PopulationSpec, MembersAndTheirNames) {
    const Experiment b = base();
    const auto ms = populationMembers(b, 4, {});
    ASSERT_EQ(ms.size(), 4u);
    for (size_t m = 0; m < 4; ++m) {
        EXPECT_EQ(ms[m].training.seed, b.training.seed + m);
        EXPECT_EQ(ms[m].name, "pop seed=" + std::to_string(b.training.seed + m));
    }
    const auto lr = populationMembers(b, 2, {"optimizer.learningRate=0.01", "seed=1,5"});
    EXPECT_EQ(lr[1].training.optimizer.learningRate, 0.01);
    EXPECT_EQ(lr[1].training.seed, 5u);
    EXPECT_EQ(populationRefusal(lr), "");
}

TEST(PopulationSpec, BadItemsNameThemselves) {
    const Experiment b = base();
    auto message = [&](std::vector<std::string> vary, int n = 3) {
        try {
            populationMembers(b, n, vary);
        } catch (const PopulationSpecError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message({"seed=1..4"}).find("--vary seed=1..4: 1..4 gives 4 values for 3 models"),
              std::string::npos);
    EXPECT_NE(message({"batchSize=1,2,3"}).find("may differ only in"), std::string::npos);
    EXPECT_NE(message({"optimizer.type=sgd"}).find("may differ only in"), std::string::npos);
    EXPECT_NE(message({"seed"}).find("expected KEY=VALUES"), std::string::npos);
    EXPECT_NE(message({"optimizer.learningRate=1,-2,3"}).find("model 2"), std::string::npos);
    EXPECT_NE(message({}, 0).find("--population"), std::string::npos);
}

TEST(PopulationCheck, SharedSettingsMustMatch) {
    std::vector<Experiment> ms = members();
    EXPECT_EQ(populationRefusal(ms), "");
    ms[2].training.batchSize = 32;
    EXPECT_NE(populationRefusal(ms).find("model 3 differs from model 1 in training.batchSize (32, "
                                         "not 16)"),
              std::string::npos)
        << populationRefusal(ms);
    ms = members();
    ms[1].model["layers"][0]["neurons"] = 13;
    EXPECT_NE(populationRefusal(ms).find("model.layers"), std::string::npos);
}
