#include "app/cli/ValidationFlags.h"

#include "app/cli/SettingFlags.h"

namespace nnwb::cli {

namespace {

const SettingFlagTable& validationFlagTable() {
    static const SettingFlagTable table{
        &validationSettingSpecs(), "validation",
        "Validation (each overrides the experiment's validation section)",
        ValidationConfig().toJson(),
        [](const nlohmann::json& validation) { ValidationConfig::fromJson(validation); }};
    return table;
}

}  // namespace

void addValidationFlags(CLI::App& cmd, nlohmann::json& overrides, bool withMode) {
    addSettingFlags(cmd, validationFlagTable(), overrides,
                    [withMode](const SettingSpec& s) { return !withMode && s.key == "mode"; });
}

ValidationConfig applyValidationFlags(const ValidationConfig& config,
                                      const nlohmann::json& overrides) {
    if (overrides.empty()) return config;
    return ValidationConfig::fromJson(
        applySettingFlags(validationFlagTable(), config.toJson(), overrides));
}

}  // namespace nnwb::cli
