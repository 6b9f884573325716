#include "app/cli/TrainingFlags.h"

#include "app/cli/SettingFlags.h"
#include "model/TrainingSettings.h"

namespace nnwb::cli {

namespace {

const SettingFlagTable& trainingFlagTable() {
    static const SettingFlagTable table{
        &trainingSettingSpecs(), "training",
        "Training (each overrides the experiment's training section)", TrainingConfig().toJson(),
        [](const nlohmann::json& training) {
            TrainingConfig::fromJson(training, kExperimentFormatVersion);
        }};
    return table;
}

}  // namespace

void addTrainingFlags(CLI::App& cmd, nlohmann::json& overrides) {
    // Those the command declares itself (train's --device, --epochs, --batch) are skipped.
    addSettingFlags(cmd, trainingFlagTable(), overrides);
}

TrainingConfig applyTrainingFlags(const TrainingConfig& config, const nlohmann::json& overrides) {
    if (overrides.empty()) return config;
    return TrainingConfig::fromJson(
        applySettingFlags(trainingFlagTable(), config.toJson(), overrides),
        kExperimentFormatVersion);
}

}  // namespace nnwb::cli
