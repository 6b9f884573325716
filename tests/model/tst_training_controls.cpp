// Training controls of experiment format 2: each learning-rate schedule against its formula,
// early stopping on scripted metric sequences, the best epoch's weights byte-equal to a
// snapshot taken at that epoch, the Trainer applying the schedule, the training section's
// keys (round trip, errors naming the key) and version 1 files opening with the old behaviour.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "common/FuzzyCompare.h"
#include "common/SameTensors.h"
#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "compute/CpuBackend.h"
#include "model/ClassWeights.h"
#include "model/EpochKeeper.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/LrSchedule.h"
#include "model/Trainer.h"
#include "model/WeightsSnapshot.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

EpochReport reportWithValidation(int epoch, double valLoss, double trainLoss = 1.0) {
    EpochReport r;
    r.epoch = epoch;
    r.validation.loss = valLoss;
    r.validation.samples = 10;
    r.train.loss = trainLoss;
    return r;
}

// A small built network whose weights EpochKeeper can copy.
struct TinyNet {
    CpuBackend be;
    Network net{Network::layersFromJson({{"layers", {{{"type", "dense"}, {"neurons", 3}}}}}),
                Shape{1, 4}};
    TinyNet() {
        net.build(be, 2);
        net.initWeights(7);
    }
};

json tinyExperiment(int epochs) {
    json j = test::tinyExperimentJson(epochs, 16);
    j["formatVersion"] = 2;
    return j;
}

using test::sameTensorBytes;

}  // namespace

