#include "model/TrainingSettings.h"

#include <stdexcept>

#include "model/Experiment.h"
#include "model/SettingEntry.h"

namespace nnwb {

namespace {

using K = SettingSpec::Kind;
using TrainingEntry = SettingEntry<TrainingSetting, TrainingConfig>;
using TrainingAccess = SettingAccess<TrainingConfig>;

// The entries of one form box; `since`: the experiment format that introduced them.
void addTrainingBox(std::vector<TrainingSetting>& out, const std::string& group,
                    std::vector<TrainingEntry> entries, int since = 1) {
    for (TrainingEntry& e : entries) {
        out.push_back(e.done(group));
        out.back().spec.sinceVersion = since;
    }
}

const std::vector<std::string> kAdam{"\"adam\""};

void optimizerSettings(std::vector<TrainingSetting>& out) {
    using O = OptimizerConfig;
    addTrainingBox(
        out, "Optimizer",
        {TrainingEntry(K::Choice, "optimizer.type", "optimizer", "Method",
                       "Optimizer: Adam (bias-corrected moments) or SGD with momentum")
             .choices({"adam", "sgd"}, {"Adam (bias-corrected)", "SGD with momentum"})
             .to(fieldAccess(&TrainingConfig::optimizer, &O::type)),
         TrainingEntry(K::Real, "optimizer.learningRate", "learningRate", "Learning rate",
                       "Step size of each update (dimensionless, e.g. 0.001)")
             .range(0, 10, true)
             .to(fieldAccess(&TrainingConfig::optimizer, &O::learningRate)),
         TrainingEntry(K::Real, "optimizer.momentum", "momentum", "Momentum",
                       "SGD: share of the previous update kept in the next one (0–1)")
             .range(0, 0.9999)
             .spin(4, 0.05)
             .when("optimizer.type", {"\"sgd\""})
             .to(fieldAccess(&TrainingConfig::optimizer, &O::momentum)),
         TrainingEntry(K::Real, "optimizer.beta1", "beta1", "β1",
                       "Adam: decay of the mean of the gradients (0–1, typically 0.9)")
             .range(0, 0.9999)
             .spin(4, 0.01)
             .when("optimizer.type", kAdam)
             .to(fieldAccess(&TrainingConfig::optimizer, &O::beta1)),
         TrainingEntry(K::Real, "optimizer.beta2", "beta2", "β2",
                       "Adam: decay of the mean of the squared gradients (0–1, typically 0.999)")
             .range(0, 0.999999)
             .spin(6, 0.001)
             .when("optimizer.type", kAdam)
             .to(fieldAccess(&TrainingConfig::optimizer, &O::beta2)),
         TrainingEntry(
             K::Real, "optimizer.epsilon", "epsilon", "Adam epsilon",
             "Adam: ε in the step m̂ / (√v̂ + ε), added to the denominator for stability; "
             "larger values damp the steps of weights with small gradients (dimensionless, "
             "e.g. 1e-8)")
             .range(0, 1, true)
             .flag("--adam-epsilon")
             .when("optimizer.type", kAdam)
             .to(fieldAccess(&TrainingConfig::optimizer, &O::epsilon)),
         TrainingEntry(K::Real, "optimizer.weightDecay", "weightDecay", "Weight decay",
                       "L2 penalty on the weights per step (dimensionless, 0 = none)")
             .range(0, 1)
             .to(fieldAccess(&TrainingConfig::optimizer, &O::weightDecay))});
}

TrainingAccess lossAccess() {
    return {[](const TrainingConfig& c) { return nlohmann::json(lossName(c.loss)); },
            [](TrainingConfig& c, const nlohmann::json& v) {
                c.loss = lossFromName(v.get<std::string>());
            }};
}

void runSettings(std::vector<TrainingSetting>& out) {
    addTrainingBox(
        out, "Run",
        {TrainingEntry(K::Text, "device", "device", "Device",
                       "Where the network trains: the native CPU backend or an OpenCL device")
             .flag("--device")
             .to(fieldAccess(&TrainingConfig::device)),
         TrainingEntry(K::Choice, "loss", "loss", "Loss",
                       "Mean squared error on the outputs (MQL5) or softmax cross-entropy")
             .choices({"mse", "cross_entropy"}, {"Mean squared error", "Softmax cross-entropy"})
             .to(lossAccess()),
         TrainingEntry(
             K::Int, "batchSize", "batchSize", "Batch size",
             "Samples per weight update (count); 1 = update after every sample, as the MQL5 "
             "expert")
             .range(1, 65536)
             .flag("--batch")
             .to(fieldAccess(&TrainingConfig::batchSize)),
         TrainingEntry(K::Int, "epochs", "epochs", "Epochs",
                       "Passes over the training samples (count)")
             .range(1, 1000000)
             .flag("--epochs")
             .to(fieldAccess(&TrainingConfig::epochs)),
         TrainingEntry(
             K::Int, "seed", "seed", "Seed",
             "Seed of the weight initialization and the shuffling (same seed, data and device "
             "→ the same numbers)")
             .range(0, 18446744073709551615.0)
             .to(fieldAccess(&TrainingConfig::seed)),
         TrainingEntry(
             K::Int, "ensemble", "ensemble", "Ensemble of N seeds",
             "Trains N seeds (Seed .. Seed + N - 1) as one population and keeps them as one "
             "model: an ensemble bundle, recorded as one run with its member runs "
             "(docs/ensembles.md); 1 = one model. Honoured by the window's Training pane and "
             "walk-forward, nnwb-cli train (with --save-model FILE, as --population N --vary "
             "seed=S..S+N-1 --ensemble), nnwb-cli walkforward (each fold an ensemble) and "
             "sweeps (every trial an ensemble of N seeds); refused by nnwb-cli compare and the "
             "window's Comparison tab, which train one model per experiment.")
             .range(1, 4096)
             .unit("seeds")
             .minimumText("1 = one model")
             .omittedWhenDefault()
             .to(fieldAccess(&TrainingConfig::ensemble)),
         TrainingEntry(K::Bool, "shuffle", "shuffle", "shuffle samples every epoch",
                       "Visit the training samples in a new random order each epoch")
             .to(fieldAccess(&TrainingConfig::shuffle)),
         TrainingEntry(
             K::Choice, "matmulPrecision", "matmulPrecision", "Matmul precision",
             "Precision of the matrix products, as PyTorch's float32 matmul precision. Highest: "
             "float32 (the reference). High: operands rounded to TF32 (10-bit mantissa) on "
             "tensor cores with float32 sums, on devices found to have them at run time (NVIDIA "
             "OpenCL); elsewhere the products run in float32, as at highest.")
             .choices({"highest", "high"}, {"Highest (float32)", "High (TF32 tensor cores)"})
             .flag("--matmul-precision")
             .omittedWhenDefault()
             .to(fieldAccess(&TrainingConfig::matmulPrecision))});
}

TrainingAccess monitorAccess() {
    return {[](const TrainingConfig& c) { return nlohmann::json(monitorName(c.monitor)); },
            [](TrainingConfig& c, const nlohmann::json& v) {
                c.monitor = monitorFromName(v.get<std::string>());
            }};
}

void bestEpochSettings(std::vector<TrainingSetting>& out) {
    using E = EarlyStoppingConfig;
    const std::vector<std::string> on{"true"};
    addTrainingBox(
        out, "Best epoch and early stopping",
        {TrainingEntry(
             K::Choice, "monitor", "monitor", "Monitor",
             "The figure that picks the best epoch, ends the run early and drives the plateau "
             "schedule. Lower is better, except accuracy. Without a validation part the run "
             "watches the training loss.")
             .choices(
                 {"validation_loss", "validation_accuracy", "validation_missed", "training_loss"},
                 {"Validation loss", "Validation accuracy %", "Validation missed %",
                  "Training loss"})
             .flag("--monitor")
             .to(monitorAccess()),
         TrainingEntry(
             K::Bool, "keepBest", "keepBest", "keep the best epoch's weights",
             "Keeps a copy of the weights of the best epoch so far. That copy is the run's "
             "result: Export Weights writes it. Off: the last epoch's weights.")
             .flag("--keep-best")
             .to(fieldAccess(&TrainingConfig::keepBest)),
         TrainingEntry(
             K::Bool, "earlyStopping.enabled", "earlyStopping", "stop early",
             "Ends the run when the monitored figure has not improved for 'Patience' epochs.")
             .flag("--early-stopping")
             .to(fieldAccess(&TrainingConfig::earlyStopping, &E::enabled)),
         TrainingEntry(K::Int, "earlyStopping.patience", "patience", "Patience",
                       "Epochs without an improvement before the run stops.")
             .range(1, 100000)
             .unit("epochs")
             .flag("--patience")
             .when("earlyStopping.enabled", on)
             .to(fieldAccess(&TrainingConfig::earlyStopping, &E::patience)),
         TrainingEntry(K::Real, "earlyStopping.minDelta", "minDelta", "Min. improvement",
                       "An epoch improves only when it beats the best by more than this (in the "
                       "monitored figure's unit).")
             .range(0, 1e6)
             .flag("--min-delta")
             .when("earlyStopping.enabled", on)
             .to(fieldAccess(&TrainingConfig::earlyStopping, &E::minDelta))},
        2);
}

void scheduleSettings(std::vector<TrainingSetting>& out) {
    using L = LrScheduleConfig;
    auto in = [](L TrainingConfig::*s, auto m) { return fieldAccess(s, m); };
    const auto S = &TrainingConfig::lrSchedule;
    addTrainingBox(
        out, "Learning-rate schedule",
        {TrainingEntry(
             K::Choice, "lrSchedule.type", "lrSchedule", "Schedule",
             "Sets the rate once per epoch. Step: × γ every N epochs. Cosine: linear warm-up, "
             "then a half cosine from the base rate to the floor on the last epoch. Plateau: "
             "× factor after 'patience' epochs without an improvement of the monitored "
             "figure.")
             .choices({"constant", "step", "cosine", "plateau"},
                      {"Constant", "Step", "Cosine", "Reduce on plateau"})
             .flag("--lr-schedule")
             .to(in(S, &L::type)),
         TrainingEntry(K::Int, "lrSchedule.stepEpochs", "lrStepEpochs", "Step every",
                       "Step: epochs between two reductions.")
             .range(1, 1000000)
             .unit("epochs")
             .flag("--lr-step-epochs")
             .when("lrSchedule.type", {"\"step\""})
             .to(in(S, &L::stepEpochs)),
         TrainingEntry(K::Real, "lrSchedule.gamma", "lrGamma", "γ",
                       "Step: the factor of each reduction.")
             .range(1e-6, 1)
             .spin(6, 0.05)
             .flag("--lr-gamma")
             .when("lrSchedule.type", {"\"step\""})
             .to(in(S, &L::gamma)),
         TrainingEntry(K::Int, "lrSchedule.warmupEpochs", "lrWarmup", "Warm-up epochs",
                       "Cosine: epochs of linear warm-up (epoch e of W trains at base × e / W).")
             .range(0, 1000000)
             .flag("--lr-warmup")
             .when("lrSchedule.type", {"\"cosine\""})
             .to(in(S, &L::warmupEpochs)),
         TrainingEntry(K::Real, "lrSchedule.floor", "lrFloor", "Floor",
                       "Cosine: the rate of the last epoch. Plateau: the lowest rate.")
             .range(0, 10)
             .flag("--lr-floor")
             .when("lrSchedule.type", {"\"cosine\"", "\"plateau\""})
             .to(in(S, &L::floor)),
         TrainingEntry(K::Real, "lrSchedule.factor", "lrFactor", "Factor",
                       "Plateau: the factor of each reduction.")
             .range(1e-6, 1)
             .spin(6, 0.05)
             .flag("--lr-factor")
             .when("lrSchedule.type", {"\"plateau\""})
             .to(in(S, &L::factor)),
         TrainingEntry(K::Int, "lrSchedule.patience", "lrPatience", "Plateau patience",
                       "Plateau: epochs without an improvement before a reduction.")
             .range(1, 100000)
             .unit("epochs")
             .flag("--lr-patience")
             .when("lrSchedule.type", {"\"plateau\""})
             .to(in(S, &L::patience))},
        2);
}

// --class-weights none | balanced | W0,W1,...: a list sets the mode "given" and the weights.
void classWeightsFlag(const std::string& v, nlohmann::json& training) {
    if (v == "none" || v == "balanced") {
        training["classWeights"] = {{"mode", v}};
        return;
    }
    SettingSpec list = trainingSetting("classWeights.weights").spec;
    list.flag = "--class-weights";
    training["classWeights"] = {{"mode", "given"}};
    applySettingFlag(list, v, training, "training");
}

void gradientSettings(std::vector<TrainingSetting>& out) {
    using C = ClassWeightsConfig;
    addTrainingBox(
        out, "Gradients and loss",
        {TrainingEntry(
             K::Real, "clipNorm", "clipNorm", "Clip gradient norm",
             "Gradient clipping: when the L2 norm of all parameter gradients together is above "
             "this, they are scaled down to it. 0 is off. The norm before clipping is reported "
             "per epoch (mean and max) either way.")
             .range(0, 1e9)
             .flag("--clip-norm")
             .to(fieldAccess(&TrainingConfig::clipNorm)),
         TrainingEntry(
             K::Choice, "classWeights.mode", "classWeights", "Class weights",
             "Weights of the classes in the loss. Balanced: N / (classes × samples of the "
             "class), counted on the training part, so rare fractals weigh more. Given: one "
             "weight per output. The reported loss stays unweighted.")
             .choices({"none", "balanced", "given"}, {"None", "Balanced", "Given"})
             .flag("--class-weights")
             .flagParser(classWeightsFlag)
             .to(fieldAccess(&TrainingConfig::classWeights, &C::mode)),
         TrainingEntry(K::RealList, "classWeights.weights", "givenWeights", "Weights",
                       "Given: one weight per output, separated by commas.")
             .range(0, 1e6)
             .when("classWeights.mode", {"\"given\""})
             .onlyWhenApplies()
             .to(fieldAccess(&TrainingConfig::classWeights, &C::weights))},
        2);
}

std::vector<TrainingSetting> makeTrainingTable() {
    std::vector<TrainingSetting> t;
    optimizerSettings(t);
    runSettings(t);
    bestEpochSettings(t);
    scheduleSettings(t);
    gradientSettings(t);
    return t;
}

}  // namespace

const std::vector<TrainingSetting>& trainingSettings() {
    static const std::vector<TrainingSetting> kTable = makeTrainingTable();
    return kTable;
}

const std::vector<SettingSpec>& trainingSettingSpecs() {
    static const std::vector<SettingSpec> kSpecs = [] {
        std::vector<SettingSpec> s;
        for (const TrainingSetting& t : trainingSettings()) s.push_back(t.spec);
        return s;
    }();
    return kSpecs;
}

const TrainingSetting& trainingSetting(const std::string& key) {
    for (const TrainingSetting& t : trainingSettings())
        if (t.spec.key == key) return t;
    throw std::logic_error("no training setting '" + key + "'");
}

TrainingConfig readTrainingSettings(const nlohmann::json& j, int formatVersion, TrainingConfig c) {
    if (!j.is_object()) throw std::invalid_argument("training: must be an object");
    for (const TrainingSetting& t : trainingSettings()) {
        if (t.spec.sinceVersion > formatVersion) continue;
        const nlohmann::json* v = findSetting(j, t.spec, "training");
        if (!v || (t.spec.onlyWhenApplies && !settingApplies(t.spec, j, trainingSettingSpecs())))
            continue;
        t.spec.check("training", *v);
        t.set(c, *v);
    }
    return c;
}

nlohmann::json writeTrainingSettings(const TrainingConfig& c) {
    nlohmann::json j = nlohmann::json::object();
    for (const TrainingSetting& t : trainingSettings()) putSetting(j, t.spec, t.get(c));
    for (const TrainingSetting& t : trainingSettings())
        if ((t.spec.onlyWhenApplies && !settingApplies(t.spec, j, trainingSettingSpecs())) ||
            (t.spec.omittedWhenDefault && t.get(c) == t.spec.defaultValue))
            eraseSetting(j, t.spec);
    return j;
}

bool applyTrainingFlag(const std::string& flag, const std::string& value,
                       nlohmann::json& training) {
    const SettingSpec* s = findSettingByFlag(trainingSettingSpecs(), flag);
    if (!s) return false;
    applySettingFlag(*s, value, training, "training");
    return true;
}

}  // namespace nnwb
