// Training checkpoints (model/TrainCheckpoint.h): a run stopped after epoch 2, saved, and
// resumed in a fresh trainer from the file ends bit for bit where the uninterrupted run does
// (weights, optimizer, plateau schedule, dropout masks, best epoch and its weights); a
// checkpoint of another experiment is refused, naming the file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include <unistd.h>

#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "model/AtomicFile.h"
#include "model/EpochKeeper.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/NetworkWeights.h"
#include "model/TrainCheckpoint.h"
#include "model/Trainer.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

namespace {

Experiment problem() {
    Experiment e =
        Experiment::load(std::string(NNWB_TEST_FIXTURES) + "/attention/stack-synthetic.json");
    auto& layers = e.model["layers"];
    layers[0]["score_dropout"] = 0.1;
    layers.insert(layers.begin() + 1, nlohmann::json{{"type", "dropout"}, {"rate", 0.2}});
    e.training.device = "cpu";
    e.training.lrSchedule.type = "plateau";
    e.training.lrSchedule.patience = 1;
    e.training.lrSchedule.factor = 0.5;
    return e;
}

// One run's compute objects, fresh.
struct TrainRun {
    ExperimentData data;
    std::unique_ptr<Backend> be;
    std::unique_ptr<Network> net;
    std::unique_ptr<Trainer> trainer;
    EpochKeeper keeper;
    explicit TrainRun(const Experiment& e) : data(loadExperimentData(e)) {
        if (!data.ok) throw std::runtime_error(data.error);
        be = createBackend(e.training.device);
        net = std::make_unique<Network>(Network::layersFromJson(e.model),
                                        data.split.train.inputShape);
        trainer = std::make_unique<Trainer>(*be, *net, e.training, data.split);
        keeper = EpochKeeper(e.training, trainer->monitor());
    }
    std::vector<double> epochs(int n) {
        std::vector<double> losses;
        for (int i = 0; i < n; ++i) {
            EpochReport r = trainer->runEpoch();
            keeper.afterEpoch(*net, r);
            losses.push_back(r.train.loss);
            losses.push_back(r.validation.loss);
            losses.push_back(r.learningRate);
        }
        return losses;
    }
};

std::string tempFile(const char* name) {
    return (std::filesystem::temp_directory_path() /
            (std::string("nnwb-ckpt-") + std::to_string(::getpid()) + "-" + name))
        .string();
}

}  // namespace

TEST(TrainCheckpoint, resumedRunEqualsUninterruptedBitForBit) {
    const Experiment e = problem();
    TrainRun whole(e);
    const std::vector<double> all = whole.epochs(5);

    const std::string file = tempFile("a.ckpt");
    {
        TrainRun first(e);
        const std::vector<double> head = first.epochs(2);
        ASSERT_EQ(head, std::vector<double>(all.begin(), all.begin() + 6));
        saveCheckpoint(file, "fp", *first.trainer, first.keeper);
    }
    TrainRun resumed(e);
    ASSERT_EQ(checkpointEpoch(file), 2);  // read without a trainer (a bundle task's check)
    ASSERT_EQ(loadCheckpoint(file, "fp", *resumed.trainer, resumed.keeper), 2);
    const std::vector<double> tail = resumed.epochs(3);
    std::printf("epoch 5 train loss: uninterrupted %.9g, resumed %.9g; lr %.6g / %.6g\n", all[12],
                tail[6], all[14], tail[8]);
    ASSERT_EQ(tail, std::vector<double>(all.begin() + 6, all.end()));
    const TensorMap a = readWeights(*whole.net), b = readWeights(*resumed.net);
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [name, t] : a) ASSERT_EQ(t.values, b.at(name).values) << name;
    ASSERT_EQ(whole.keeper.bestEpoch(), resumed.keeper.bestEpoch());
    ASSERT_EQ(whole.keeper.best().tensors().begin()->second.values,
              resumed.keeper.best().tensors().begin()->second.values);
    std::filesystem::remove(file);
}

TEST(TrainCheckpoint, refusesAnotherExperimentsCheckpoint) {
    const Experiment e = problem();
    const std::string file = tempFile("b.ckpt");
    {
        TrainRun r(e);
        r.epochs(1);
        saveCheckpoint(file, "one", *r.trainer, r.keeper);
    }
    TrainRun other(e);
    try {
        loadCheckpoint(file, "two", *other.trainer, other.keeper);
        FAIL() << "no error";
    } catch (const CheckpointError& err) {
        const std::string what = err.what();
        EXPECT_NE(what.find(file), std::string::npos) << what;
        EXPECT_NE(what.find("another experiment"), std::string::npos) << what;
    }
    // A truncated file is refused too.
    std::string bytes = readFile(file);
    writeFileAtomic(file, bytes.substr(0, bytes.size() / 2));
    EXPECT_THROW(loadCheckpoint(file, "one", *other.trainer, other.keeper), CheckpointError);
    EXPECT_THROW(checkpointEpoch(file), CheckpointError);
    std::filesystem::remove(file);
}
