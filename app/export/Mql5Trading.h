// The trading part of the generated Expert Advisor (Mql5Expert.h): the rules of nnwb's trade
// simulation (model/trading/TradeSimulator.h, docs/trading.md) as MQL5 code that places the
// orders — the acting threshold, entry at the open after a signal, exit on the opposite signal,
// the time exit, ATR stop and take, one position per symbol and magic number, the lot size —
// with the experiment's trading settings as the inputs' defaults. The text between
// kMql5TradingBegin and kMql5TradingEnd is valid C++ once `input ` is dropped and MQL5's array
// parameters are rewritten, so tests compile it against a simulated broker (tst_mql5_trading).
// Plain functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "model/trading/TradingSettings.h"

namespace nnwb::onnxexport {

constexpr const char* kMql5TradingBegin = "// nnwb:trading begin";
constexpr const char* kMql5TradingEnd = "// nnwb:trading end";

// What nnwb's simulation assumes and a MetaTrader 5 account does otherwise (one line each, no
// line breaks inside): shown in the expert's header, in the window after an export, and in
// docs/onnx-and-mt5.md.
const std::vector<std::string>& mql5LiveDifferences();

// The MQL5 text before the trading section: what it calls that only a terminal has
// (NnwbSetLevels: the position's stop and take through CTrade on the symbol's price grid).
std::string mql5TradingGlue();

// The trading section, markers included: the inputs (defaults from `settings`), NnwbPoints,
// NnwbAtr, NnwbPosition, NnwbBarsHeld and NnwbTrade, which the expert calls once per new bar
// with the signal of the bar that just closed.
std::string mql5TradingSection(const TradingSettings& settings);

}  // namespace nnwb::onnxexport
