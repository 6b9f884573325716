// Technical indicators used as bar features (EMA, RSI, ATR, CCI, MACD) in two sets of
// definitions: MetaTrader 5's built-in indicators ("mt5") and the textbook ones ("textbook").
// Each returns one value per input bar, NaN where the indicator has no value yet (warm-up);
// *Warmup() gives the first bar with a value (the same in both sets). Pure functions; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

// Textbook definitions ("textbook", the definitions of experiment files without `indicators`):
//   EMA(n):  alpha = 2/(n+1), seeded with the simple mean of the first n values.
//   RSI(n):  Wilder: average gain/loss of the first n changes, then avg = (avg*(n-1) + x)/n;
//            RSI = 100 - 100/(1 + gain/loss); 100 if loss == 0 < gain; 50 if both are 0.
//   ATR(n):  Wilder: true range (needs the previous close, so from bar 1); the mean of the
//            first n true ranges, then atr = (atr*(n-1) + tr)/n. (MT5's iATR uses an SMA.)
//   CCI(n):  typical price (h+l+c)/3; (tp - SMA(tp,n)) / (0.015 * mean |tp - SMA|); 0 when the
//            mean absolute deviation is 0.
//   MACD(f,s,g): main = EMA(close,f) - EMA(close,s); signal = EMA(main,g) over the defined part
//            of main. (MT5's iMACD uses an SMA for the signal line.)
// MetaTrader 5 definitions ("mt5": iRSI, iCCI, iATR, iMACD as in MT5's indicator sources):
//   RSI(n):  as textbook (simple average of the first n changes, then Wilder's smoothing).
//   CCI(n):  as textbook (SMA of the typical price, mean deviation, 0.015).
//   ATR(n):  the simple average of the last n true ranges, tr[i] = max(high[i], close[i-1]) -
//            min(low[i], close[i-1]) from bar 1; first value at bar n (true ranges 1..n).
//   MACD(f,s,g): EMAs seeded with the first close (ema[0] = close[0], then
//            ema += 2/(n+1) * (close - ema) on every bar); main = EMA(f) - EMA(s), shown from bar
//            s-1; signal = SMA(main, g), shown from bar s-1+g-1 (its window then holds main
//            values from bar s-1 on).

namespace nnwb {

enum class IndicatorDefinitions { Mt5, Textbook };
// "mt5" / "textbook".
const char* indicatorDefinitionsName(IndicatorDefinitions d);
bool parseIndicatorDefinitions(const std::string& name, IndicatorDefinitions& out);

std::vector<double> emaSeries(const std::vector<double>& x, int period, size_t start = 0);
std::vector<double> rsiWilder(const std::vector<double>& close, int period);
std::vector<double> atrWilder(const std::vector<double>& high, const std::vector<double>& low,
                              const std::vector<double>& close, int period);
std::vector<double> cciTypical(const std::vector<double>& high, const std::vector<double>& low,
                               const std::vector<double>& close, int period);
struct MacdSeries {
    std::vector<double> main, signal;
};
MacdSeries macd(const std::vector<double>& close, int fast, int slow, int signal);

// MetaTrader 5 variants (see above).
std::vector<double> atrSma(const std::vector<double>& high, const std::vector<double>& low,
                           const std::vector<double>& close, int period);
std::vector<double> emaSeededFirst(const std::vector<double>& x, int period);
MacdSeries macdMt5(const std::vector<double>& close, int fast, int slow, int signal);

// First index at which each indicator has a value.
inline size_t emaWarmup(int period, size_t start = 0) {
    return start + size_t(period) - 1;
}
inline size_t rsiWarmup(int period) {
    return size_t(period);
}
inline size_t atrWarmup(int period) {
    return size_t(period);
}
inline size_t cciWarmup(int period) {
    return size_t(period) - 1;
}
inline size_t macdMainWarmup(int fast, int slow) {
    return (fast > slow ? size_t(fast) : size_t(slow)) - 1;
}
inline size_t macdSignalWarmup(int fast, int slow, int signal) {
    return macdMainWarmup(fast, slow) + size_t(signal) - 1;
}

}  // namespace nnwb
