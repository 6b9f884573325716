// The settings tables (model/TrainingSettings.h, model/DataSettings.h, the feature table of
// model/data/Features.h): every entry complete and unique, TrainingConfig's JSON exactly the
// format's keys with every range checked from the table and the error naming the key, the CLI
// flags applied from the table with the CLI's messages, the Data table's ranges equal to what
// DataConfig and SyntheticConfig accept, and Adam's epsilon (a setting added as one entry)
// changing the update as the formula says.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <set>
#include <string>

#include "common/TestUtil.h"
#include "common/Thrown.h"
#include "compute/CpuBackend.h"
#include "model/DataSettings.h"
#include "model/Experiment.h"
#include "model/Optimizer.h"
#include "model/SettingsDoc.h"
#include "model/SyntheticData.h"
#include "model/TrainingSession.h"
#include "model/TrainingSettings.h"
#include "model/data/DataConfig.h"
#include "model/data/Features.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;
using json = nlohmann::json;
using K = SettingSpec::Kind;

namespace {

using test::thrown;

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

json trainingWith(const SettingSpec& s, const json& v) {
    json j = TrainingConfig().toJson();
    putSetting(j, s, v);
    return j;
}

}  // namespace

TEST(TrainingSettings, everyEntryIsCompleteAndUnique) {
    std::set<std::string> keys, names, flags;
    const json defaults = TrainingConfig().toJson();
    for (const SettingSpec& s : trainingSettingSpecs()) {
        EXPECT_TRUE(keys.insert(s.key).second) << s.key;
        EXPECT_TRUE(names.insert(s.name).second) << s.name;
        if (!s.flag.empty()) EXPECT_TRUE(flags.insert(s.flag).second) << s.flag;
        EXPECT_FALSE(s.label.empty() || s.help.empty() || s.group.empty()) << s.key;
        if (s.kind == K::Choice) EXPECT_EQ(s.choices.size(), s.choiceLabels.size()) << s.key;
        if (s.kind == K::Int || s.kind == K::Real) EXPECT_LT(s.min, s.max) << s.key;
        // The default is what a new TrainingConfig holds, and valid.
        EXPECT_NO_THROW(s.check("training", s.defaultValue)) << s.key;
        if (!s.onlyWhenApplies && !s.omittedWhenDefault) {
            const json* d = findSetting(defaults, s, "training");
            ASSERT_TRUE(d) << s.key;
            EXPECT_EQ(*d, s.defaultValue) << s.key;
        }
    }
    EXPECT_EQ(trainingSettingSpecs().size(), size_t(30));  // ensemble the 30th
}

// The JSON a TrainingConfig writes has exactly the keys the format had before the table.
TEST(TrainingSettings, jsonKeysAsTheFormat) {
    const json j = TrainingConfig().toJson();
    std::set<std::string> top;
    for (auto it = j.begin(); it != j.end(); ++it) top.insert(it.key());
    EXPECT_EQ(
        top, (std::set<std::string>{"optimizer", "loss", "batchSize", "epochs", "seed", "device",
                                    "shuffle", "monitor", "keepBest", "earlyStopping", "lrSchedule",
                                    "clipNorm", "classWeights"}));
    EXPECT_EQ(j["optimizer"].size(), size_t(7));
    EXPECT_EQ(j["earlyStopping"].size(), size_t(3));
    EXPECT_EQ(j["lrSchedule"].size(), size_t(7));
    EXPECT_EQ(j["classWeights"], (json{{"mode", "none"}}));  // weights only with "given"
    EXPECT_TRUE(j["seed"].is_number_unsigned());
    TrainingConfig given;
    given.classWeights.mode = "given";
    given.classWeights.weights = {1, 2.5, 2.5};
    EXPECT_EQ(given.toJson()["classWeights"],
              (json{{"mode", "given"}, {"weights", {1, 2.5, 2.5}}}));
    EXPECT_EQ(TrainingConfig::fromJson(given.toJson()).toJson(), given.toJson());
}