TEST(TrainingControls, constantAndStep) {
    LrScheduleConfig c;
    LrSchedule constant(c, 0.01, 10);
    for (int e = 1; e <= 10; ++e) ASSERT_FUZZY_EQ(constant.rate(e), 0.01);
    c.type = "step";
    c.stepEpochs = 3;
    c.gamma = 0.1;
    LrSchedule step(c, 0.01, 10);
    const double want[] = {0.01, 0.01, 0.01, 1e-3, 1e-3, 1e-3, 1e-4, 1e-4, 1e-4, 1e-5};
    for (int e = 1; e <= 10; ++e)
        ASSERT_TRUE(std::fabs(step.rate(e) - want[e - 1]) < 1e-15 * 0.01)
            << "epoch " << e << ": " << step.rate(e);
}
TEST(TrainingControls, cosineWithWarmupAndFloor) {
    LrScheduleConfig c;
    c.type = "cosine";
    c.warmupEpochs = 2;
    c.floor = 1e-4;
    const double base = 1e-2;
    const int epochs = 12;
    LrSchedule s(c, base, epochs);
    ASSERT_FUZZY_EQ(s.rate(1), base / 2);  // linear warm-up: base * epoch / warm-up epochs
    ASSERT_FUZZY_EQ(s.rate(2), base);
    ASSERT_FUZZY_EQ(s.rate(3), base);          // the cosine starts at the base rate …
    ASSERT_FUZZY_EQ(s.rate(epochs), c.floor);  // … and ends at the floor on the last epoch
    for (int e = 3; e <= epochs; ++e) {
        const double t = (e - 3) / double(epochs - 3);
        const double want = c.floor + (base - c.floor) * 0.5 * (1 + std::cos(M_PI * t));
        ASSERT_TRUE(std::fabs(s.rate(e) - want) < 1e-12);
        if (e > 3) {
            ASSERT_TRUE(s.rate(e) < s.rate(e - 1));
        }
    }
    ASSERT_FUZZY_EQ(s.rate(epochs + 5), c.floor);  // continued training stays at the floor
    c.warmupEpochs = 0;
    LrSchedule noWarmup(c, base, 1);
    ASSERT_FUZZY_EQ(noWarmup.rate(1), base);  // a one-epoch run trains at the base rate
}
TEST(TrainingControls, plateau) {
    LrScheduleConfig c;
    c.type = "plateau";
    c.patience = 2;
    c.factor = 0.5;
    c.floor = 0.2;
    LrSchedule s(c, 1.0, 20);
    // Validation losses: improve, improve, 2 flat (-> ×0.5), improve, 2 flat (-> ×0.5),
    // 2 flat (-> ×0.5 would be 0.125: held at the floor 0.2).
    const double losses[] = {1.0, 0.9, 0.95, 0.91, 0.8, 0.85, 0.8, 0.81, 0.82};
    const double want[] = {1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.2};
    ASSERT_FUZZY_EQ(s.rate(1), want[0]);
    for (int i = 0; i < 9; ++i) {
        s.observe(losses[i], Monitor::ValidationLoss);
        ASSERT_TRUE(std::fabs(s.rate(i + 2) - want[i + 1]) < 1e-12)
            << "after epoch " << i + 1 << ": " << s.rate(i + 2);
    }
    // Accuracy is better when higher.
    LrSchedule acc(c, 1.0, 20);
    for (double a : {50.0, 60.0, 70.0}) acc.observe(a, Monitor::ValidationAccuracy);
    ASSERT_FUZZY_EQ(acc.rate(4), 1.0);
}
TEST(TrainingControls, earlyStoppingScripted) {
    // Best at epoch 2; patience 3: epochs 3, 4, 5 do not improve -> stop after epoch 5.
    TinyNet t;
    TrainingConfig cfg;
    cfg.earlyStopping.patience = 3;
    EpochKeeper keeper(cfg, Monitor::ValidationLoss);
    const double losses[] = {0.5, 0.4, 0.45, 0.41, 0.40001, 0.1};
    int stoppedAt = 0;
    for (int e = 1; e <= 6 && !stoppedAt; ++e) {
        EpochReport r = reportWithValidation(e, losses[e - 1]);
        if (keeper.afterEpoch(t.net, r)) stoppedAt = e;
        ASSERT_EQ(r.bestEpoch, e <= 2 ? e : 2);
        ASSERT_EQ(r.isBest, e <= 2);
        ASSERT_EQ(r.stoppedEarly, stoppedAt == e);
    }
    ASSERT_EQ(stoppedAt, 5);
    ASSERT_EQ(keeper.bestEpoch(), 2);
    ASSERT_EQ(keeper.result().epoch(), 2);
    ASSERT_EQ(keeper.lastGood().epoch(), 5);
    ASSERT_EQ(keeper.summary(),
              std::string("stopped early at epoch 5, best epoch 2 (validation loss 0.4)"));
}
TEST(TrainingControls, minDeltaAndMonitors) {
    // minDelta: 0.39 beats 0.4 by less than 0.05, so it is no improvement.
    BestEpochTracker t(Monitor::ValidationLoss, 0.05);
    ASSERT_TRUE(t.update(1, 0.4));
    ASSERT_TRUE(!t.update(2, 0.39));
    ASSERT_TRUE(t.update(3, 0.34));
    ASSERT_TRUE(!t.update(4, std::nan("")));
    ASSERT_EQ(t.bestEpoch(), 3);
    ASSERT_EQ(t.epochsSinceBest(), 1);
    BestEpochTracker acc(Monitor::ValidationAccuracy);
    ASSERT_TRUE(acc.update(1, 40));
    ASSERT_TRUE(!acc.update(2, 30));
    ASSERT_TRUE(acc.update(3, 41));
    // Fallbacks: no validation part -> training loss; no task figures -> validation loss.
    ASSERT_TRUE(effectiveMonitor(Monitor::ValidationMissed, false, true) == Monitor::TrainingLoss);
    ASSERT_TRUE(effectiveMonitor(Monitor::ValidationAccuracy, true, false) ==
                Monitor::ValidationLoss);
    ASSERT_TRUE(effectiveMonitor(Monitor::ValidationMissed, true, true) ==
                Monitor::ValidationMissed);
    // Off: the run never stops early and the result is the last epoch's weights.
    TinyNet n;
    TrainingConfig cfg = TrainingConfig::version1();
    EpochKeeper keeper(cfg, Monitor::ValidationLoss);
    for (int e = 1; e <= 12; ++e) {
        EpochReport r = reportWithValidation(e, e == 1 ? 0.1 : 1.0);
        ASSERT_TRUE(!keeper.afterEpoch(n.net, r));
    }
    ASSERT_EQ(keeper.bestEpoch(), 1);
    ASSERT_EQ(keeper.result().epoch(), 12);
}
TEST(TrainingControls, bestWeightsAreTheBestEpochsBytes) {
    // Train a real run; snapshot after every epoch ourselves; the keeper's best copy must be
    // byte-equal to our snapshot of its best epoch (and differ from the last epoch's).
    json j = tinyExperiment(8);
    j["training"]["earlyStopping"] = {{"enabled", false}};
    j["training"]["optimizer"]["learningRate"] = 0.3;  // large: the loss wanders
    const Experiment e = Experiment::fromJson(j);
    const ExperimentData data = loadExperimentData(e);
    ASSERT_TRUE(data.ok) << data.error.c_str();
    CpuBackend be;
    Network net(Network::layersFromJson(e.model), data.split.train.inputShape);
    Trainer trainer(be, net, e.training, data.split);
    EpochKeeper keeper(e.training, trainer.monitor());
    std::map<int, WeightsSnapshot> ours;
    std::vector<double> val;
    for (int i = 0; i < 8; ++i) {
        EpochReport r = trainer.runEpoch();
        ASSERT_TRUE(!keeper.afterEpoch(net, r));
        ASSERT_TRUE(ours[r.epoch].capture(net, r.epoch));
        val.push_back(r.validation.loss);
    }
    const int best = int(std::min_element(val.begin(), val.end()) - val.begin()) + 1;
    ASSERT_EQ(keeper.bestEpoch(), best);
    ASSERT_EQ(keeper.result().epoch(), best);
    ASSERT_TRUE(sameTensorBytes(keeper.result().tensors(), ours[best].tensors()));
    ASSERT_TRUE(best < 8) << "the run must wander for the test to mean something";
    ASSERT_TRUE(!sameTensorBytes(keeper.result().tensors(), ours[8].tensors()));
    // Saved and read back, the file holds the same bytes.
    const std::string path = test::tempDir() + "/best.safetensors";
    keeper.result().save(path);
    ASSERT_TRUE(sameTensorBytes(loadSafetensors(path), ours[best].tensors()));
}
TEST(TrainingControls, trainerAppliesTheSchedule) {
    json j = tinyExperiment(4);
    j["training"]["lrSchedule"] = {{"type", "step"}, {"stepEpochs", 2}, {"gamma", 0.5}};
    const Experiment e = Experiment::fromJson(j);
    const ExperimentData data = loadExperimentData(e);
    CpuBackend be;
    Network net(Network::layersFromJson(e.model), data.split.train.inputShape);
    Trainer trainer(be, net, e.training, data.split);
    const double want[] = {0.01, 0.01, 0.005, 0.005};
    for (double w : want) ASSERT_FUZZY_EQ(trainer.runEpoch().learningRate, w);
}
// The clipped step equals the formula on every device: SGD without momentum after
// clipByGlobalNorm gives w - lr * g * c / ||g|| when ||g|| > c, and w - lr * g otherwise.
TEST(TrainingControls, clippedStepEqualsTheFormula) {
    for (const std::string& id : test::testDeviceIds()) {
        auto be = createBackend(id);
        const size_t n = 1001;
        const std::vector<float> w0 = test::randomVector(n, 3), g0 = test::randomVector(n, 4);
        double norm = 0;
        for (float v : g0) norm += double(v) * v;
        norm = std::sqrt(norm);
        for (double c : {norm / 4, norm * 2}) {
            Buffer w = be->alloc(n), g = be->alloc(n), v = be->alloc(n), nb = be->alloc(1);
            be->upload(w, w0.data(), n);
            be->upload(g, g0.data(), n);
            be->fill({v, n, 0.0f});
            be->clipByGlobalNorm({n, g, float(c), nb});
            be->sgdStep({n, w, g, v, 0.1f, 0.0f, 0.0f, BufRef()});
            std::vector<float> got(n);
            float measured = 0;
            be->download(w, got.data(), n);
            be->download(nb, &measured, 1);
            ASSERT_TRUE(std::fabs(measured - norm) < 1e-4 * norm) << id.c_str();
            const double f = norm > c ? c / norm : 1.0;
            std::vector<float> want(n);
            for (size_t i = 0; i < n; ++i) want[i] = float(w0[i] - 0.1 * g0[i] * f);
            const std::string msg = test::compareNear(got, want, {1e-6, 1e-5});
            ASSERT_TRUE(msg.empty()) << (id + ": " + msg).c_str();
        }
    }
}
TEST(TrainingControls, gradientNormInTheReport) {
    // Clipping at 1e-3 changes the run, and the report shows the norm before clipping.
    json j = tinyExperiment(2);
    const Experiment plain = Experiment::fromJson(j);
    j["training"]["clipNorm"] = 1e-3;
    const Experiment clipped = Experiment::fromJson(j);
    ASSERT_FUZZY_EQ(clipped.training.clipNorm, 1e-3);
    std::vector<EpochReport> reps[2];
    int k = 0;
    for (const Experiment* e : {&plain, &clipped}) {
        const ExperimentData data = loadExperimentData(*e);
        CpuBackend be;
        Network net(Network::layersFromJson(e->model), data.split.train.inputShape);
        Trainer trainer(be, net, e->training, data.split);
        for (int i = 0; i < 2; ++i) reps[k].push_back(trainer.runEpoch());
        ++k;
    }
    for (const auto& r : reps[1]) {
        ASSERT_TRUE(r.gradNormMax > 1e-3);  // before clipping
        ASSERT_TRUE(r.gradNormMean > 0 && r.gradNormMean <= r.gradNormMax);
    }
    ASSERT_TRUE(reps[0][0].gradNormMax > 1e-3);  // without clipping: measured the same way
    ASSERT_TRUE(reps[0][1].train.loss != reps[1][1].train.loss);
}
TEST(TrainingControls, classWeights) {
    SampleSet s;
    s.outputs = 3;
    s.inputShape = Shape{1, 1};
    // 6 none, 2 buy, 1 sell, 1 outside bar (buy and sell): class mass 6, 2.5, 1.5 of 10.
    const float rows[][3] = {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0},
                             {1, 0, 0}, {0, 1, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 1}};
    for (const auto& r : rows) {
        s.x.push_back(0);
        s.y.insert(s.y.end(), r, r + 3);
    }
    ClassWeightsConfig c;
    ASSERT_TRUE(classWeightsFor(c, s).empty());
    c.mode = "balanced";
    const std::vector<double> w = classWeightsFor(c, s);
    ASSERT_EQ(w.size(), size_t(3));
    ASSERT_TRUE(std::fabs(w[0] - 10.0 / (3 * 6)) < 1e-12);
    ASSERT_TRUE(std::fabs(w[1] - 10.0 / (3 * 2.5)) < 1e-12);
    ASSERT_TRUE(std::fabs(w[2] - 10.0 / (3 * 1.5)) < 1e-12);
    ASSERT_TRUE(std::fabs(sampleWeight(rows[9], 3, w) - (w[1] + w[2]) / 2) < 1e-12);
    const float none[3] = {0, 0, 0};
    ASSERT_FUZZY_EQ(sampleWeight(none, 3, w), 1.0);
    c.mode = "given";
    c.weights = {1, 2};
    ASSERT_THROW(classWeightsFor(c, s), std::invalid_argument);
    // Through the experiment file and a training run: weights change the gradient.
    json j = tinyExperiment(1);
    const Experiment plain = Experiment::fromJson(j);
    j["training"]["classWeights"] = {{"mode", "given"}, {"weights", {1.0, 3.0, 3.0}}};
    const Experiment weighted = Experiment::fromJson(j);
    ASSERT_EQ(weighted.training.classWeights.weights, std::vector<double>({1.0, 3.0, 3.0}));
    ASSERT_EQ(Experiment::fromJson(weighted.toJson()).toJson(), weighted.toJson());
    double loss[2];
    int k = 0;
    for (const Experiment* e : {&plain, &weighted}) {
        const ExperimentData data = loadExperimentData(*e);
        CpuBackend be;
        Network net(Network::layersFromJson(e->model), data.split.train.inputShape);
        Trainer trainer(be, net, e->training, data.split);
        loss[k++] = trainer.runEpoch().validation.loss;
    }
    ASSERT_TRUE(loss[0] != loss[1]);
    j["training"]["classWeights"] = {{"mode", "given"}, {"weights", {1.0}}};
    const Experiment bad = Experiment::fromJson(j);
    const ExperimentData data = loadExperimentData(bad);
    CpuBackend be;
    Network net(Network::layersFromJson(bad.model), data.split.train.inputShape);
    ASSERT_THROW(Trainer(be, net, bad.training, data.split), TrainingError);
}
TEST(TrainingControls, trainingSectionKeys) {
    json j = tinyExperiment(3);
    j["training"]["monitor"] = "validation_missed";
    j["training"]["keepBest"] = false;
    j["training"]["earlyStopping"] = {{"enabled", true}, {"patience", 7}, {"minDelta", 0.01}};
    j["training"]["lrSchedule"] = {{"type", "cosine"}, {"warmupEpochs", 2}, {"floor", 1e-5}};
    const Experiment e = Experiment::fromJson(j);
    ASSERT_TRUE(e.training.monitor == Monitor::ValidationMissed);
    ASSERT_TRUE(!e.training.keepBest);
    ASSERT_EQ(e.training.earlyStopping.patience, 7);
    ASSERT_FUZZY_EQ(e.training.earlyStopping.minDelta, 0.01);
    ASSERT_EQ(e.training.lrSchedule.type, std::string("cosine"));
    ASSERT_EQ(e.training.lrSchedule.warmupEpochs, 2);
    ASSERT_EQ(Experiment::fromJson(e.toJson()).toJson(), e.toJson());
    ASSERT_EQ(e.toJson()["formatVersion"].get<int>(), 2);
    const struct {
        const char* key;
        json value;
        const char* message;
    } bad[] = {
        {"monitor", "val_loss", "training.monitor: 'val_loss' is not one of"},
        {"keepBest", 1, "training.keepBest: must be true or false"},
        {"earlyStopping", {{"patience", 0}}, "training.earlyStopping.patience: 0 is outside"},
        {"earlyStopping", {{"minDelta", -1}}, "training.earlyStopping.minDelta: -1 is outside"},
        {"lrSchedule", {{"type", "exp"}}, "training.lrSchedule.type: 'exp' is not one of"},
        {"lrSchedule", {{"gamma", 2}}, "training.lrSchedule.gamma: 2 is outside"},
        {"lrSchedule", "cosine", "training.lrSchedule: must be an object"},
        {"clipNorm", -1, "training.clipNorm: -1 is outside"},
        {"classWeights", {{"mode", "inverse"}}, "training.classWeights.mode: 'inverse'"},
        {"classWeights", {{"mode", "given"}}, "training.classWeights.weights: a list"},
    };
    for (const auto& b : bad) {
        json k = tinyExperiment(3);
        k["training"][b.key] = b.value;
        try {
            Experiment::fromJson(k);
            FAIL() << b.message;
        } catch (const ExperimentError& ex) {
            ASSERT_TRUE(std::string(ex.what()).rfind(b.message, 0) == 0) << ex.what();
        }
    }
}
TEST(TrainingControls, newExperimentDefaults) {
    const TrainingConfig c;
    ASSERT_TRUE(c.keepBest);
    ASSERT_TRUE(c.earlyStopping.enabled);
    ASSERT_EQ(c.earlyStopping.patience, 5);
    ASSERT_TRUE(c.monitor == Monitor::ValidationLoss);
    ASSERT_EQ(c.lrSchedule.type, std::string("constant"));
}
TEST(TrainingControls, version1FilesOpenWithTheOldBehaviour) {
    // Every experiment and preset as resources/ held them in format 1 (copies kept in
    // tests/fixtures/format-v1), and every file in resources/ rewritten as version 1.
    std::vector<std::pair<std::string, json>> files;
    for (const auto& f : fs::directory_iterator(std::string(NNWB_TEST_FIXTURES) + "/format-v1"))
        files.emplace_back(f.path().string(), json::parse(std::ifstream(f.path())));
    ASSERT_TRUE(files.size() >= 8);
    for (const char* dir : {"/experiments", "/presets"})
        for (const auto& f : fs::directory_iterator(std::string(NNWB_RESOURCE_DIR) + dir)) {
            json j = json::parse(std::ifstream(f.path()));
            ASSERT_EQ(j["formatVersion"].get<int>(), 2);  // the shipped files are current
            const Experiment now = Experiment::load(f.path().string());
            ASSERT_TRUE(now.training.keepBest && now.training.earlyStopping.enabled &&
                        now.training.earlyStopping.patience == 5)
                << f.path().c_str();
            j["formatVersion"] = 1;
            files.emplace_back(f.path().string() + " as version 1", j);
        }
    for (const auto& [name, j] : files) {
        ASSERT_EQ(j["formatVersion"].get<int>(), 1);
        const Experiment e = Experiment::fromJson(j, NNWB_RESOURCE_DIR "/experiments");
        const TrainingConfig old = TrainingConfig::version1();
        ASSERT_TRUE(!e.training.keepBest) << name.c_str();
        ASSERT_TRUE(!e.training.earlyStopping.enabled) << name.c_str();
        ASSERT_TRUE(e.training.lrSchedule.type == "constant") << name.c_str();
        ASSERT_TRUE(e.training.monitor == old.monitor) << name.c_str();
        // Everything version 1 had reads as before.
        ASSERT_EQ(e.training.epochs, j["training"]["epochs"].get<int>());
        ASSERT_FUZZY_EQ(e.training.optimizer.learningRate,
                        j["training"]["optimizer"]["learningRate"].get<double>());
        ASSERT_EQ(e.model, j["model"]);
        // Saved again, it becomes a version 2 file that keeps the old behaviour.
        const Experiment again = Experiment::fromJson(e.toJson());
        ASSERT_TRUE(!again.training.keepBest && !again.training.earlyStopping.enabled);
    }
}
