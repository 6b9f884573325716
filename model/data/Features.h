// The twelve per-bar features of the MQL5 fractal expert (docs/ARCHITECTURE.md §4) and their
// switches: close-open, high-open, low-open, tick volume, hour, day of week (0 = Sunday), month
// (1..12), RSI, CCI (typical price), ATR, MACD main and signal (definitions in Indicators.h).
// Features are computed in this fixed order, skipping disabled ones. Pure functions; any thread.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "model/data/BarSeries.h"
#include "model/data/Indicators.h"

namespace nnwb {

enum class Feature {
    CloseOpen,
    HighOpen,
    LowOpen,
    TickVolume,
    Hour,
    DayOfWeek,
    Month,
    Rsi,
    Cci,
    Atr,
    MacdMain,
    MacdSignal
};
constexpr int kFeatureKinds = 12;

// JSON key / display name of a feature: "closeOpen", "highOpen", ..., "macdSignal".
const char* featureKey(Feature f);

struct FeatureSpec {
    std::array<bool, kFeatureKinds> enabled{true, true, true, true, true, true,
                                            true, true, true, true, true, true};
    int rsiPeriod = 14, cciPeriod = 14, atrPeriod = 14;
    int macdFast = 12, macdSlow = 26, macdSignal = 9;
    // Which definitions RSI, CCI, ATR and MACD follow (Indicators.h); new specs use MT5's.
    IndicatorDefinitions definitions = IndicatorDefinitions::Mt5;

    bool isEnabled(Feature f) const { return enabled[static_cast<size_t>(f)]; }
    void setEnabled(Feature f, bool on) { enabled[static_cast<size_t>(f)] = on; }
    int count() const;
    std::vector<Feature> active() const;
    // Index of the first bar at which every enabled feature is defined.
    size_t warmup() const;
};

// bars x features, row-major, in double. Rows before `firstValid` may hold NaN.
struct FeatureMatrix {
    size_t bars = 0;
    int features = 0;
    size_t firstValid = 0;
    std::vector<double> values;
    std::vector<std::string> names;
    double at(size_t bar, int f) const { return values[bar * size_t(features) + size_t(f)]; }
    double* row(size_t bar) { return values.data() + bar * size_t(features); }
    const double* row(size_t bar) const { return values.data() + bar * size_t(features); }
};

FeatureMatrix computeFeatures(const BarSeries& bars, const FeatureSpec& spec);

}  // namespace nnwb
