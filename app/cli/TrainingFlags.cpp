#include "app/cli/TrainingFlags.h"

#include "app/cli/FlagChecks.h"
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

void addRunSizeFlags(CLI::App& cmd, std::string& device, int& epochs, int& batch,
                     const std::string& epochsHelp) {
    cmd.add_option("--device", device, "cpu or opencl:P:D (default: the experiment's)")
        ->type_name("ID");
    cmd.add_option("--epochs", epochs, epochsHelp)->type_name("N")->check(integerIn(1, 1000000));
    cmd.add_option("--batch", batch, "batch size instead of the experiment's")
        ->type_name("B")
        ->check(integerIn(1, 65536));
}

TrainingConfig applyTrainingFlags(const TrainingConfig& config, const nlohmann::json& overrides) {
    if (overrides.empty()) return config;
    return TrainingConfig::fromJson(
        applySettingFlags(trainingFlagTable(), config.toJson(), overrides),
        kExperimentFormatVersion);
}

}  // namespace nnwb::cli
