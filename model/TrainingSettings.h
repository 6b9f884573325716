// The training settings, declared once: one entry per key of an experiment's `training` section
// (key path, label, kind, range, default, unit, help, CLI flag) with its place in
// TrainingConfig. TrainingConfig's JSON reading and writing, the Training pane's form, the
// CLI's training flags and docs/settings.md are generated from this table: adding a setting is
// one entry here plus its behaviour. Read-only after static initialization; any thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/SettingSpec.h"

namespace nnwb {

struct TrainingConfig;

struct TrainingSetting {
    SettingSpec spec;
    std::function<nlohmann::json(const TrainingConfig&)> get;
    std::function<void(TrainingConfig&, const nlohmann::json&)> set;  // a checked value
};

const std::vector<TrainingSetting>& trainingSettings();
// The specs alone, in table order (for forms, flags and docs).
const std::vector<SettingSpec>& trainingSettingSpecs();
// The entry of key path `key` ("optimizer.epsilon"); throws std::logic_error when absent.
const TrainingSetting& trainingSetting(const std::string& key);

// The `training` section: every setting whose format version is at most `formatVersion`
// read (missing keys keep `base`'s values) and checked against its entry; throws
// std::invalid_argument("training.KEY: problem").
TrainingConfig readTrainingSettings(const nlohmann::json& j, int formatVersion,
                                    TrainingConfig base);
nlohmann::json writeTrainingSettings(const TrainingConfig& c);

// If `flag` is a training flag, puts its checked value into `training` (an experiment's
// training JSON) and returns true; throws std::invalid_argument with the CLI's message
// ("--patience: 'x' is not an integer").
bool applyTrainingFlag(const std::string& flag, const std::string& value, nlohmann::json& training);

}  // namespace nnwb
