// How figures are written for people, the same in the window, its CSVs and nnwb-cli: counts
// with thousands grouped by a comma ("4,115", whatever the locale), and an accuracy with the
// number of signals it is a share of, or "n/a" below kMinSignalsForAccuracy signals (one
// signal makes 0 % or 100 %; docs/ARCHITECTURE.md §4). Pure functions; any thread. Qt-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace nnwb {

// The fewest buy/sell signalCount an accuracy is shown for (the share of signalCount that hit).
inline constexpr size_t kMinSignalsForAccuracy = 20;

inline bool accuracyShown(size_t signalCount) {
    return signalCount >= kMinSignalsForAccuracy;
}

// 4115 → "4,115"; -1234567 → "-1,234,567".
std::string groupedCount(int64_t n);
// A figure with `decimals` places and its whole part grouped: -17796.0 → "-17,796.0"; "n/a"
// for NaN, "inf"/"-inf" for infinities.
std::string groupedFixed(double v, int decimals);
// A table cell: "55.00 (40)", or "n/a (3)" below the minimum.
std::string accuracyCell(double accuracyPct, size_t signalCount);
// In a sentence: "55.00 % (40 signals)", or "n/a (3 signals, fewer than 20)".
std::string accuracyText(double accuracyPct, size_t signalCount);

}  // namespace nnwb
