// One setting of a settings table (TrainingSettings.h, DataSettings.h), declared once: its JSON
// key path, form label, kind, range, default, unit, help and command-line flag, and the checks
// every reader of the setting shares (JSON value, flag value). Forms, the CLI, tooltips, JSON
// validation and docs/settings.md are generated from the tables. Pure data and functions; any
// thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnwb {

struct SettingSpec {
    enum class Kind { Int, Real, Bool, Choice, Text, RealList };
    std::string key;    // JSON key path inside its section: "earlyStopping.patience"
    std::string name;   // short stable id, the form field's object name: "patience"
    std::string group;  // the form's box: "Best epoch and early stopping"
    std::string label;  // the form's text: "Patience" (a check box's text for Bool)
    Kind kind = Kind::Int;
    double min = 0, max = 0;   // Int, Real, RealList: min <= x <= max
    bool minExcluded = false;  // Real: min < x
    int decimals = 0;          // Real: a spin box with this many decimals; 0: a number field
    double step = 0;           // Real spin box step (0: one unit of the last decimal)
    double formScale = 1;      // the form shows value × formScale (0.2 as 20 %)
    std::vector<std::string> choices;       // Choice: the JSON values
    std::vector<std::string> choiceLabels;  // Choice: the form's words for them
    nlohmann::json defaultValue;
    std::string unit;      // "epochs", "%", "" (the form shows it after the value)
    std::string help;      // tooltip and docs text
    std::string flag;      // "--patience"; "" when no command-line flag sets it
    int sinceVersion = 1;  // the experiment format that introduced the key
    // Int: what the form shows at the minimum instead of the value and unit ("1 = one model"
    // for an ensemble of 1, not "1 seeds"); "" shows the value.
    std::string minimumText;
    // The form enables the field only while the setting `enabledBy` has one of these values
    // (as JSON dumps: "\"sgd\"", "true"); no condition when empty.
    std::string enabledBy;
    std::vector<std::string> enabledFor;
    // Read from and written to JSON only while the condition holds (a list that means
    // something under one mode only).
    bool onlyWhenApplies = false;
    // Written to JSON only when it differs from the default (a key added within a format
    // version: files that do not use it stay as they were).
    bool omittedWhenDefault = false;
    // A flag whose value is not just the setting's (e.g. --class-weights 1,2,2 sets the mode
    // and the weights): writes `value` into the section itself. Throws std::invalid_argument
    // with the CLI's message. Empty: the value is parsed by kind (applySettingFlag).
    std::function<void(const std::string& value, nlohmann::json& section)> applyFlag;

    // "training.earlyStopping.patience" for section "training".
    std::string path(const std::string& section) const { return section + "." + key; }
    // Throws std::invalid_argument("SECTION.KEY: problem") unless `v` is a valid value.
    void check(const std::string& section, const nlohmann::json& v) const;
    // The range and choices as docs and usage text show them: "1..100000", "(0, 10]",
    // "adam | sgd", "on | off".
    std::string rangeText() const;
};

// The value at `spec.key` of `section`, or nullptr when absent. An intermediate key that is not
// an object throws std::invalid_argument("SECTION.optimizer: must be an object").
const nlohmann::json* findSetting(const nlohmann::json& section, const SettingSpec& spec,
                                  const std::string& sectionName);
// Sets `spec.key` of `section` to `v`, creating intermediate objects.
void putSetting(nlohmann::json& section, const SettingSpec& spec, nlohmann::json v);
// Removes `spec.key` from `section` (nothing when absent).
void eraseSetting(nlohmann::json& section, const SettingSpec& spec);
// Whether `spec` applies under the values of `section` (its enabledBy condition; an absent
// key counts as the default of its entry in `table`).
bool settingApplies(const SettingSpec& spec, const nlohmann::json& section,
                    const std::vector<SettingSpec>& table);
// A command-line flag's string value into `section` (the training JSON): by kind (on|off for
// Bool, an integer, a number, a choice, a text) or through spec.applyFlag, then checked as the
// experiment file is. Throws std::invalid_argument with the message the CLI shows:
// "--patience: 'x' is not an integer", "--patience: training.earlyStopping.patience: 0 is
// outside 1..100000".
void applySettingFlag(const SettingSpec& spec, const std::string& value, nlohmann::json& section,
                      const std::string& sectionName);
// The entry of `specs` with flag `flag`, or null.
const SettingSpec* findSettingByFlag(const std::vector<SettingSpec>& specs,
                                     const std::string& flag);
// Number parsing shared by flags and forms: a whole string, finite; false otherwise.
bool parseSettingNumber(const std::string& text, double& out);

}  // namespace nnwb
