#include "app/cli/TrainingFlags.h"

#include <stdexcept>

#include "app/cli/Commands.h"
#include "model/TrainingSettings.h"

namespace nnwb::cli {

namespace {

const char* const kGroup = "Training (each overrides the experiment's training section)";

// The value name the help shows: the choices ("adam|sgd"), on|off, N or X.
std::string valueName(const SettingSpec& s) {
    switch (s.kind) {
        case SettingSpec::Kind::Bool:
            return "on|off";
        case SettingSpec::Kind::Int:
            return "N";
        case SettingSpec::Kind::Choice: {
            // A flag with a parser of its own takes a list for the choice that needs one
            // (--class-weights 1,2,2 for "given").
            std::string names;
            for (const std::string& c : s.choices)
                names += (names.empty() ? "" : "|") +
                         (s.applyFlag && c == "given" ? std::string("W0,W1,...") : c);
            return names;
        }
        case SettingSpec::Kind::RealList:
            return "W0,W1,...";
        default:
            return "X";
    }
}

// The flag's value applied to `training`; throws std::invalid_argument with the CLI's message.
void apply(const SettingSpec& s, const std::string& v, nlohmann::json& training) {
    applySettingFlag(s, v, training, "training");
    TrainingConfig::fromJson(training, kExperimentFormatVersion);
}

}  // namespace

void addTrainingFlags(CLI::App& cmd, nlohmann::json& overrides) {
    // One flag per entry of the training settings table that has one (model/TrainingSettings),
    // except those the command declares itself (train's --device, --epochs, --batch).
    for (const SettingSpec& s : trainingSettingSpecs()) {
        if (s.flag.empty() || cmd.get_option_no_throw(s.flag)) continue;
        const SettingSpec* spec = &s;
        auto store = [&overrides, spec](const std::string& v) { overrides[spec->flag] = v; };
        auto check = [spec](std::string& v) -> std::string {
            nlohmann::json training = TrainingConfig().toJson();
            try {
                apply(*spec, v, training);
            } catch (const std::invalid_argument& e) {
                // CLI11 names the flag itself: "--patience: 'x' is not an integer".
                const std::string what = e.what(), prefix = spec->flag + ": ";
                return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
            }
            return {};
        };
        std::string help = s.help;
        const std::string range = s.rangeText();
        if (!range.empty() && s.kind != SettingSpec::Kind::Choice &&
            s.kind != SettingSpec::Kind::Bool)
            help += " (" + range + ")";
        cmd.add_option_function<std::string>(s.flag, store, help)
            ->type_name(valueName(s))
            ->check(CLI::Validator(check, std::string()))
            ->group(kGroup);
    }
}

TrainingConfig applyTrainingFlags(const TrainingConfig& config, const nlohmann::json& overrides) {
    if (overrides.empty()) return config;
    nlohmann::json training = config.toJson();
    try {
        for (auto it = overrides.begin(); it != overrides.end(); ++it) {
            const SettingSpec* s = findSettingByFlag(trainingSettingSpecs(), it.key());
            if (s) applySettingFlag(*s, it->get<std::string>(), training, "training");
        }
        return TrainingConfig::fromJson(training, kExperimentFormatVersion);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

}  // namespace nnwb::cli
