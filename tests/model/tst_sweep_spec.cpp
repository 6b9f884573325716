// Sweep specs (docs/sweeps.md): a valid spec loads with its defaults; JSON syntax errors name
// FILE:LINE:COLUMN; every other error names the place in the spec (a missing field path, a
// range whose end makes no valid experiment, a combination that builds no network, unknown
// keys and methods, a missing run cap, an ASHA range beyond the trials' epochs); configurations
// become experiments (presets, layer alternatives, conditional parameters, seed replicates);
// population (trials packed per process) is 1..4096 and 1 for a walk-forward experiment.
#include <gtest/gtest.h>

#include <fstream>

#include "common/TestUtil.h"
#include "model/sweep/SweepSpec.h"

using namespace nnwb;
using namespace nnwb::sweep;
using nlohmann::json;

namespace {

struct Files {
    std::string dir = test::tempDir();
    Files() { std::ofstream(dir + "/tiny.json") << test::tinyExperimentJson(3).dump(2); }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(dir + "/" + name) << text;
        return dir + "/" + name;
    }
};

json tinySpec() {
    return {{"experiment", "tiny.json"},
            {"method", "random"},
            {"runCap", 8},
            {"parameters",
             {{{"path", "training.optimizer.learningRate"},
               {"min", 1e-4},
               {"max", 1e-1},
               {"log", true}},
              {{"path", "model.layers[0].filters"}, {"min", 2}, {"max", 16}, {"step", 2}},
              {{"path", "training.batchSize"}, {"values", {8, 16, 32}}}}}};
}

