#include "app/cli/ValidationFlags.h"

#include <stdexcept>

#include "app/cli/Commands.h"

namespace nnwb::cli {

namespace {

const char* const kGroup = "Validation (each overrides the experiment's validation section)";

std::string valueName(const SettingSpec& s) {
    if (s.kind == SettingSpec::Kind::Int) return "N";
    if (s.kind == SettingSpec::Kind::Choice) {
        std::string names;
        for (const std::string& c : s.choices) names += (names.empty() ? "" : "|") + c;
        return names;
    }
    return "X";
}

}  // namespace

void addValidationFlags(CLI::App& cmd, nlohmann::json& overrides, bool withMode) {
    for (const SettingSpec& s : validationSettingSpecs()) {
        if (s.flag.empty() || (!withMode && s.key == "mode")) continue;
        const SettingSpec* spec = &s;
        auto store = [&overrides, spec](const std::string& v) { overrides[spec->flag] = v; };
        auto check = [spec](std::string& v) -> std::string {
            nlohmann::json validation = nlohmann::json::object();
            try {
                applySettingFlag(*spec, v, validation, "validation");
            } catch (const std::invalid_argument& e) {
                const std::string what = e.what(), prefix = spec->flag + ": ";
                return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
            }
            return {};
        };
        std::string help = s.help;
        if (s.kind == SettingSpec::Kind::Int || s.kind == SettingSpec::Kind::Real)
            help += " (" + s.rangeText() + ")";
        cmd.add_option_function<std::string>(s.flag, store, help)
            ->type_name(valueName(s))
            ->check(CLI::Validator(check, std::string()))
            ->group(kGroup);
    }
}

ValidationConfig applyValidationFlags(const ValidationConfig& config,
                                      const nlohmann::json& overrides) {
    if (overrides.empty()) return config;
    nlohmann::json validation = config.toJson();
    try {
        for (auto it = overrides.begin(); it != overrides.end(); ++it)
            applyValidationFlag(it.key(), it->get<std::string>(), validation);
        return ValidationConfig::fromJson(validation);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

}  // namespace nnwb::cli
