// Text forms of a trading evaluation (TradingReport.h) other than CSV: the figures as JSON
// (what `nnwb-cli ... --json` prints and a run stores) and as a plain table of strategy,
// buy-and-hold and random baseline. A figure that does not exist (no trades: win rate, profit
// factor, per trade, Sharpe, Sortino; the random share) is JSON null, the table "n/a"; a
// profit factor without losing trades is infinite: JSON null too (told apart by a win rate
// above 0), the table "inf". Pure functions; any thread.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/trading/TradingReport.h"

namespace nnwb {

// {trades, winRate, profitFactor, netPoints, netPct, perTradePoints, perTradePct,
//  maxDrawdownPoints, maxDrawdownPct, sharpe, sortino, sharpeAnnual, sortinoAnnual, exposure,
//  returns, skewness, kurtosis}.
nlohmann::ordered_json tradingFiguresJson(const TradingFigures& f);
// One figure of tradingFiguresJson's form: its number; a null profitFactor is +inf where the
// win rate is above 0 (no trade lost); none where the key is missing or null (n/a).
std::optional<double> tradingFigureFromJson(const nlohmann::json& series, const std::string& key);
// Reads tradingFiguresJson's form back (a missing figure: 0, a null one kNotAvailable,
// profitFactor as tradingFigureFromJson).
TradingFigures tradingFiguresFromJson(const nlohmann::json& j);
// {"range": {firstBar, lastBar, bars, barsPerYear}, "point", "spreadFrom", "spreadPoints" (the
//  given spread; not with "file"), "warnings" (where there are), "strategy": {...},
//  "buyAndHold": {...}, "random": {..., "draws", "netAtOrAbove"}}; with `trades` also
//  "trades": [{direction, entryTime, entryPrice, exitTime, exitPrice, exitReason, bars,
//  net, netPct}], "curves": {time, strategy, buyAndHold, randomLow, randomHigh, underwater}
//  (points, at the random band's bars: up to kBandPoints; underwater the lowest since the
//  previous one) and "monthly": [{year, month, points, pct}] (MonthlyReturns.h).
nlohmann::ordered_json tradingReportJson(const TradingReport& r, bool trades = false);
// A table: one row per figure, columns strategy, buy & hold, random; then one line on the
// range, the point and the spread; then a "warning: ..." line per warning.
std::string tradingReportText(const TradingReport& r);
// "spread from the file" or "spread from the setting: 5 points".
std::string tradingSpreadText(const TradingReport& r);

}  // namespace nnwb
