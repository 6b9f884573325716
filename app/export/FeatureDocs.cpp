#include "app/export/FeatureDocs.h"

namespace nnwb::onnxexport {

namespace {

std::string replaced(std::string text, const std::string& what, const std::string& with) {
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at))
        text.replace(at, what.size(), with), at += with.size();
    return text;
}

}  // namespace

std::string timeZoneNote() {
    return "in the time zone of the training data's bar times, taken as written; MT5's "
           "MqlRates.time is the broker's server time, which may be another zone (shift the "
           "times or retrain on the terminal's own export)";
}

std::string macdSeeding(bool mt5) {
    // As emaSeededFirst (mt5) and emaSeries (textbook) in model/data/Indicators.cpp.
    return mt5 ? "EMAs seeded with the first close of the series (ema[0] = Close[0], then ema "
                 "+= 2/(n+1)*(Close - ema) on every bar, as MT5's iMA), so the first few hundred "
                 "bars of a series depend on where it starts"
               : "EMAs seeded with the simple mean of their first n closes (textbook)";
}

std::string indicatorVariant(const DataConfig& cfg) {
    return indicatorDefinitionsName(cfg.features.definitions);
}

std::string featureDefinition(Feature f, const DataConfig& cfg) {
    const FeatureSpec& s = cfg.features;
    const bool mt5 = indicatorVariant(cfg) == "mt5";
    const std::string key = featureKey(f);
    auto p = [](int n) { return std::to_string(n); };
    switch (f) {
        case Feature::CloseOpen:
            return key + ": Close - Open of the bar (price units)";
        case Feature::HighOpen:
            return key + ": High - Open of the bar (price units)";
        case Feature::LowOpen:
            return key + ": Low - Open of the bar (price units, <= 0)";
        case Feature::TickVolume:
            return key + ": tick volume of the bar (MqlRates.tick_volume)";
        case Feature::Hour:
            return key + ": hour of the bar's open time, 0..23; " + timeZoneNote();
        case Feature::DayOfWeek:
            return key +
                   ": day of week of the bar's open time, 0 = Sunday .. 6 = Saturday "
                   "(MqlDateTime.day_of_week); " +
                   timeZoneNote();
        case Feature::Month:
            return key + ": month of the bar's open time, 1..12; " + timeZoneNote();
        case Feature::Rsi:
            return key + ": RSI(" + p(s.rsiPeriod) +
                   ") of Close, 0..100: average gain and loss of the first " + p(s.rsiPeriod) +
                   " changes, then Wilder smoothing avg = (avg*(n-1) + x)/n";
        case Feature::Cci:
            return key + ": CCI(" + p(s.cciPeriod) +
                   ") of the typical price (H+L+C)/3: (tp - SMA(tp)) / (0.015 * mean |tp - "
                   "SMA(tp)|)";
        case Feature::Atr:
            return mt5 ? key + ": ATR(" + p(s.atrPeriod) +
                             "): simple average of the true range over " + p(s.atrPeriod) +
                             " bars (as MT5's iATR)"
                       : key + ": ATR(" + p(s.atrPeriod) + "), Wilder: the mean of the first " +
                             p(s.atrPeriod) +
                             " true ranges, then atr = (atr*(n-1) + tr)/n (textbook; MT5's iATR "
                             "uses a simple average instead)";
        case Feature::MacdMain:
            return key + ": MACD(" + p(s.macdFast) + "," + p(s.macdSlow) +
                   ") main line EMA(Close," + p(s.macdFast) + ") - EMA(Close," + p(s.macdSlow) +
                   "), " + macdSeeding(mt5);
        case Feature::MacdSignal:
            return mt5 ? key + ": MACD signal line, simple average of the main line over " +
                             p(s.macdSignal) + " bars (as MT5's iMACD SIGNAL_LINE)"
                       : key + ": MACD signal line, EMA(" + p(s.macdSignal) +
                             ") of the main line (textbook; MT5's iMACD SIGNAL_LINE is a simple "
                             "average instead)";
        case Feature::CloseOpenAtr:
        case Feature::HighOpenAtr:
        case Feature::LowOpenAtr:
        case Feature::AtrClose:
        case Feature::MacdMainAtr:
        case Feature::MacdSignalAtr:
            // ATR(n) here is the atr feature's (the same definition and period), of the same
            // bar; a ratio whose divisor is 0 is 0.
            return key + ": " + replaced(featureInfo(f).formula, "atrPeriod", p(s.atrPeriod)) +
                   " (" + featureInfo(f).unit + "; ATR(" + p(s.atrPeriod) + ") " +
                   (mt5 ? "= simple average of the true range over " + p(s.atrPeriod) +
                              " bars, as MT5's iATR"
                        : "= Wilder's ATR, textbook") +
                   (f == Feature::MacdMainAtr || f == Feature::MacdSignalAtr
                        ? "; MACD(" + p(s.macdFast) + "," + p(s.macdSlow) + "," + p(s.macdSignal) +
                              ") as the macdMain / macdSignal features"
                        : std::string()) +
                   ")";
        case Feature::CloseReturn:
            return key +
                   ": (Close - previous Close) / previous Close of the bar (a fraction; 0 "
                   "when the previous close is 0)";
    }
    return key;
}

}  // namespace nnwb::onnxexport
