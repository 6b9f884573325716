// A short description of a loaded bar series — format, bar count, first/last bar time, time
// frame, gaps and 3-bar fractal counts — as shown by `nnwb-cli data` and the GUI's data panel,
// with its text and JSON forms. Pure functions / value types; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "model/data/BarSeries.h"
#include "model/data/DateTime.h"  // formatBarTime: "YYYY-MM-DD HH:MM"

namespace nnwb {

struct DataSummary {
    std::string format;  // "mt5", "mt4", "csv"
    std::string source;  // the file the bars came from
    size_t bars = 0;
    int64_t firstTime = 0, lastTime = 0;  // bar open times, seconds since epoch
    int64_t timeframe = 0;                // seconds, the most common spacing
    size_t gaps = 0;                      // consecutive bars more than one time frame apart
    // 3-bar fractals over bars with both neighbours; buy and sell each include outside bars,
    // both counts the outside bars.
    size_t buy = 0, sell = 0, both = 0;
};

DataSummary summarizeBars(const BarSeries& bars);

// "H1", "M15", "D1", "W1" for standard frames, else "<n> s".
std::string timeframeName(int64_t seconds);

// Aligned "key: value" lines, one per figure, ending in a newline.
std::string formatSummaryText(const DataSummary& s);
// {"format", "bars", "first", "last", "timeframe", "gaps", "buy", "sell", "both"}; times as
// "YYYY-MM-DD HH:MM" (null for an empty series), timeframe in seconds.
nlohmann::ordered_json summaryToJson(const DataSummary& s);

}  // namespace nnwb
