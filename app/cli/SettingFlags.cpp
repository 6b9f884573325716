#include "app/cli/SettingFlags.h"

#include <stdexcept>

#include "app/cli/Commands.h"

namespace nnwb::cli {

namespace {

// The value name the help shows: the choices ("adam|sgd"), on|off, N or X.
std::string flagValueName(const SettingSpec& s) {
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

// The help text: the entry's help, its unit and range for numbers.
std::string flagHelp(const SettingSpec& s) {
    std::string help = s.help;
    const bool number = s.kind == SettingSpec::Kind::Int || s.kind == SettingSpec::Kind::Real ||
                        s.kind == SettingSpec::Kind::RealList;
    if (!number) return help;
    std::string range = s.rangeText();
    if (!s.unit.empty()) range += (range.empty() ? "" : " ") + s.unit;
    return range.empty() ? help : help + " (" + range + ")";
}

}  // namespace

void addSettingFlags(CLI::App& cmd, const SettingFlagTable& table, nlohmann::json& overrides,
                     const std::function<bool(const SettingSpec&)>& skip) {
    for (const SettingSpec& s : *table.specs) {
        if (s.flag.empty() || cmd.get_option_no_throw(s.flag) || (skip && skip(s))) continue;
        const SettingSpec* spec = &s;
        auto store = [&overrides, spec](const std::string& v) { overrides[spec->flag] = v; };
        auto check = [spec, &table](std::string& v) -> std::string {
            nlohmann::json section = table.defaults;
            try {
                applySettingFlag(*spec, v, section, table.section);
                if (table.parse) table.parse(section);
            } catch (const std::invalid_argument& e) {
                // CLI11 names the flag itself: "--patience: 'x' is not an integer".
                const std::string what = e.what(), prefix = spec->flag + ": ";
                return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
            }
            return {};
        };
        cmd.add_option_function<std::string>(s.flag, store, flagHelp(s))
            ->type_name(flagValueName(s))
            ->check(CLI::Validator(check, std::string()))
            ->group(table.group);
    }
}

nlohmann::json applySettingFlags(const SettingFlagTable& table, nlohmann::json section,
                                 const nlohmann::json& overrides) {
    try {
        for (auto it = overrides.begin(); it != overrides.end(); ++it) {
            const SettingSpec* s = findSettingByFlag(*table.specs, it.key());
            if (s) applySettingFlag(*s, it->get<std::string>(), section, table.section);
        }
        if (table.parse) table.parse(section);
        return section;
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

}  // namespace nnwb::cli
