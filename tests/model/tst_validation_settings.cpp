// The validation settings table (model/ValidationSettings.h): entries complete and unique, flags
// apart from the training flags, JSON defaults, round trip through an experiment, a file
// without the section is holdout and saves without it, errors name the key, flags give the
// CLI's messages.
#include <gtest/gtest.h>

#include <set>

#include "model/Experiment.h"
#include "model/TrainingSettings.h"
#include "model/ValidationSettings.h"

using namespace nnwb;
using json = nlohmann::json;

namespace {

std::string thrown(const json& j) {
    try {
        ValidationConfig::fromJson(j);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

json experimentJson() {
    return {{"formatVersion", 2},
            {"data", {{"source", "synthetic"}}},
            {"model", {{"layers", json::array({{{"type", "dense"}, {"neurons", 3}}})}}}};
}

}  // namespace

TEST(ValidationSettings, everyEntryIsCompleteAndUnique) {
    std::set<std::string> keys, names, flags;
    for (const SettingSpec& s : trainingSettingSpecs())
        if (!s.flag.empty()) flags.insert(s.flag);
    for (const SettingSpec& s : validationSettingSpecs()) {
        EXPECT_TRUE(keys.insert(s.key).second) << s.key;
        EXPECT_TRUE(names.insert(s.name).second) << s.name;
        EXPECT_FALSE(s.flag.empty()) << s.key;
        EXPECT_TRUE(flags.insert(s.flag).second) << s.flag << " is a training flag too";
        EXPECT_FALSE(s.label.empty() || s.help.empty() || s.group.empty()) << s.key;
        EXPECT_FALSE(s.defaultValue.is_null()) << s.key;
        EXPECT_NO_THROW(s.check("validation", s.defaultValue)) << s.key;
        EXPECT_NO_THROW(settingApplies(s, json::object(), validationSettingSpecs())) << s.key;
    }
    EXPECT_EQ(keys.size(), size_t(12));
}

TEST(ValidationSettings, defaultsAndRoundTrip) {
    const ValidationConfig d = ValidationConfig::fromJson(json::object());
    EXPECT_EQ(d.mode, "holdout");
    EXPECT_FALSE(d.walkForward());
    EXPECT_EQ(d.scheme, "anchored");
    EXPECT_EQ(d.folds, 6);
    EXPECT_EQ(d.purge, 0);
    EXPECT_DOUBLE_EQ(d.earlyStoppingShare, 0.2);
    ValidationConfig c;
    c.mode = "walkforward";
    c.scheme = "rolling";
    c.unit = "days";
    c.trainLength = 90;
    c.testLength = 30;
    c.step = 45;
    c.folds = 0;
    c.purge = 3;
    c.embargo = 5;
    c.earlyStoppingShare = 0.15;
    const json j = c.toJson();
    EXPECT_EQ(j["testLength"], 30);
    EXPECT_EQ(ValidationConfig::fromJson(j).toJson(), j);
    EXPECT_TRUE(ValidationConfig::fromJson(j) == c);

    // Through an experiment file: the section is read and written back.
    json e = experimentJson();
    e["validation"] = j;
    const Experiment x = Experiment::fromJson(e);
    EXPECT_TRUE(x.validation == c);
    EXPECT_EQ(Experiment::fromJson(x.toJson()).validation.toJson(), j);
    // Without the section: holdout, and saved without one (files stay as they were).
    const Experiment old = Experiment::fromJson(experimentJson());
    EXPECT_FALSE(old.validation.walkForward());
    EXPECT_FALSE(old.toJson().contains("validation"));
}

TEST(ValidationSettings, errorsNameTheKey) {
    EXPECT_EQ(thrown({{"mode", "kfold"}}),
              "validation.mode: 'kfold' is not one of holdout, walkforward");
    EXPECT_EQ(thrown({{"folds", -1}}), "validation.folds: -1 is outside 0..1000");
    EXPECT_EQ(thrown({{"testLength", 2.5}}), "validation.testLength: must be an integer, got 2.5");
    EXPECT_EQ(thrown({{"earlyStoppingShare", 0.95}}),
              "validation.earlyStoppingShare: 0.95 is outside [0, 0.9]");
    EXPECT_EQ(thrown(json::array()), "validation: must be an object");
    json e = experimentJson();
    e["validation"] = {{"purge", "two"}};
    try {
        Experiment::fromJson(e);
        FAIL() << "accepted a bad purge";
    } catch (const ExperimentError& ex) {
        EXPECT_EQ(std::string(ex.what()), "validation.purge: must be an integer, got \"two\"");
    }
}

TEST(ValidationSettings, flagsGiveTheClisMessages) {
    json v = json::object();
    EXPECT_TRUE(applyValidationFlag("--folds", "4", v));
    EXPECT_EQ(v["folds"], 4);
    EXPECT_TRUE(applyValidationFlag("--validation", "walkforward", v));
    EXPECT_EQ(ValidationConfig::fromJson(v).mode, "walkforward");
    EXPECT_FALSE(applyValidationFlag("--patience", "3", v));
    try {
        applyValidationFlag("--folds", "x", v);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "--folds: 'x' is not an integer");
    }
    try {
        applyValidationFlag("--scheme", "expanding", v);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--scheme: validation.scheme: 'expanding' is not one of anchored, rolling, "
                  "cpcv");
    }
}

// The combinatorial purged cross-validation keys (model/data/CpcvPlan.h): flags, defaults, range
// errors naming the key, and the form enabling them under scheme cpcv only.
TEST(ValidationSettings, cpcvGroupsAndTestGroups) {
    json v = json::object();
    EXPECT_TRUE(applyValidationFlag("--scheme", "cpcv", v));
    EXPECT_TRUE(applyValidationFlag("--groups", "8", v));
    EXPECT_TRUE(applyValidationFlag("--test-groups", "3", v));
    v["mode"] = "walkforward";
    const ValidationConfig c = ValidationConfig::fromJson(v);
    EXPECT_TRUE(c.cpcv());
    EXPECT_EQ(c.groups, 8);
    EXPECT_EQ(c.testGroups, 3);
    EXPECT_EQ(ValidationConfig::fromJson(c.toJson()), c);
    const ValidationConfig d;
    EXPECT_EQ(d.groups, 6);
    EXPECT_EQ(d.testGroups, 2);
    EXPECT_FALSE(d.cpcv());
    try {
        applyValidationFlag("--groups", "1", v);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "--groups: validation.groups: 1 is outside 2..100");
    }
    for (const SettingSpec& s : validationSettingSpecs())
        if (s.key == "groups" || s.key == "testGroups") {
            EXPECT_TRUE(settingApplies(s, v, validationSettingSpecs())) << s.key;
            EXPECT_FALSE(settingApplies(s, json{{"scheme", "rolling"}}, validationSettingSpecs()));
        }
}
