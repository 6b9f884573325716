#include "app/export/Mql5FeatureTable.h"

#include <functional>
#include <stdexcept>

namespace nnwb::onnxexport {

namespace {

using Entry = std::function<Mql5FeatureCode(const FeatureSpec&)>;

std::string p(int n) {
    return std::to_string(n);
}

bool mt5(const FeatureSpec& s) {
    return s.definitions == IndicatorDefinitions::Mt5;
}

// The MACD buffers both MACD features read: one statement, so it is emitted once.
Mql5FeatureCode macd(const FeatureSpec& s, const std::string& value) {
    const std::string fn = mt5(s) ? "NnwbMacdMt5" : "NnwbMacdTextbook";
    return {{"double macd_main[];", "double macd_signal[];",
             fn + "(rates, n, " + p(s.macdFast) + ", " + p(s.macdSlow) + ", " + p(s.macdSignal) +
                 ", macd_main, macd_signal);"},
            value,
            {fn}};
}

// The ATR buffer the ATR-scaled features read (the `atr` feature's statements, so that they
// are emitted once whichever of them are on).
Mql5FeatureCode atrScaled(const FeatureSpec& s, const std::string& value) {
    const std::string fn = mt5(s) ? "NnwbAtrSma" : "NnwbAtrWilder";
    return {{"double atr[];", fn + "(rates, n, " + p(s.atrPeriod) + ", atr);"},
            value,
            {fn, "NnwbRatio"}};
}

// A MACD buffer over the ATR: both buffers' statements, as macd() emits them.
Mql5FeatureCode macdOverAtr(const FeatureSpec& s, const std::string& buffer) {
    Mql5FeatureCode m = macd(s, "");
    const Mql5FeatureCode a = atrScaled(s, "NnwbRatio(" + buffer + ", atr[i])");
    m.setup.insert(m.setup.end(), a.setup.begin(), a.setup.end());
    m.value = a.value;
    m.helpers.insert(m.helpers.end(), a.helpers.begin(), a.helpers.end());
    return m;
}

// One entry per feature key: its MQL5 code for the spec's periods and definitions.
const std::vector<std::pair<std::string, Entry>>& table() {
    static const std::vector<std::pair<std::string, Entry>> kTable = {
        {"closeOpen",
         [](const FeatureSpec&) -> Mql5FeatureCode {
             return {{}, "rates[i].close - rates[i].open", {}};
         }},
        {"highOpen",
         [](const FeatureSpec&) -> Mql5FeatureCode {
             return {{}, "rates[i].high - rates[i].open", {}};
         }},
        {"lowOpen",
         [](const FeatureSpec&) -> Mql5FeatureCode {
             return {{}, "rates[i].low - rates[i].open", {}};
         }},
        {"tickVolume",
         [](const FeatureSpec&) -> Mql5FeatureCode {
             return {{}, "(double)rates[i].tick_volume", {}};
         }},
        {"hour",
         [](const FeatureSpec&) -> Mql5FeatureCode {
             return {{}, "dt.hour", {}};
         }},
        {"dayOfWeek",
         [](const FeatureSpec&) -> Mql5FeatureCode {
             return {{}, "dt.day_of_week", {}};
         }},
        {"month",
         [](const FeatureSpec&) -> Mql5FeatureCode {
             return {{}, "dt.mon", {}};
         }},
        {"rsi",
         [](const FeatureSpec& s) -> Mql5FeatureCode {
             return {{"double rsi[];", "NnwbRsi(rates, n, " + p(s.rsiPeriod) + ", rsi);"},
                     "rsi[i]",
                     {"NnwbRsi"}};
         }},
        {"cci",
         [](const FeatureSpec& s) -> Mql5FeatureCode {
             return {{"double cci[];", "NnwbCci(rates, n, " + p(s.cciPeriod) + ", cci);"},
                     "cci[i]",
                     {"NnwbCci"}};
         }},
        {"atr",
         [](const FeatureSpec& s) -> Mql5FeatureCode {
             const std::string fn = mt5(s) ? "NnwbAtrSma" : "NnwbAtrWilder";
             return {{"double atr[];", fn + "(rates, n, " + p(s.atrPeriod) + ", atr);"},
                     "atr[i]",
                     {fn}};
         }},
        {"macdMain", [](const FeatureSpec& s) { return macd(s, "macd_main[i]"); }},
        {"macdSignal", [](const FeatureSpec& s) { return macd(s, "macd_signal[i]"); }},
        // Scale-free features (model/data/Features.cpp): a ratio whose divisor is not above 0
        // is 0 (NnwbRatio), the return of the first bar is 0.
        {"closeOpenAtr",
         [](const FeatureSpec& s) {
             return atrScaled(s, "NnwbRatio(rates[i].close - rates[i].open, atr[i])");
         }},
        {"highOpenAtr",
         [](const FeatureSpec& s) {
             return atrScaled(s, "NnwbRatio(rates[i].high - rates[i].open, atr[i])");
         }},
        {"lowOpenAtr",
         [](const FeatureSpec& s) {
             return atrScaled(s, "NnwbRatio(rates[i].low - rates[i].open, atr[i])");
         }},
        {"closeReturn",
         [](const FeatureSpec&) -> Mql5FeatureCode {
             return {{},
                     "(i == 0 ? 0.0 : NnwbRatio(rates[i].close - rates[i - 1].close, "
                     "rates[i - 1].close))",
                     {"NnwbRatio"}};
         }},
        {"atrClose",
         [](const FeatureSpec& s) { return atrScaled(s, "NnwbRatio(atr[i], rates[i].close)"); }},
        {"macdMainAtr", [](const FeatureSpec& s) { return macdOverAtr(s, "macd_main[i]"); }},
        {"macdSignalAtr", [](const FeatureSpec& s) { return macdOverAtr(s, "macd_signal[i]"); }},
    };
    return kTable;
}

const Entry* entryOf(Feature f) {
    const std::string key = featureKey(f);
    for (const auto& [k, e] : table())
        if (k == key) return &e;
    return nullptr;
}

}  // namespace

bool hasMql5FeatureCode(Feature f) {
    return entryOf(f) != nullptr;
}

Mql5FeatureCode mql5FeatureCode(Feature f, const FeatureSpec& spec) {
    const Entry* e = entryOf(f);
    if (!e)
        throw std::invalid_argument(std::string("the MQL5 generator has no code for feature '") +
                                    featureKey(f) +
                                    "' (add its entry to app/export/Mql5FeatureTable.cpp)");
    return (*e)(spec);
}

}  // namespace nnwb::onnxexport