// Every number's range comes from its entry: both ends accepted (an excluded minimum refused),
// beyond them refused with the key and the value; wrong types refused naming the key.
TEST(TrainingSettings, rangesAndKindsFromTheTable) {
    for (const SettingSpec& s : trainingSettingSpecs()) {
        const std::string prefix = "training." + s.key + ": ";
        auto read = [&](const json& v) {
            return thrown([&] { TrainingConfig::fromJson(trainingWith(s, v)); });
        };
        if (s.kind == K::Int || s.kind == K::Real) {
            const double span = s.max - s.min;
            const json below =
                s.kind == K::Int ? json(int64_t(s.min) - 1) : json(s.min - 0.01 * span);
            const json above = s.kind == K::Int && s.max < 9e18 ? json(int64_t(s.max) + 1)
                                                                : json(s.max + 0.01 * span);
            if (s.max < 9e18) {
                EXPECT_TRUE(startsWith(read(above), prefix + above.dump() + " is outside "))
                    << read(above);
                EXPECT_EQ(read(s.kind == K::Int ? json(int64_t(s.max)) : json(s.max)), "");
            }
            EXPECT_TRUE(startsWith(read(below), prefix)) << s.key;
            const json lo = s.kind == K::Int ? json(int64_t(s.min)) : json(s.min);
            EXPECT_EQ(read(lo).empty(), !s.minExcluded) << s.key << " " << read(lo);
            EXPECT_TRUE(startsWith(read("1"), prefix + "must be")) << s.key;
        } else if (s.kind == K::Choice) {
            EXPECT_TRUE(startsWith(read("nonsense"), prefix + "'nonsense' is not one of "))
                << read("nonsense");
            for (const std::string& c : s.choices)
                if (c != "given") EXPECT_EQ(read(c), "") << s.key << " " << c;
        } else if (s.kind == K::Bool) {
            EXPECT_EQ(read(1), prefix + "must be true or false, got 1");
        }
    }
    // A section of the path that is not an object.
    EXPECT_EQ(thrown([] {
                  TrainingConfig::fromJson({{"optimizer", 3}});
              }),
              "training.optimizer: must be an object");
}

TEST(TrainingSettings, version1FilesReadOnlyTheirKeys) {
    const json j = {{"epochs", 4}, {"keepBest", true}, {"clipNorm", -5}};
    const TrainingConfig c = TrainingConfig::fromJson(j, 1);
    EXPECT_EQ(c.epochs, 4);
    EXPECT_FALSE(c.keepBest);  // not read: version 1 had no such key
    EXPECT_EQ(c.clipNorm, 0.0);
    EXPECT_FALSE(c.earlyStopping.enabled);
}

// What the CLI needs: the flag's value parsed by kind, checked by the entry, the CLI's words.
TEST(TrainingSettings, flagsApplyFromTheTable) {
    json t = TrainingConfig().toJson();
    auto flag = [&](const char* f, const char* v) {
        return thrown([&] { EXPECT_TRUE(applyTrainingFlag(f, v, t)) << f; });
    };
    EXPECT_EQ(flag("--patience", "x"), "--patience: 'x' is not an integer");
    EXPECT_EQ(flag("--patience", "0"),
              "--patience: training.earlyStopping.patience: 0 is outside 1..100000");
    EXPECT_EQ(flag("--early-stopping", "maybe"), "--early-stopping: 'maybe' is not on or off");
    EXPECT_EQ(flag("--class-weights", "1,x"), "--class-weights: 'x' is not a number");
    EXPECT_EQ(flag("--min-delta", "abc"), "--min-delta: 'abc' is not a number");
    EXPECT_TRUE(
        startsWith(flag("--lr-schedule", "exp"), "--lr-schedule: training.lrSchedule.type"));
    EXPECT_EQ(flag("--patience", "7"), "");
    EXPECT_EQ(flag("--early-stopping", "off"), "");
    EXPECT_EQ(flag("--class-weights", "1,2.5,2.5"), "");
    EXPECT_EQ(flag("--adam-epsilon", "1e-6"), "");
    EXPECT_EQ(flag("--epochs", "3"), "");
    const TrainingConfig c = TrainingConfig::fromJson(t);
    EXPECT_EQ(c.earlyStopping.patience, 7);
    EXPECT_FALSE(c.earlyStopping.enabled);
    EXPECT_EQ(c.classWeights.mode, "given");
    EXPECT_EQ(c.classWeights.weights, (std::vector<double>{1, 2.5, 2.5}));
    EXPECT_EQ(c.optimizer.epsilon, 1e-6);
    EXPECT_EQ(c.epochs, 3);
    EXPECT_EQ(flag("--class-weights", "balanced"), "");
    EXPECT_EQ(TrainingConfig::fromJson(t).classWeights.mode, "balanced");
    EXPECT_FALSE(applyTrainingFlag("--experiment", "x.json", t));
}

