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

namespace {

// The ATR-scaled features: their formula with the period, the unit and which ATR (and MACD).
std::string ratioDefinition(Feature f, const FeatureSpec& s, bool mt5) {
    auto p = [](int n) { return std::to_string(n); };
    return replaced(featureInfo(f).formula, "atrPeriod", p(s.atrPeriod)) + " (" +
           featureInfo(f).unit + "; ATR(" + p(s.atrPeriod) + ") " +
           (mt5 ? "= simple average of the true range over " + p(s.atrPeriod) +
                      " bars, as MT5's iATR"
                : "= Wilder's ATR, textbook") +
           (f == Feature::MacdMainAtr || f == Feature::MacdSignalAtr
                ? "; MACD(" + p(s.macdFast) + "," + p(s.macdSlow) + "," + p(s.macdSignal) +
                      ") as the macdMain / macdSignal features"
                : std::string()) +
           ")";
}

}  // namespace

std::string featureDefinition(Feature f, const DataConfig& cfg) {
    const FeatureSpec& s = cfg.features;
    const bool mt5 = indicatorVariant(cfg) == "mt5";
    const FeatureInfo& info = featureInfo(f);
    const std::string key = info.key;
    if (!info.doc) return key + ": " + ratioDefinition(f, s, mt5);
    std::string text = !mt5 && info.docTextbook ? info.docTextbook : info.doc;
    const std::pair<const char*, std::string> fill[] = {
        {"{rsiPeriod}", std::to_string(s.rsiPeriod)},
        {"{cciPeriod}", std::to_string(s.cciPeriod)},
        {"{atrPeriod}", std::to_string(s.atrPeriod)},
        {"{macdFast}", std::to_string(s.macdFast)},
        {"{macdSlow}", std::to_string(s.macdSlow)},
        {"{macdSignalPeriod}", std::to_string(s.macdSignal)},
        {"{timeZone}", timeZoneNote()},
        {"{macdSeeding}", macdSeeding(mt5)}};
    for (const auto& [placeholder, value] : fill) text = replaced(text, placeholder, value);
    return key + ": " + text;
}

}  // namespace nnwb::onnxexport
