#include "app/cli/TradingFlags.h"

#include <stdexcept>

#include "app/cli/Commands.h"

namespace nnwb::cli {

namespace {

const char* const kGroup =
    "Trading (with --trading; each overrides the default or the "
    "experiment's trading section)";

std::string valueName(const SettingSpec& s) {
    switch (s.kind) {
        case SettingSpec::Kind::Bool:
            return "on|off";
        case SettingSpec::Kind::Int:
            return "N";
        case SettingSpec::Kind::Choice: {
            std::string names;
            for (const std::string& c : s.choices) names += (names.empty() ? "" : "|") + c;
            return names;
        }
        default:
            return "X";
    }
}

}  // namespace

void addTradingFlags(CLI::App& cmd, nlohmann::json& overrides) {
    for (const SettingSpec& s : tradingSettingSpecs()) {
        if (s.flag.empty() || cmd.get_option_no_throw(s.flag)) continue;
        const SettingSpec* spec = &s;
        auto store = [&overrides, spec](const std::string& v) { overrides[spec->flag] = v; };
        auto check = [spec](std::string& v) -> std::string {
            nlohmann::json trading = TradingSettings().toJson();
            try {
                applySettingFlag(*spec, v, trading, "trading");
            } catch (const std::invalid_argument& e) {
                // CLI11 names the flag itself.
                const std::string what = e.what(), prefix = spec->flag + ": ";
                return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
            }
            return {};
        };
        std::string help = s.help;
        if (!s.unit.empty()) help += " (" + s.unit + ")";
        const std::string range = s.rangeText();
        if (!range.empty() && s.kind != SettingSpec::Kind::Choice &&
            s.kind != SettingSpec::Kind::Bool)
            help += " [" + range + "]";
        cmd.add_option_function<std::string>(s.flag, store, help)
            ->type_name(valueName(s))
            ->check(CLI::Validator(check, std::string()))
            ->group(kGroup);
    }
}

TradingSettings applyTradingFlags(const TradingSettings& base, const nlohmann::json& overrides) {
    nlohmann::json trading = base.toJson();
    try {
        for (auto it = overrides.begin(); it != overrides.end(); ++it)
            applyTradingFlag(it.key(), it->get<std::string>(), trading);
        return TradingSettings::fromJson(trading);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

}  // namespace nnwb::cli
