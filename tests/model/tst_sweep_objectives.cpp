// Sweep objectives on end-of-trial figures (docs/sweeps.md "Objectives"): the trading figures
// and a walk-forward's stitched out-of-sample figures load with their default goals, a wrong
// name, pruning on an end figure, oos.* on a holdout experiment and epoch figures on a
// walk-forward experiment are spec errors naming their place, and the value is read from the
// trial's result line.
#include <gtest/gtest.h>

#include <fstream>

#include "common/TestUtil.h"
#include "model/sweep/SweepSpec.h"

using namespace nnwb;
using namespace nnwb::sweep;
using nlohmann::json;

namespace {

struct ObjectiveFiles {
    std::string dir = test::tempDir();
    ObjectiveFiles() {
        std::ofstream(dir + "/tiny.json") << test::tinyExperimentJson(3).dump(2);
        json wf = test::tinyExperimentJson(3);
        wf["validation"] = {{"mode", "walkforward"}};
        std::ofstream(dir + "/tiny-wf.json") << wf.dump(2);
    }
    std::string error(const json& spec) const {
        const std::string path = dir + "/spec.json";
        std::ofstream(path) << spec.dump(2);
        try {
            SweepSpec::load(path);
        } catch (const SpecError& e) {
            return e.what();
        }
        return "(loaded)";
    }
    SweepSpec load(const json& spec) const {
        const std::string path = dir + "/spec.json";
        std::ofstream(path) << spec.dump(2);
        return SweepSpec::load(path);
    }
};

json objectiveSpec(const std::string& experiment, const std::string& metric) {
    return {{"experiment", experiment},
            {"runCap", 4},
            {"objective", {{"metric", metric}}},
            {"parameters", {{{"path", "training.batchSize"}, {"values", {8, 16}}}}}};
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST(SweepObjectives, tradingAndOutOfSampleFiguresLoadWithTheirGoals) {
    ObjectiveFiles f;
    for (const auto& [metric, minimize] :
         {std::pair{"trading.net", false}, std::pair{"trading.sharpe", false},
          std::pair{"trading.sharpeAnnual", false}, std::pair{"trading.profitFactor", false},
          std::pair{"trading.winRate", false}, std::pair{"trading.maxDrawdown", true},
          std::pair{"trading.trades", true}}) {
        const SweepSpec s = f.load(objectiveSpec("tiny.json", metric));
        EXPECT_EQ(s.objective.metric, metric);
        EXPECT_EQ(s.objective.minimize, minimize) << metric;
        EXPECT_TRUE(s.objective.atEnd());
        EXPECT_FALSE(s.objective.perEpoch());
    }
    const SweepSpec wf = f.load(objectiveSpec("tiny-wf.json", "oos.accuracy"));
    EXPECT_FALSE(wf.objective.minimize);
    EXPECT_TRUE(f.load(objectiveSpec("tiny-wf.json", "oos.loss")).objective.minimize);
    EXPECT_TRUE(f.load(objectiveSpec("tiny-wf.json", "trading.net")).objective.atEnd());
    EXPECT_FALSE(f.load(objectiveSpec("tiny.json", "validation.loss")).objective.atEnd());
}

TEST(SweepObjectives, badObjectivesNameTheirPlace) {
    ObjectiveFiles f;
    EXPECT_TRUE(contains(f.error(objectiveSpec("tiny.json", "trading.sharp")),
                         "spec.json: objective.metric: 'trading.sharp' is not one of"));
    json asha = objectiveSpec("tiny.json", "trading.sharpe");
    asha["earlyTerminate"] = {{"type", "asha"}};
    EXPECT_TRUE(contains(f.error(asha), "spec.json: earlyTerminate: asha prunes after each epoch"));
    json median = objectiveSpec("tiny.json", "trading.net");
    median["earlyTerminate"] = {{"type", "median"}};
    EXPECT_TRUE(contains(f.error(median), "spec.json: earlyTerminate: median prunes"));
    // ... but pruning on an epoch figure with a trading second objective is fine.
    json second = objectiveSpec("tiny.json", "validation.loss");
    second["earlyTerminate"] = {{"type", "median"}};
    second["secondObjective"] = {{"metric", "trading.net"}};
    EXPECT_EQ(f.error(second), "(loaded)");
    EXPECT_TRUE(contains(f.error(objectiveSpec("tiny.json", "oos.loss")),
                         "spec.json: objective.metric: 'oos.loss' is a stitched out-of-sample "
                         "figure of a walk-forward, but the experiment's validation.mode is "
                         "holdout"));
    EXPECT_TRUE(contains(f.error(objectiveSpec("tiny-wf.json", "validation.loss")),
                         "spec.json: objective.metric: 'validation.loss' is an epoch figure"));
    json wfSecond = objectiveSpec("tiny-wf.json", "oos.loss");
    wfSecond["secondObjective"] = {{"metric", "train.loss"}};
    EXPECT_TRUE(contains(f.error(wfSecond), "secondObjective.metric: 'train.loss' is an epoch"));
}

TEST(SweepObjectives, valuesComeFromTheResultLine) {
    const json result = {{"trading",
                          {{"strategy",
                            {{"netPoints", 120.5},
                             {"netPct", 0.25},
                             {"sharpe", 0.04},
                             {"sharpeAnnual", 3.1},
                             {"profitFactor", nullptr},
                             {"maxDrawdownPoints", 40},
                             {"winRate", 60},
                             {"trades", 7}}}}},
                         {"outOfSample", {{"loss", 0.21}, {"accuracy", 55.5}, {"missed", 12}}}};
    Objective o;
    const std::vector<std::pair<std::string, double>> expected = {
        {"trading.net", 120.5},
        {"trading.netPct", 0.25},
        {"trading.sharpe", 0.04},
        {"trading.sharpeAnnual", 3.1},
        {"trading.maxDrawdown", 40},
        {"trading.winRate", 60},
        {"trading.trades", 7},
        {"oos.loss", 0.21},
        {"oos.accuracy", 55.5},
        {"oos.missed", 12},
        {"trading.profitFactor", Objective::kInfiniteProfitFactor}};
    for (const auto& [metric, v] : expected) {
        o.metric = metric;
        ASSERT_TRUE(o.resultValue(result)) << metric;
        EXPECT_DOUBLE_EQ(*o.resultValue(result), v) << metric;
        EXPECT_FALSE(o.value(EpochReport{}, true, 10)) << metric;  // not an epoch figure
    }
    o.metric = "oos.loss";
    EXPECT_FALSE(o.resultValue(json{{"trading", result["trading"]}}));  // no out-of-sample
    o.metric = "trading.net";
    EXPECT_FALSE(o.resultValue(json{{"trading", {{"error", "no point size"}}}}));
    EXPECT_FALSE(o.resultValue(json{{"trading", nullptr}}));
    o.metric = "validation.loss";
    EXPECT_FALSE(o.resultValue(result));
}

// A cpcv trial's path statistics carry the trial lines' keys, one per metric (accuracy, missed;
// issue 42); oos.* objectives read them, and still read a result stored before that, which said
// accuracyPct and missedPct. Before, oos.accuracy found nothing under "accuracy".
TEST(SweepObjectives, cpcvPathStatisticsUseTheProtocolsKeys) {
    auto cpcvResult = [](const char* accuracy, const char* missed) {
        return json{
            {"trading",
             {{"part", "cpcvPaths"},
              {"pathStatistics",
               {{"mean", {{"loss", 0.2}, {accuracy, 56.5}, {missed, 11}, {"sharpe", 0.1}}},
                {"q10", {{"loss", 0.3}, {accuracy, 41}, {missed, 20}, {"sharpe", -0.2}}}}}}}};
    };
    Objective o;
    for (const json& result :
         {cpcvResult("accuracy", "missed"), cpcvResult("accuracyPct", "missedPct")}) {
        for (const auto& [metric, paths, v] :
             {std::tuple{"oos.accuracy", "", 56.5}, std::tuple{"oos.missed", "", 11.0},
              std::tuple{"oos.loss", "", 0.2}, std::tuple{"oos.accuracy", "q10", 41.0},
              std::tuple{"oos.missed", "q10", 20.0}, std::tuple{"trading.sharpe", "q10", -0.2}}) {
            o.metric = metric;
            o.paths = paths;
            ASSERT_TRUE(o.resultValue(result)) << metric << " " << paths << " " << result.dump();
            EXPECT_DOUBLE_EQ(*o.resultValue(result), v) << metric << " " << paths;
        }
    }
}
