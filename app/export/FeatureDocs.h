// Human-readable definitions of the bar features an exported model expects (for the ONNX doc
// strings and metadata): name, formula, periods and the indicator variant ("textbook", or
// "mt5" for MetaTrader 5's built-in indicators). Pure functions; any thread.
#pragma once

#include <string>

#include "model/data/DataConfig.h"

namespace nnwb::onnxexport {

// The indicator definitions a data section uses: "mt5" or "textbook".
std::string indicatorVariant(const DataConfig& cfg);
// How the MACD's EMAs are seeded, for the mt5 or the textbook definitions (one clause).
std::string macdSeeding(bool mt5);
// Which time zone hour, dayOfWeek and month are in (one clause).
std::string timeZoneNote();
// One line, e.g. "rsi: RSI(14) of Close, Wilder smoothing (...)".
std::string featureDefinition(Feature f, const DataConfig& cfg);

}  // namespace nnwb::onnxexport