// Adam's epsilon, added as one table entry: JSON, flag, form label and docs show it; the
// default is the value that was hard-coded before; a larger one damps the first step as
// w1 = w0 - lr * g / (|g| + eps) (m̂ = g and √v̂ = |g| at t = 1).
TEST(TrainingSettings, adamEpsilonChangesTheUpdateAsTheFormulaSays) {
    const SettingSpec& eps = trainingSetting("optimizer.epsilon").spec;
    EXPECT_EQ(eps.label, "Adam epsilon");
    EXPECT_EQ(eps.flag, "--adam-epsilon");
    EXPECT_EQ(eps.defaultValue.get<double>(), 1e-8);
    EXPECT_EQ(TrainingConfig().optimizer.epsilon, 1e-8);
    json j = TrainingConfig().toJson();
    j["optimizer"]["epsilon"] = 1e-3;
    const TrainingConfig read = TrainingConfig::fromJson(j);
    EXPECT_EQ(read.optimizer.epsilon, 1e-3);
    EXPECT_EQ(read.toJson()["optimizer"]["epsilon"].get<double>(), 1e-3);
    EXPECT_NE(settingsReferenceMarkdown().find("| `optimizer.epsilon` | Adam epsilon | `1e-08` |"),
              std::string::npos);
    for (double e : {1e-8, 1e-4, 1e-3}) {
        CpuBackend be(Precision::Double, 1);
        const double w0[3] = {0.5, -1.5, 2.0}, g0[3] = {1e-4, -2e-4, 5e-3};
        Param p;
        p.shape = {3};
        Buffer w = be.alloc(3), g = be.alloc(3);
        be.uploadF64(w, w0, 3);
        be.uploadF64(g, g0, 3);
        p.value = w;
        p.grad = g;
        OptimizerConfig cfg = read.optimizer;
        cfg.epsilon = e;
        cfg.learningRate = 0.01;
        Optimizer opt(be, cfg, {{"w", &p}});
        opt.step();
        double got[3];
        be.downloadF64(w, got, 3);
        // Hyper-parameters reach the device as float.
        const double lr = float(0.01), fe = float(e), b1 = float(0.9), b2 = float(0.999);
        for (int i = 0; i < 3; ++i) {
            const double m = (1 - b1) * g0[i], v = (1 - b2) * g0[i] * g0[i];
            const double bc1 = float(1 - 0.9), bc2 = float(1 - 0.999);
            const double want = w0[i] - lr / bc1 * m / (std::sqrt(v) / std::sqrt(bc2) + fe);
            EXPECT_NEAR(got[i], want, 1e-12) << std::setprecision(17) << "eps " << e;
        }
        if (e == 1e-4)  // g = 1e-4: the step is half the rate
            EXPECT_NEAR(w0[0] - got[0], 0.005, 1e-6);
    }
}

