#include "model/ValidationSettings.h"

#include <stdexcept>

#include "model/SettingEntry.h"

namespace nnwb {

namespace {

using K = SettingSpec::Kind;
using ValidationEntry = SettingEntry<ValidationSetting, ValidationConfig>;

const std::vector<std::string> kWalkForward{"\"walkforward\""};

// An entry of box `group`; every setting but the mode applies under walk-forward only.
ValidationSetting validationEntry(K kind, const char* group, const char* key, const char* name,
                                  const char* label, const char* flag,
                                  SettingAccess<ValidationConfig> access, const char* help) {
    ValidationEntry e(kind, key, name, label, help);
    e.flag(flag).to(std::move(access));
    if (std::string(key) != "mode") e.when("mode", kWalkForward);
    return e.done(group);
}

ValidationSetting validationRange(ValidationSetting t, double lo, double hi, const char* unit) {
    t.spec.min = lo;
    t.spec.max = hi;
    t.spec.unit = unit;
    return t;
}

ValidationSetting validationChoices(ValidationSetting t, std::vector<std::string> values,
                                    std::vector<std::string> labels) {
    t.spec.choices = std::move(values);
    t.spec.choiceLabels = std::move(labels);
    return t;
}

std::vector<ValidationSetting> makeValidationTable() {
    const char* g = "Walk-forward";
    ValidationSetting share = validationRange(
        validationEntry(
            K::Real, g, "earlyStoppingShare", "wfEarlyStoppingShare", "Early-stopping share",
            "--es-share", fieldAccess(&ValidationConfig::earlyStoppingShare),
            "Share of each fold's training part, its newest samples, that picks the fold's "
            "best epoch and stops it early (the fold's validation part, never its test "
            "window); a purge gap separates it from the samples the fold fits. 0: no "
            "validation part, the fold watches its training loss. Scheme cpcv: the newest "
            "share of each split's training samples (it may span several groups), the purge "
            "before it"),
        0, 0.9, "%");
    share.spec.formScale = 100;
    std::vector<ValidationSetting> t{
        validationChoices(
            validationEntry(
                K::Choice, "Validation", "mode", "validationMode", "Validation", "--validation",
                fieldAccess(&ValidationConfig::mode),
                "Holdout: one run, validated on the newest data.validationShare of the "
                "samples. Walk-forward: one run per fold, each trained on the data before "
                "its test window and judged on that window; the test windows' predictions "
                "are stitched into one out-of-sample series"),
            {"holdout", "walkforward"}, {"Holdout (newest share)", "Walk-forward (folds)"}),
        validationChoices(
            validationEntry(
                K::Choice, g, "scheme", "wfScheme", "Training windows", "--scheme",
                fieldAccess(&ValidationConfig::scheme),
                "Anchored: every fold trains from the first sample to its test window "
                "(expanding); rolling: every fold trains on the trainLength just before "
                "its test window; cpcv: combinatorial purged cross-validation, the samples "
                "cut into `groups` groups and one split per choice of `testGroups` test "
                "groups, trained on all the other groups (purged and embargoed), its test "
                "predictions stitched into C(groups, testGroups)·testGroups/groups paths "
                "(docs/walkforward-cpcv.md); the lengths, step and folds do not apply"),
            {"anchored", "rolling", "cpcv"},
            {"Anchored (expanding)", "Rolling", "Combinatorial purged (CPCV)"}),
        validationChoices(
            validationEntry(
                K::Choice, g, "unit", "wfUnit", "Length unit", "--length-unit",
                fieldAccess(&ValidationConfig::unit),
                "The unit of trainLength, testLength and step: bars, or calendar days or "
                "weeks of the bars' open times (a window of 5 days holds the bars that "
                "open within those 5 × 24 hours). Purge and embargo are always bars"),
            {"bars", "days", "weeks"}, {"bars", "days", "weeks"}),
        validationRange(
            validationEntry(
                K::Int, g, "trainLength", "wfTrainLength", "Training length", "--train-length",
                fieldAccess(&ValidationConfig::trainLength),
                "Rolling: the length of every fold's training part; anchored: of the first "
                "fold's (later folds keep its start and grow; with folds and testLength both "
                "given, the samples before that start are not used). 0: as long as one test "
                "window; anchored with folds and testLength: from the first sample"),
            0, 100000000, "unit (bars, days or weeks)"),
        validationRange(
            validationEntry(
                K::Int, g, "testLength", "wfTestLength", "Test length", "--test-length",
                fieldAccess(&ValidationConfig::testLength),
                "The length of every test window. 0 (with folds > 0): the samples after "
                "the first training part, divided into `folds` windows. A window must "
                "hold at least as many bars as the label horizon"),
            0, 100000000, "unit (bars, days or weeks)"),
        validationRange(
            validationEntry(
                K::Int, g, "step", "wfStep", "Step", "--step", fieldAccess(&ValidationConfig::step),
                "Folds 0: from one test window's start to the next one's; 0 is the test "
                "length (contiguous windows), more leaves untested gaps (not traded: a "
                "position of the stitched signals closes at each test window's last bar), less "
                "(overlap) is refused. Windows follow each other from the end of the first "
                "training "
                "part while they fit the file"),
            0, 100000000, "unit (bars, days or weeks)"),
        validationRange(
            validationEntry(
                K::Int, g, "folds", "wfFolds", "Folds", "--folds",
                fieldAccess(&ValidationConfig::folds),
                "Number of folds: the newest `folds` test windows, back to back, ending at "
                "the newest sample (testLength each, or the rest of the file divided when "
                "testLength is 0). 0: as many as `step` fits"),
            0, 1000, "folds"),
        validationRange(
            validationEntry(
                K::Int, g, "groups", "wfGroups", "Groups (CPCV)", "--groups",
                fieldAccess(&ValidationConfig::groups),
                "Scheme cpcv: N, the groups the file's samples are cut into, back to back "
                "and of equal size (within one sample); each must hold at least data.window "
                "samples. C(N, k) may not exceed 1000 splits"),
            2, 100, "groups"),
        validationRange(
            validationEntry(
                K::Int, g, "testGroups", "wfTestGroups", "Test groups (CPCV)", "--test-groups",
                fieldAccess(&ValidationConfig::testGroups),
                "Scheme cpcv: k, the groups each split tests (fewer than groups); one split "
                "per choice of k groups, C(N, k) splits, C(N, k)·k/N paths"),
            1, 99, "groups"),
        validationRange(
            validationEntry(
                K::Int, g, "purge", "wfPurge", "Purge", "--purge",
                fieldAccess(&ValidationConfig::purge),
                "Bars (samples) dropped between a training part and the test window or "
                "early-stopping validation after it, so that no training label looks into "
                "them: a training sample ending at bar t has t + purge + embargo < the "
                "test window's first bar. 0: the label horizon (1 bar for 3-bar fractals, "
                "2 for 5-bar), which is also the least accepted. Scheme cpcv: dropped on "
                "both sides of every run of adjacent test groups"),
            0, 1000000, "bars"),
        validationRange(
            validationEntry(
                K::Int, g, "embargo", "wfEmbargo", "Embargo", "--embargo",
                fieldAccess(&ValidationConfig::embargo),
                "Further bars dropped between the purge and each test window (never before "
                "the early-stopping validation), for features with a long memory "
                "(moving averages) that carry the training part's last bars into the test "
                "window's first. Scheme cpcv: dropped after every run of adjacent test "
                "groups, after its purge (the training samples whose windows read the test "
                "bars)"),
            0, 1000000, "bars"),
        share,
    };
    // step only means something without a fold count
    t[5].spec.enabledBy = "folds";
    t[5].spec.enabledFor = {"0"};
    // groups and test groups only mean something under cpcv
    for (size_t i : {7, 8}) {
        t[i].spec.enabledBy = "scheme";
        t[i].spec.enabledFor = {"\"cpcv\""};
    }
    return t;
}

}  // namespace

const std::vector<ValidationSetting>& validationSettings() {
    static const std::vector<ValidationSetting> kTable = makeValidationTable();
    return kTable;
}

const std::vector<SettingSpec>& validationSettingSpecs() {
    static const std::vector<SettingSpec> kSpecs = [] {
        std::vector<SettingSpec> s;
        for (const ValidationSetting& t : validationSettings()) s.push_back(t.spec);
        return s;
    }();
    return kSpecs;
}

nlohmann::json ValidationConfig::toJson() const {
    nlohmann::json j = nlohmann::json::object();
    for (const ValidationSetting& t : validationSettings()) putSetting(j, t.spec, t.get(*this));
    return j;
}

ValidationConfig ValidationConfig::fromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("validation: must be an object");
    ValidationConfig c;
    for (const ValidationSetting& t : validationSettings()) {
        const nlohmann::json* v = findSetting(j, t.spec, "validation");
        if (!v) continue;
        t.spec.check("validation", *v);
        t.set(c, *v);
    }
    return c;
}

bool applyValidationFlag(const std::string& flag, const std::string& value,
                         nlohmann::json& validation) {
    const SettingSpec* s = findSettingByFlag(validationSettingSpecs(), flag);
    if (!s) return false;
    applySettingFlag(*s, value, validation, "validation");
    return true;
}

}  // namespace nnwb
