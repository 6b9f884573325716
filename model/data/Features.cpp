#include "model/data/Features.h"

#include <algorithm>
#include <cmath>

#include "model/data/DateTime.h"
#include "model/data/Indicators.h"

namespace nnwb {

namespace {

// The one table of features, in enum order.
const FeatureInfo kInfo[kFeatureKinds] = {
    {"closeOpen", "Close − open", "close - open", "price units", false},
    {"highOpen", "High − open", "high - open", "price units, >= 0", false},
    {"lowOpen", "Low − open", "low - open", "price units, <= 0", false},
    {"tickVolume", "Tick volume", "tick volume of the bar (MqlRates.tick_volume)", "count", false},
    {"hour", "Hour", "hour of the bar's open time", "0..23", true},
    {"dayOfWeek", "Day of week", "day of week of the bar's open time, 0 = Sunday", "0..6", true},
    {"month", "Month", "month of the bar's open time", "1..12", true},
    {"rsi", "RSI", "RSI(rsiPeriod) of the close, Wilder smoothing", "0..100", true},
    {"cci", "CCI", "CCI(cciPeriod) of the typical price (high + low + close) / 3", "dimensionless",
     true},
    {"atr", "ATR", "ATR(atrPeriod), average true range", "price units", false},
    {"macdMain", "MACD main", "EMA(close, macdFast) - EMA(close, macdSlow)", "price units", false},
    {"macdSignal", "MACD signal", "average of MACD main over macdSignalPeriod bars", "price units",
     false},
    {"closeOpenAtr", "(Close − open) / ATR", "(close - open) / ATR(atrPeriod)",
     "dimensionless, 0 when ATR is 0", true},
    {"highOpenAtr", "(High − open) / ATR", "(high - open) / ATR(atrPeriod)",
     "dimensionless, >= 0, 0 when ATR is 0", true},
    {"lowOpenAtr", "(Low − open) / ATR", "(low - open) / ATR(atrPeriod)",
     "dimensionless, <= 0, 0 when ATR is 0", true},
    {"closeReturn", "Return", "(close - previous close) / previous close",
     "fraction, 0 on the first bar", true},
    {"atrClose", "ATR / close", "ATR(atrPeriod) / close", "fraction", true},
    {"macdMainAtr", "MACD main / ATR", "MACD main / ATR(atrPeriod)",
     "dimensionless, 0 when ATR is 0", true},
    {"macdSignalAtr", "MACD signal / ATR", "MACD signal / ATR(atrPeriod)",
     "dimensionless, 0 when ATR is 0", true}};

// a / b, 0 when b is not above 0 (a ratio to an ATR or a close of 0 carries no information);
// NaN while a or b is (indicator warm-up).
double ratio(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return a + b;
    return b > 0.0 ? a / b : 0.0;
}

bool usesAtr(const FeatureSpec& s) {
    for (Feature f :
         {Feature::Atr, Feature::CloseOpenAtr, Feature::HighOpenAtr, Feature::LowOpenAtr,
          Feature::AtrClose, Feature::MacdMainAtr, Feature::MacdSignalAtr})
        if (s.isEnabled(f)) return true;
    return false;
}

}  // namespace

const FeatureInfo& featureInfo(Feature f) {
    static const FeatureInfo kUnknown{"?", "?", "?", "?", false};
    const int i = static_cast<int>(f);
    return i >= 0 && i < kFeatureKinds ? kInfo[i] : kUnknown;
}

const char* featureKey(Feature f) {
    return featureInfo(f).key;
}

bool featureFromKey(const std::string& key, Feature& out) {
    for (int i = 0; i < kFeatureKinds; ++i)
        if (key == kInfo[i].key) {
            out = static_cast<Feature>(i);
            return true;
        }
    return false;
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
    if (isEnabled(Feature::MacdSignal) || isEnabled(Feature::MacdSignalAtr))
        w = std::max(w, macdSignalWarmup(macdFast, macdSlow, macdSignal));
    if (isEnabled(Feature::MacdMainAtr)) w = std::max(w, macdMainWarmup(macdFast, macdSlow));
    if (usesAtr(*this)) w = std::max(w, atrWarmup(atrPeriod));
    if (isEnabled(Feature::CloseReturn)) w = std::max(w, size_t(1));
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
    if (usesAtr(spec))
        atr = mt5 ? atrSma(b.high, b.low, b.close, spec.atrPeriod)
                  : atrWilder(b.high, b.low, b.close, spec.atrPeriod);
    if (spec.isEnabled(Feature::MacdMain) || spec.isEnabled(Feature::MacdSignal) ||
        spec.isEnabled(Feature::MacdMainAtr) || spec.isEnabled(Feature::MacdSignalAtr))
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
                case Feature::CloseOpenAtr:
                    v = ratio(b.close[i] - b.open[i], atr[i]);
                    break;
                case Feature::HighOpenAtr:
                    v = ratio(b.high[i] - b.open[i], atr[i]);
                    break;
                case Feature::LowOpenAtr:
                    v = ratio(b.low[i] - b.open[i], atr[i]);
                    break;
                case Feature::CloseReturn:
                    v = i == 0 ? 0.0 : ratio(b.close[i] - b.close[i - 1], b.close[i - 1]);
                    break;
                case Feature::AtrClose:
                    v = ratio(atr[i], b.close[i]);
                    break;
                case Feature::MacdMainAtr:
                    v = ratio(md.main[i], atr[i]);
                    break;
                case Feature::MacdSignalAtr:
                    v = ratio(md.signal[i], atr[i]);
                    break;
            }
            r[k] = v;
        }
    }
    return m;
}

}  // namespace nnwb
