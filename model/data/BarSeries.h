// A loaded series of price bars (oldest first) and the result type of the bar importers.
// Plain value types: built by one thread, then safe to read from any thread once complete.
// Times are bar open times in seconds since 1970-01-01 00:00 UTC; a file's naive local
// times (broker server time, New York time) are taken as they are written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nnwb {

struct BarSeries {
    std::vector<int64_t> time;  // bar open time, UTC seconds, strictly increasing
    std::vector<double> open, high, low, close;
    std::vector<double> volume;  // tick volume where the file has one, else volume, else 0
    bool hasVolume = false;      // the file has a (tick) volume column
    // The spread of each bar in points (MT5's <SPREAD>, a generic CSV's `spread` column): one
    // value per bar when hasSpread, else empty (MT4 files, CSVs without the column).
    std::vector<double> spread;
    bool hasSpread = false;
    // The price's point, the smallest step its prices are written in: 10^-digits, where
    // digits is the number of decimals most open/high/low/close fields of the file are written
    // with, or more where a price's non-zero decimals need them (1.05266 -> 5 digits ->
    // 0.00001; 552.80 -> 0.01; 97.3100 -> 0.0001; 1300 -> 1; one 1343.830 among two-decimal
    // prices -> 0.01 and a warning). Trailing zeros count: exports write every price with the
    // symbol's digits. 0: unknown (bars not read from a file); trading evaluation then needs
    // trading.pointSize.
    int digits = 0;
    double point = 0.0;
    std::string format;     // "mt5", "mt4" or "csv"
    std::string source;     // the path the bars were read from (or a name for memory input)
    int64_t timeframe = 0;  // most common spacing of consecutive bars, seconds (0: < 2 bars)

    size_t size() const { return time.size(); }
    bool empty() const { return time.empty(); }
};

// Errors are values: on failure `ok` is false, `error` reads "FILE:LINE: problem" and `bars`
// is empty (never a partial series). Warnings never stop a load.
struct LoadResult {
    bool ok = false;
    std::string error;
    std::vector<std::string> warnings;
    BarSeries bars;
};

}  // namespace nnwb
