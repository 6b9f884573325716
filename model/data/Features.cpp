#include "model/data/Features.h"

#include <algorithm>

#include "model/data/DateTime.h"
#include "model/data/Indicators.h"

namespace nnwb {

const char* featureKey(Feature f) {
    static const char* const kKeys[kFeatureKinds] = {
        "closeOpen", "highOpen", "lowOpen", "tickVolume", "hour",     "dayOfWeek",
        "month",     "rsi",      "cci",     "atr",        "macdMain", "macdSignal"};
    const int i = static_cast<int>(f);
    return i >= 0 && i < kFeatureKinds ? kKeys[i] : "?";
}

int FeatureSpec::count() const {
    return static_cast<int>(std::count(enabled.begin(), enabled.end(), true));
}

std::vector<Feature> FeatureSpec::active() const {
    std::vector<Feature> out;
    for (int i = 0; i < kFeatureKinds; ++i)
        if (enabled[static_cast<size_t>(i)]) out.push_back(static_cast<Feature>(i));
    return out;
}

size_t FeatureSpec::warmup() const {
    size_t w = 0;
    if (isEnabled(Feature::Rsi)) w = std::max(w, rsiWarmup(rsiPeriod));
    if (isEnabled(Feature::Cci)) w = std::max(w, cciWarmup(cciPeriod));
    if (isEnabled(Feature::Atr)) w = std::max(w, atrWarmup(atrPeriod));
    if (isEnabled(Feature::MacdMain)) w = std::max(w, macdMainWarmup(macdFast, macdSlow));
    if (isEnabled(Feature::MacdSignal))
        w = std::max(w, macdSignalWarmup(macdFast, macdSlow, macdSignal));
    return w;
}

FeatureMatrix computeFeatures(const BarSeries& b, const FeatureSpec& spec) {
    FeatureMatrix m;
    m.bars = b.size();
    const std::vector<Feature> act = spec.active();
    m.features = static_cast<int>(act.size());
    m.firstValid = spec.warmup();
    m.values.assign(m.bars * act.size(), 0.0);
    for (Feature f : act) m.names.push_back(featureKey(f));

    std::vector<double> rsi, cci, atr;
    MacdSeries md;
    // RSI and CCI: MT5's iRSI and iCCI follow the textbook definitions (Indicators.h).
    if (spec.isEnabled(Feature::Rsi)) rsi = rsiWilder(b.close, spec.rsiPeriod);
    if (spec.isEnabled(Feature::Cci)) cci = cciTypical(b.high, b.low, b.close, spec.cciPeriod);
    const bool mt5 = spec.definitions == IndicatorDefinitions::Mt5;
    if (spec.isEnabled(Feature::Atr))
        atr = mt5 ? atrSma(b.high, b.low, b.close, spec.atrPeriod)
                  : atrWilder(b.high, b.low, b.close, spec.atrPeriod);
    if (spec.isEnabled(Feature::MacdMain) || spec.isEnabled(Feature::MacdSignal))
        md = mt5 ? macdMt5(b.close, spec.macdFast, spec.macdSlow, spec.macdSignal)
                 : macd(b.close, spec.macdFast, spec.macdSlow, spec.macdSignal);

    for (size_t i = 0; i < m.bars; ++i) {
        const CalendarTime c = toCalendar(b.time[i]);
        double* r = m.row(i);
        for (size_t k = 0; k < act.size(); ++k) {
            double v = 0.0;
            switch (act[k]) {
                case Feature::CloseOpen:
                    v = b.close[i] - b.open[i];
                    break;
                case Feature::HighOpen:
                    v = b.high[i] - b.open[i];
                    break;
                case Feature::LowOpen:
                    v = b.low[i] - b.open[i];
                    break;
                case Feature::TickVolume:
                    v = b.volume[i];
                    break;
                case Feature::Hour:
                    v = c.hour;
                    break;
                case Feature::DayOfWeek:
                    v = c.dayOfWeek;
                    break;
                case Feature::Month:
                    v = c.month;
                    break;
                case Feature::Rsi:
                    v = rsi[i];
                    break;
                case Feature::Cci:
                    v = cci[i];
                    break;
                case Feature::Atr:
                    v = atr[i];
                    break;
                case Feature::MacdMain:
                    v = md.main[i];
                    break;
                case Feature::MacdSignal:
                    v = md.signal[i];
                    break;
            }
            r[k] = v;
        }
    }
    return m;
}

}  // namespace nnwb
