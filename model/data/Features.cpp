#include "model/data/Features.h"

#include <algorithm>
#include <cmath>

#include "model/data/DateTime.h"
#include "model/data/Indicators.h"

namespace nnwb {

namespace {

// The one table of features, in enum order.
const FeatureInfo kInfo[kFeatureKinds] = {
    {"closeOpen", "Close − open", "close - open", "price units", false,
     "Close - Open of the bar (price units)"},
    {"highOpen", "High − open", "high - open", "price units, >= 0", false,
     "High - Open of the bar (price units)"},
    {"lowOpen", "Low − open", "low - open", "price units, <= 0", false,
     "Low - Open of the bar (price units, <= 0)"},
    {"tickVolume", "Tick volume", "tick volume of the bar (MqlRates.tick_volume)", "count", false,
     "tick volume of the bar (MqlRates.tick_volume)"},
    {"hour", "Hour", "hour of the bar's open time", "0..23", true,
     "hour of the bar's open time, 0..23; {timeZone}"},
    {"dayOfWeek", "Day of week", "day of week of the bar's open time, 0 = Sunday", "0..6", true,
     "day of week of the bar's open time, 0 = Sunday .. 6 = Saturday "
     "(MqlDateTime.day_of_week); {timeZone}"},
    {"month", "Month", "month of the bar's open time", "1..12", true,
     "month of the bar's open time, 1..12; {timeZone}"},
    {"rsi", "RSI", "RSI(rsiPeriod) of the close, Wilder smoothing", "0..100", true,
     "RSI({rsiPeriod}) of Close, 0..100: average gain and loss of the first {rsiPeriod} changes, "
     "then Wilder smoothing avg = (avg*(n-1) + x)/n"},
    {"cci", "CCI", "CCI(cciPeriod) of the typical price (high + low + close) / 3", "dimensionless",
     true,
     "CCI({cciPeriod}) of the typical price (H+L+C)/3: (tp - SMA(tp)) / (0.015 * mean |tp - "
     "SMA(tp)|)"},
    {"atr", "ATR", "ATR(atrPeriod), average true range", "price units", false,
     "ATR({atrPeriod}): simple average of the true range over {atrPeriod} bars (as MT5's iATR)",
     "ATR({atrPeriod}), Wilder: the mean of the first {atrPeriod} true ranges, then atr = "
     "(atr*(n-1) + tr)/n (textbook; MT5's iATR uses a simple average instead)"},
    {"macdMain", "MACD main", "EMA(close, macdFast) - EMA(close, macdSlow)", "price units", false,
     "MACD({macdFast},{macdSlow}) main line EMA(Close,{macdFast}) - EMA(Close,{macdSlow}), "
     "{macdSeeding}"},
    {"macdSignal", "MACD signal", "average of MACD main over macdSignalPeriod bars", "price units",
     false,
     "MACD signal line, simple average of the main line over {macdSignalPeriod} bars (as MT5's "
     "iMACD SIGNAL_LINE)",
     "MACD signal line, EMA({macdSignalPeriod}) of the main line (textbook; MT5's iMACD "
     "SIGNAL_LINE is a simple average instead)"},
    {"closeOpenAtr", "(Close − open) / ATR", "(close - open) / ATR(atrPeriod)",
     "dimensionless, 0 when ATR is 0", true},
    {"highOpenAtr", "(High − open) / ATR", "(high - open) / ATR(atrPeriod)",
     "dimensionless, >= 0, 0 when ATR is 0", true},
    {"lowOpenAtr", "(Low − open) / ATR", "(low - open) / ATR(atrPeriod)",
     "dimensionless, <= 0, 0 when ATR is 0", true},
    {"closeReturn", "Return", "(close - previous close) / previous close",
     "fraction, 0 on the first bar", true,
     "(Close - previous Close) / previous Close of the bar (a fraction; 0 when the previous "
     "close is 0)"},
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
    static const FeatureInfo kUnknown{"?", "?", "?", "?", false, "?"};
    const int i = static_cast<int>(f);
    return i >= 0 && i < kFeatureKinds ? kInfo[i] : kUnknown;
}

std::string featureHelp(Feature f) {
    const FeatureInfo& i = featureInfo(f);
    return std::string(i.formula) + " (" + i.unit + ")" +
           (i.scaleFree ? "" : "; in the instrument's price scale");
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

namespace {

// The indicator series the enabled features read.
struct IndicatorSeries {
    std::vector<double> rsi, cci, atr;
    MacdSeries md;
};

IndicatorSeries indicatorsFor(const BarSeries& b, const FeatureSpec& spec) {
    IndicatorSeries s;
    // RSI and CCI: MT5's iRSI and iCCI follow the textbook definitions (Indicators.h).
    if (spec.isEnabled(Feature::Rsi)) s.rsi = rsiWilder(b.close, spec.rsiPeriod);
    if (spec.isEnabled(Feature::Cci)) s.cci = cciTypical(b.high, b.low, b.close, spec.cciPeriod);
    const bool mt5 = spec.definitions == IndicatorDefinitions::Mt5;
    if (usesAtr(spec))
        s.atr = mt5 ? atrSma(b.high, b.low, b.close, spec.atrPeriod)
                    : atrWilder(b.high, b.low, b.close, spec.atrPeriod);
    if (spec.isEnabled(Feature::MacdMain) || spec.isEnabled(Feature::MacdSignal) ||
        spec.isEnabled(Feature::MacdMainAtr) || spec.isEnabled(Feature::MacdSignalAtr))
        s.md = mt5 ? macdMt5(b.close, spec.macdFast, spec.macdSlow, spec.macdSignal)
                   : macd(b.close, spec.macdFast, spec.macdSlow, spec.macdSignal);
    return s;
}

// Feature f of bar i.
double featureValue(Feature f, const BarSeries& b, size_t i, const CalendarTime& c,
                    const IndicatorSeries& s) {
    switch (f) {
        case Feature::CloseOpen:
            return b.close[i] - b.open[i];
        case Feature::HighOpen:
            return b.high[i] - b.open[i];
        case Feature::LowOpen:
            return b.low[i] - b.open[i];
        case Feature::TickVolume:
            return b.volume[i];
        case Feature::Hour:
            return c.hour;
        case Feature::DayOfWeek:
            return c.dayOfWeek;
        case Feature::Month:
            return c.month;
        case Feature::Rsi:
            return s.rsi[i];
        case Feature::Cci:
            return s.cci[i];
        case Feature::Atr:
            return s.atr[i];
        case Feature::MacdMain:
            return s.md.main[i];
        case Feature::MacdSignal:
            return s.md.signal[i];
        case Feature::CloseOpenAtr:
            return ratio(b.close[i] - b.open[i], s.atr[i]);
        case Feature::HighOpenAtr:
            return ratio(b.high[i] - b.open[i], s.atr[i]);
        case Feature::LowOpenAtr:
            return ratio(b.low[i] - b.open[i], s.atr[i]);
        case Feature::CloseReturn:
            return i == 0 ? 0.0 : ratio(b.close[i] - b.close[i - 1], b.close[i - 1]);
        case Feature::AtrClose:
            return ratio(s.atr[i], b.close[i]);
        case Feature::MacdMainAtr:
            return ratio(s.md.main[i], s.atr[i]);
        case Feature::MacdSignalAtr:
            return ratio(s.md.signal[i], s.atr[i]);
    }
    return 0.0;
}

}  // namespace

FeatureMatrix computeFeatures(const BarSeries& b, const FeatureSpec& spec) {
    FeatureMatrix m;
    m.bars = b.size();
    const std::vector<Feature> act = spec.active();
    m.features = static_cast<int>(act.size());
    m.firstValid = spec.warmup();
    m.values.assign(m.bars * act.size(), 0.0);
    for (Feature f : act) m.names.push_back(featureKey(f));
    const IndicatorSeries series = indicatorsFor(b, spec);
    for (size_t i = 0; i < m.bars; ++i) {
        const CalendarTime c = toCalendar(b.time[i]);
        double* r = m.row(i);
        for (size_t k = 0; k < act.size(); ++k) r[k] = featureValue(act[k], b, i, c, series);
    }
    return m;
}

}  // namespace nnwb
