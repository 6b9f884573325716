// Text forms of a trading evaluation (TradingReport.h) other than CSV: the figures as JSON
// (what `nnwb-cli ... --json` prints and a run stores) and as a plain table of strategy,
// buy-and-hold and random baseline. A profit factor without losing trades is infinite: JSON
// null, the table "inf". Pure functions; any thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/trading/TradingReport.h"

namespace nnwb {

// {trades, winRate, profitFactor, netPoints, netPct, perTradePoints, perTradePct,
//  maxDrawdownPoints, maxDrawdownPct, sharpe, sortino, sharpeAnnual, sortinoAnnual, exposure,
//  returns, skewness, kurtosis}.
nlohmann::ordered_json tradingFiguresJson(const TradingFigures& f);
// Reads tradingFiguresJson's form back (a missing or null figure: 0, profitFactor null: inf).
TradingFigures tradingFiguresFromJson(const nlohmann::json& j);
// {"range": {firstBar, lastBar, bars, barsPerYear}, "point", "spreadFrom", "strategy": {...},
//  "buyAndHold": {...}, "random": {..., "draws", "netAtOrAbove"}}; with `trades` also
//  "trades": [{direction, entryTime, entryPrice, exitTime, exitPrice, exitReason, bars,
//  net, netPct}].
nlohmann::ordered_json tradingReportJson(const TradingReport& r, bool trades = false);
// A table: one row per figure, columns strategy, buy & hold, random; then one line on the
// range, the point and the spread.
std::string tradingReportText(const TradingReport& r);

}  // namespace nnwb