// training.matmulPrecision (issue 48): one table entry gives the JSON key (written only when
// not the default, so files stay as they were), the flag, the form's choice and the docs line;
// a session at `high` runs what the device has and says so where that is float32.
TEST(TrainingSettings, matmulPrecisionFromTheTable) {
    const SettingSpec& mp = trainingSetting("matmulPrecision").spec;
    EXPECT_EQ(mp.flag, "--matmul-precision");
    EXPECT_EQ(mp.choices, (std::vector<std::string>{"highest", "high"}));
    EXPECT_EQ(mp.defaultValue, json("highest"));
    EXPECT_FALSE(TrainingConfig().toJson().contains("matmulPrecision"));
    json t = TrainingConfig().toJson();
    EXPECT_TRUE(applyTrainingFlag("--matmul-precision", "high", t));
    EXPECT_EQ(t["matmulPrecision"], "high");
    const TrainingConfig high = TrainingConfig::fromJson(t);
    EXPECT_EQ(high.matmulPrecision, "high");
    EXPECT_EQ(high.toJson()["matmulPrecision"], "high");
    EXPECT_EQ(thrown([&] { applyTrainingFlag("--matmul-precision", "medium", t); }),
              "--matmul-precision: training.matmulPrecision: 'medium' is not one of highest, "
              "high");
    EXPECT_NE(settingsReferenceMarkdown().find("`matmulPrecision`"), std::string::npos);

    Experiment exp;
    exp.data = {{"file", defaultDataFile()}, {"window", 4}};
    exp.model = {{"layers", {{{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}};
    std::vector<std::string> devices{"cpu"};
    for (const std::string& id : test::openClDeviceIds()) devices.push_back(id);
    for (const std::string& id : devices) {
        exp.training.device = id;
        exp.training.matmulPrecision = "highest";
        TrainingSession plain(exp);
        EXPECT_EQ(plain.matmulPrecision(), MatmulPrecision::Highest) << id;
        EXPECT_EQ(plain.matmulPrecisionNote(), "") << id;
        exp.training.matmulPrecision = "high";
        TrainingSession asked(exp);
        const std::string& note = asked.matmulPrecisionNote();
        if (asked.matmulPrecision() == MatmulPrecision::High) {  // an NVIDIA device
            EXPECT_EQ(note, "") << id;
            continue;
        }
        EXPECT_EQ(note.rfind("matmul precision high: " + id + " (", 0), size_t(0)) << note;
        EXPECT_NE(note.find("float32 (highest)"), std::string::npos) << note;
    }
}

TEST(DataSettings, rangesEqualWhatTheDataSectionAccepts) {
    std::set<std::string> names;
    for (const SettingSpec& s : dataSettings()) {
        EXPECT_TRUE(names.insert(s.name).second) << s.name;
        EXPECT_FALSE(s.label.empty() || s.help.empty()) << s.key;
        const bool synthetic = s.group == "Synthetic task";
        auto accepts = [&](const json& v) {
            json d = {{"source", synthetic ? "synthetic" : "file"}};
            putSetting(d, s, v);
            return thrown([&] {
                       if (synthetic)
                           SyntheticConfig::fromJson(d);
                       else
                           DataConfig::fromJson(d);
                   }) == "";
        };
        EXPECT_TRUE(accepts(s.defaultValue)) << s.key;
        if (s.kind == K::Int) {
            EXPECT_TRUE(accepts(int64_t(s.min)) && accepts(int64_t(s.max))) << s.key;
            EXPECT_FALSE(accepts(int64_t(s.min) - 1) || accepts(int64_t(s.max) + 1)) << s.key;
        } else if (s.kind == K::Real) {
            EXPECT_TRUE(accepts(s.min) && accepts(s.max)) << s.key;
            EXPECT_FALSE(accepts(s.min - 0.01) || accepts(s.max + 0.01)) << s.key;
        } else if (s.kind == K::Choice) {
            for (const std::string& c : s.choices) EXPECT_TRUE(accepts(c)) << s.key << " " << c;
            EXPECT_FALSE(accepts("nonsense")) << s.key;
        }
    }
}

TEST(FeatureTable, everyFeatureDeclaredOnce) {
    std::set<std::string> keys;
    for (int i = 0; i < kFeatureKinds; ++i) {
        const Feature f = static_cast<Feature>(i);
        const FeatureInfo& info = featureInfo(f);
        EXPECT_TRUE(keys.insert(info.key).second) << info.key;
        Feature back;
        ASSERT_TRUE(featureFromKey(info.key, back));
        EXPECT_EQ(back, f);
        EXPECT_FALSE(std::string(info.label).empty() || std::string(info.formula).empty());
        EXPECT_NE(featureHelp(f).find(info.formula), std::string::npos);
        EXPECT_NE(settingsReferenceMarkdown().find(std::string("| `") + info.key + "` |"),
                  std::string::npos);
    }
}
