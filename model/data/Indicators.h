// Technical indicators used as bar features (EMA, RSI, ATR, CCI, MACD). Each returns one value
// per input bar, NaN where the indicator is not yet computable (warm-up); *Warmup() gives the
// first computable index. Pure functions; any thread.
#pragma once

#include <cstddef>
#include <vector>

// Definitions (documented because variants differ between platforms):
//   EMA(n):  alpha = 2/(n+1), seeded with the simple mean of the first n values.
//   RSI(n):  Wilder: average gain/loss of the first n changes, then avg = (avg*(n-1) + x)/n;
//            RSI = 100 - 100/(1 + gain/loss); 100 if loss == 0 < gain; 50 if both are 0.
//   ATR(n):  Wilder: true range (needs the previous close, so from bar 1); the mean of the
//            first n true ranges, then atr = (atr*(n-1) + tr)/n. (MT5's iATR uses an SMA.)
//   CCI(n):  typical price (h+l+c)/3; (tp - SMA(tp,n)) / (0.015 * mean |tp - SMA|); 0 when the
//            mean absolute deviation is 0.
//   MACD(f,s,g): main = EMA(close,f) - EMA(close,s); signal = EMA(main,g) over the defined part
//            of main. (MT5's iMACD uses an SMA for the signal line.)

namespace nnwb {

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
