// One command-line flag per entry of a settings table that has one (model/TrainingSettings,
// ValidationSettings, trading/TradingSettings): value name, help with range and unit, a check
// of the value against the table (CLI11 reports it at parse time), and the raw value kept in
// `overrides` by flag until the command applies it to its section. Main thread of nnwb-cli.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "model/SettingSpec.h"

namespace nnwb::cli {

// The flags of one settings table.
struct SettingFlagTable {
    const std::vector<SettingSpec>* specs = nullptr;
    std::string section;  // the experiment's section, in messages: "training"
    std::string group;    // the help's group title
    // A section of defaults that a flag's value is checked in, and the whole section's parse
    // (throws std::invalid_argument); either may be empty.
    nlohmann::json defaults = nlohmann::json::object();
    std::function<void(const nlohmann::json&)> parse;
};

// Adds a flag for each entry with one, except those `cmd` already declares and those `skip`
// names. The flags store their values into `overrides` ({flag: value}).
void addSettingFlags(CLI::App& cmd, const SettingFlagTable& table, nlohmann::json& overrides,
                     const std::function<bool(const SettingSpec&)>& skip = {});

// `section` with every value of `overrides` applied (in the table's order of flags given);
// throws UsageError with the table's message on a bad value.
nlohmann::json applySettingFlags(const SettingFlagTable& table, nlohmann::json section,
                                 const nlohmann::json& overrides);

}  // namespace nnwb::cli
