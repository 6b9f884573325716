// Reading a run's stored trading figures (StoredRun::trading, RunRecord::trading: the JSON of
// app/engine/RunTrading.h) for tables: one figure of a series, and how the Runs and Comparison
// tables and `nnwb-cli runs` write it. Pure functions; any thread. Qt-free.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace nnwb {

// A figure ("netPoints", "profitFactor", "sharpeAnnual", "maxDrawdownPoints", "trades", ...)
// of a series ("strategy", "buyAndHold" or "random"); none when the run has none (no trading
// evaluation, {"error": ...}, or a figure that does not exist, stored as null: a win rate
// without trades, ...). A profit factor stored as null is +inf where the win rate is above 0
// (no losing trade), else none (no trade won or lost).
std::optional<double> storedTradingFigure(const nlohmann::json& trading, const char* key,
                                          const char* series = "strategy");

// "spread from the file" or "spread from the setting: 7 points" (the stored spreadPoints, or
// the settings' for runs stored before it was kept).
std::string storedSpreadText(const nlohmann::json& trading);

// The figure with `decimals` decimals, "inf" for an infinite one, "n/a" for none.
std::string storedTradingText(const std::optional<double>& value, int decimals);

}  // namespace nnwb
