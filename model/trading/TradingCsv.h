// The trading evaluation's CSV exports (TradingReport.h): one row per trade, one row per bar
// of the equity, each with a header row; shared by `nnwb-cli predict --trading` and the window.
// Numbers in their shortest form that reads back bit-equal, times "YYYY-MM-DD HH:MM". Pure
// functions; any thread.
#pragma once

#include <string>

#include "model/trading/TradingReport.h"

namespace nnwb {

// Header `direction,signal_bar,entry_bar,entry_time,entry_price,exit_bar,exit_time,exit_price,
// exit_reason,stop_level,take_level,bars,spread_points,gross_points,cost_points,net_points,
// gross_pct,cost_pct,net_pct`; direction "long" or "short", levels 0 where there is none.
std::string tradesCsv(const TradingReport& r);
// Header `bar,time,position,equity_points,equity_pct`; position 1 long, -1 short, 0 flat.
std::string equityCsv(const TradingReport& r);

}  // namespace nnwb
