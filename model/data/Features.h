// The per-bar features, declared once here (enum, key, label, formula, unit in featureInfo, the
// one feature table that the Data pane, the ONNX docs and docs/settings.md read): the
// twelve of the MQL5 fractal expert (docs/ARCHITECTURE.md §4; indicators in Indicators.h), then
// seven scale-free ones (moves and ranges divided by the ATR or the close; off by default).
// Computed in this fixed order, skipping disabled ones. Pure functions; any thread.
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
    MacdSignal,
    // Scale-free (the same on EURUSD at 1.1 and gold at 1300). ATR below is the `atr` feature's
    // ATR(atrPeriod) of the same bar (MT5 or textbook definition); a ratio whose divisor is 0
    // is 0.
    CloseOpenAtr,   // (close - open) / ATR
    HighOpenAtr,    // (high - open) / ATR
    LowOpenAtr,     // (low - open) / ATR
    CloseReturn,    // (close - previous close) / previous close
    AtrClose,       // ATR / close
    MacdMainAtr,    // MACD main / ATR
    MacdSignalAtr,  // MACD signal / ATR
};
constexpr int kFeatureKinds = 19;

// JSON key / display name of a feature: "closeOpen", "highOpen", ..., "macdSignalAtr".
const char* featureKey(Feature f);
// The feature with JSON key `key`; false when there is none.
bool featureFromKey(const std::string& key, Feature& out);

// What a feature is, for the window (label, tooltip) and the README: `formula` is exact
// ("(close - open) / ATR(atrPeriod)"), `unit` says what its values are.
struct FeatureInfo {
    const char* key;
    const char* label;    // "Close − open"
    const char* formula;  // "close - open"
    const char* unit;     // "price units", "dimensionless", ...
    bool scaleFree;       // the same values on an instrument of another price scale
    // The exported model's doc string of the feature (app/export/FeatureDocs.h), with
    // {rsiPeriod}, {cciPeriod}, {atrPeriod}, {macdFast}, {macdSlow}, {macdSignalPeriod}, {timeZone}
    // and {macdSeeding} filled in; `docTextbook` for the textbook indicator definitions when
    // they differ (null: the same). Null `doc`: a ratio to the ATR, described from `formula`.
    const char* doc = nullptr;
    const char* docTextbook = nullptr;
};
const FeatureInfo& featureInfo(Feature f);
// The tooltip of a feature's switch: its formula and unit, and whether it is in the
// instrument's price scale.
std::string featureHelp(Feature f);

struct FeatureSpec {
    // The original twelve are on unless switched off (files without the key keep them); the
    // scale-free ones are off unless switched on (files written before them did not use them).
    std::array<bool, kFeatureKinds> enabled{true,  true,  true,  true,  true, true,  true,
                                            true,  true,  true,  true,  true, false, false,
                                            false, false, false, false, false};
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