std::string errorOf(const Files& f, const json& spec) {
    try {
        SweepSpec::load(f.write("spec.json", spec.dump(2)));
    } catch (const SpecError& e) {
        return e.what();
    }
    return "(loaded)";
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST(SweepSpec, validSpecLoadsWithDefaults) {
    Files f;
    json spec = tinySpec();
    spec["earlyTerminate"] = {{"type", "asha"}, {"eta", 2}};
    spec["objective"] = {{"metric", "validation.accuracy"}};
    spec["secondObjective"] = {{"metric", "parameters"}};
    const SweepSpec s = SweepSpec::load(f.write("spec.json", spec.dump()));
    EXPECT_EQ(s.params.size(), 3u);
    EXPECT_EQ(s.space.params()[0].kind, ParamKind::LogFloat);
    EXPECT_EQ(s.space.params()[1].kind, ParamKind::Int);
    EXPECT_EQ(s.space.params()[1].count(), 8);
    EXPECT_EQ(s.space.params()[2].kind, ParamKind::Categorical);
    EXPECT_FALSE(s.objective.minimize);  // accuracy: max by default
    ASSERT_TRUE(s.second);
    EXPECT_TRUE(s.second->minimize);
    EXPECT_EQ(s.epochs, 3);  // the base experiment's
    EXPECT_EQ(s.pruner, "asha");
    EXPECT_EQ(s.asha.maxResource, 3);
    EXPECT_EQ(s.asha.eta, 2);
    const Experiment e = s.experimentFor({{"training.optimizer.learningRate", 0.002},
                                          {"model.layers[0].filters", 6},
                                          {"training.batchSize", 32}},
                                         2);
    EXPECT_DOUBLE_EQ(e.training.optimizer.learningRate, 0.002);
    EXPECT_EQ(e.model["layers"][0]["filters"], 6);
    EXPECT_EQ(e.training.batchSize, 32);
    EXPECT_EQ(e.training.seed, 1u + 2u);  // replicate 2
}

TEST(SweepSpec, jsonSyntaxErrorNamesFileLineColumn) {
    Files f;
    const std::string path =
        f.write("broken.json", "{\n  \"experiment\": \"tiny.json\",\n  \"runCap\": ,\n}");
    try {
        SweepSpec::load(path);
        FAIL() << "loaded";
    } catch (const SpecError& e) {
        EXPECT_TRUE(has(e.what(), path + ":3:13: not valid JSON")) << e.what();
    }
}

TEST(SweepSpec, missingFieldPathIsNamed) {
    Files f;
    json spec = tinySpec();
    spec["parameters"][1]["path"] = "model.layers[7].filters";
    std::string e = errorOf(f, spec);
    EXPECT_TRUE(has(e, "parameters[1] (model.layers[7].filters")) << e;
    EXPECT_TRUE(has(e, "no field model.layers[7].filters in the experiment")) << e;
    spec = tinySpec();
    spec["parameters"][2]["path"] = "training.batchsize";  // a typo: not a field
    e = errorOf(f, spec);
    EXPECT_TRUE(has(e, "parameters[2] (training.batchsize")) << e;
    spec["parameters"][2]["path"] = "model.layers[0].filterz";  // a layer field its type lacks
    e = errorOf(f, spec);
    EXPECT_TRUE(has(e, "parameters[2]")) << e;
    EXPECT_TRUE(has(e, "filterz")) << e;
}

TEST(SweepSpec, rangeEndThatMakesNoValidExperimentIsNamed) {
    Files f;
    json spec = tinySpec();
    spec["parameters"][2] = {{"path", "training.batchSize"}, {"min", 0}, {"max", 64}};
    const std::string e = errorOf(f, spec);
    EXPECT_TRUE(has(e, "parameters[2] (training.batchSize = 0)")) << e;
    EXPECT_TRUE(has(e, "training.batchSize")) << e;
}

TEST(SweepSpec, combinationThatBuildsNoNetworkIsNamed) {
    Files f;
    json spec = tinySpec();
    // A conv window of 48 on samples of 4 x 6 = 24 values builds no network, whatever else.
    spec["parameters"][1] = {{"path", "model.layers[0].window"}, {"values", {6, 48}}};
    std::string e = errorOf(f, spec);
    EXPECT_TRUE(has(e, "parameters[1] (model.layers[0].window = 48): ")) << e;
    EXPECT_TRUE(has(e, "longer than the input")) << e;
    // Samples of 2 x 3 values with a conv window of 8: each alone is fine (2 x 6 samples, or a
    // window of 6), together they build no network.
    json base = test::tinyExperimentJson(3);
    base["data"]["units"] = 2;
    f.write("small.json", base.dump());
    spec["experiment"] = "small.json";
    spec["parameters"][1] = {{"path", "data.window"}, {"values", {6, 3}}};
    spec["parameters"][2] = {{"path", "model.layers[0].window"}, {"values", {6, 8}}};
    e = errorOf(f, spec);
    EXPECT_TRUE(has(e, "the combination")) << e;
    EXPECT_TRUE(has(e, "\"data.window\":3")) << e;
    EXPECT_TRUE(has(e, "\"model.layers[0].window\":8")) << e;
    EXPECT_TRUE(has(e, "makes no valid experiment")) << e;
}

TEST(SweepSpec, badKeysMethodsAndLimitsAreNamed) {
    Files f;
    json spec = tinySpec();
    spec["metod"] = "tpe";
    EXPECT_TRUE(has(errorOf(f, spec), "spec.json: metod: unknown key"));
    spec = tinySpec();
    spec["method"] = "bayes";
    EXPECT_TRUE(has(errorOf(f, spec), "method: 'bayes' is not grid, random, sobol or tpe"));
    spec = tinySpec();
    spec.erase("runCap");
    EXPECT_TRUE(has(errorOf(f, spec), "runCap: missing"));
    spec = tinySpec();
    spec["earlyTerminate"] = {{"type", "asha"}, {"maxResource", 9}};
    EXPECT_TRUE(
        has(errorOf(f, spec), "earlyTerminate.maxResource: is more than the trials' 3 epochs"));
    spec = tinySpec();
    spec["objective"] = {{"metric", "validation.sharpe"}};
    EXPECT_TRUE(has(errorOf(f, spec), "objective.metric: 'validation.sharpe' is not one of"));
    spec = tinySpec();
    spec["parameters"][0]["max"] = -1;
    EXPECT_TRUE(has(errorOf(f, spec),
                    "parameters[0]: parameter training.optimizer.learningRate: a log range"));
    spec = tinySpec();
    spec["parameters"][0]["when"] = {{"path", "training.batchSize"}, {"in", {8}}};
    EXPECT_TRUE(has(errorOf(f, spec), "not a parameter declared before it"));
    spec = tinySpec();
    spec["experiment"] = "no-such-preset";
    EXPECT_TRUE(has(errorOf(f, spec), "experiment: no experiment file or preset 'no-such-preset'"));
}

TEST(SweepSpec, presetsLayerAlternativesAndConditionsMakeExperiments) {
    Files f;
    const json attention = {{"type", "attention_stack"},
                            {"units", 0},
                            {"window", 0},
                            {"key_size", 4},
                            {"heads", 2},
                            {"layers", 1},
                            {"causal", true},
                            {"norm", "sequence"},
                            {"activation", "leaky_relu"},
                            {"ff_activation", "sigmoid"}};
    const json dense = {{"type", "dense"}, {"neurons", 16}, {"activation", "tanh"}};
    json spec = {{"experiment", "mql5-fractal-5x8"},
                 {"method", "tpe"},
                 {"runCap", 4},
                 {"parameters",
                  {{{"path", "model.layers[1]"}, {"values", {attention, dense}}},
                   {{"path", "model.layers[1].heads"},
                    {"values", {1, 2, 4}},
                    {"when", {{"path", "model.layers[1]"}, {"in", {attention}}}}},
                   {{"path", "data.window"}, {"min", 8}, {"max", 24}}}}};
    const SweepSpec s = SweepSpec::load(f.write("spec.json", spec.dump()));
    const Experiment a = s.experimentFor(
        {{"model.layers[1]", attention}, {"model.layers[1].heads", 4}, {"data.window", 12}});
    EXPECT_EQ(a.model["layers"][1]["heads"], 4);
    EXPECT_EQ(a.data["window"], 12);
    const Experiment d = s.experimentFor({{"model.layers[1]", dense}, {"data.window", 8}});
    EXPECT_EQ(d.model["layers"][1]["type"], "dense");

    json presets = {
        {"experiment", "mql5-fractal-5x8"},
        {"method", "grid"},
        {"parameters",
         {{{"path", "preset"}, {"values", {"mql5-fractal-5x8", "mql5-fractal-12x12"}}}}}};
    const SweepSpec p = SweepSpec::load(f.write("presets.json", presets.dump()));
    EXPECT_EQ(p.runCap, 2);  // the grid's size
    const Experiment big = p.experimentFor({{"preset", "mql5-fractal-12x12"}});
    EXPECT_EQ(big.model, p.presetModels.at("mql5-fractal-12x12"));
    EXPECT_NE(big.model, p.presetModels.at("mql5-fractal-5x8"));
}

TEST(SweepSpec, objectivesReadTheEpochReport) {
    EpochReport r;
    r.taskMetrics = true;
    r.train.loss = 0.5;
    r.validation.loss = 0.7;
    r.validation.accuracyPct = 55;
    r.validation.missedPct = 20;
    r.samplesPerSecond = 1000;
    Objective o;
    EXPECT_EQ(*o.value(r, true, 10), 0.7);
    EXPECT_FALSE(o.value(r, false, 10));
    o.metric = "validation.accuracy";
    o.minimize = false;
    EXPECT_EQ(*o.value(r, true, 10), 55);
    EXPECT_EQ(o.oriented(55), -55);
    o.metric = "parameters";
    EXPECT_EQ(*o.value(r, true, 1234), 1234);
    o.metric = "train.loss";
    EXPECT_EQ(*o.value(r, false, 1), 0.5);
}

TEST(SweepSpec, populationIsReadAndCheckedAgainstWalkForward) {
    Files f;
    json spec = tinySpec();
    EXPECT_EQ(SweepSpec::load(f.write("spec.json", spec.dump())).population, 1);  // not packed
    spec["population"] = 8;
    EXPECT_EQ(SweepSpec::load(f.write("spec.json", spec.dump())).population, 8);
    for (const json& bad : {json(0), json(4097), json(2.5), json("8")}) {
        spec["population"] = bad;
        const std::string e = errorOf(f, spec);
        EXPECT_TRUE(has(e, "spec.json: population: must be an integer in 1..4096")) << e;
    }
    json wf = test::tinyExperimentJson(3);
    wf["validation"] = {{"mode", "walkforward"}};
    f.write("tiny-wf.json", wf.dump(2));
    spec["experiment"] = "tiny-wf.json";
    spec["objective"] = {{"metric", "oos.loss"}};
    spec["population"] = 1;
    EXPECT_EQ(errorOf(f, spec), "(loaded)");
    spec["population"] = 2;
    const std::string e = errorOf(f, spec);
    EXPECT_TRUE(has(e, "population: walk-forward trials are not packed")) << e;
}
