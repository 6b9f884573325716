// The validation settings of an experiment (its `validation` section), declared once: holdout
// (the newest data.validationShare of the file, as before the section existed) or walk-forward
// (folds of training and test windows, model/data/FoldPlan.h, or the splits of a combinatorial
// purged cross-validation, model/data/CpcvPlan.h), with the walk-forward scheme, lengths,
// folds, groups, test groups, purge, embargo and each fold's early-stopping share. The JSON reading
// and writing, the CLI's flags and docs/settings.md come from this table. Read-only after static
// initialization; any thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/SettingSpec.h"

namespace nnwb {

struct ValidationConfig {
    std::string mode = "holdout";  // holdout | walkforward
    // anchored (expanding) | rolling | cpcv (combinatorial purged cross-validation,
    // model/data/CpcvPlan.h: groups and testGroups instead of the lengths and folds)
    std::string scheme = "anchored";
    std::string unit = "bars";  // bars | days | weeks: the unit of the three lengths
    // Rolling: each fold's training part; anchored: the first fold's (the minimum). 0: as long
    // as one test window.
    long long trainLength = 0;
    // Each test window; 0 with folds > 0: the data after the first training part divided into
    // `folds` windows.
    long long testLength = 0;
    // Between the starts of two test windows when folds is 0; 0: testLength (contiguous).
    long long step = 0;
    // > 0: that many test windows, the newest ones, ending at the newest sample; 0: windows every
    // `step` from the end of the first training part while they fit the file.
    int folds = 6;
    // Bars dropped between a training part and what follows it (a test window, a fold's
    // early-stopping validation); 0: the label horizon, the least allowed.
    int purge = 0;
    int embargo = 0;  // further bars dropped before each test window, after the purge
    double earlyStoppingShare = 0.2;  // newest share of each fold's training part
    int groups = 6;                   // cpcv: N, the groups of samples the file is cut into
    int testGroups = 2;               // cpcv: k, the test groups of each split (C(N, k) splits)

    bool walkForward() const { return mode == "walkforward"; }
    bool cpcv() const { return walkForward() && scheme == "cpcv"; }
    nlohmann::json toJson() const;
    // Checks every key against its entry; throws std::invalid_argument("validation.KEY: ...").
    // A missing key keeps its default (an experiment without the section is holdout).
    static ValidationConfig fromJson(const nlohmann::json& j);
    bool operator==(const ValidationConfig& o) const { return toJson() == o.toJson(); }
};

struct ValidationSetting {
    SettingSpec spec;
    std::function<nlohmann::json(const ValidationConfig&)> get;
    std::function<void(ValidationConfig&, const nlohmann::json&)> set;  // a checked value
};

const std::vector<ValidationSetting>& validationSettings();
// The specs alone, in table order (for forms, flags and docs).
const std::vector<SettingSpec>& validationSettingSpecs();

// If `flag` is a validation flag, puts its checked value into `validation` (an experiment's
// validation JSON) and returns true; throws std::invalid_argument with the CLI's message
// ("--folds: validation.folds: 0 is outside 1..1000").
bool applyValidationFlag(const std::string& flag, const std::string& value,
                         nlohmann::json& validation);

}  // namespace nnwb
