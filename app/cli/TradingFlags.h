// The trading-evaluation flags of `nnwb-cli predict --trading` (threshold, exits, stop and
// take, spread, commission, slippage, point size, random baseline): each overrides one key of
// the trading settings and is checked as an experiment file's `trading` section checks it.
// Declared from the trading settings table (model/trading/TradingSettings.h). Runs on the
// CLI's main thread; Qt-free.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "model/trading/TradingSettings.h"

namespace nnwb::cli {

// Declares one flag per entry of the table on `cmd`. Each value given lands in `overrides`
// under its flag ({"--spread": "12"}); CLI11 rejects a value the experiment file would reject,
// with the file's message ("--commission: trading.commission: -1.0 is outside [0, 1e+09]").
void addTradingFlags(CLI::App& cmd, nlohmann::json& overrides);
// `base` with `overrides` set; UsageError naming the flag on a bad value.
TradingSettings applyTradingFlags(const TradingSettings& base, const nlohmann::json& overrides);

}  // namespace nnwb::cli
