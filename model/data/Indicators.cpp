#include "model/data/Indicators.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nnwb {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The start of an indicator over high, low and close: `out` has one NaN per bar (the shortest
// series'), `p` the period; false (nothing to compute) when the period is below 1 or there
// are fewer than period + `extra` bars.
bool hlcStart(const std::vector<double>& high, const std::vector<double>& low,
              const std::vector<double>& close, int period, size_t extra, std::vector<double>& out,
              size_t& p) {
    out.assign(std::min({high.size(), low.size(), close.size()}), kNaN);
    if (period < 1) return false;
    p = static_cast<size_t>(period);
    return out.size() >= p + extra;
}
}  // namespace

const char* indicatorDefinitionsName(IndicatorDefinitions d) {
    return d == IndicatorDefinitions::Mt5 ? "mt5" : "textbook";
}

bool parseIndicatorDefinitions(const std::string& name, IndicatorDefinitions& out) {
    if (name == "mt5")
        out = IndicatorDefinitions::Mt5;
    else if (name == "textbook")
        out = IndicatorDefinitions::Textbook;
    else
        return false;
    return true;
}

std::vector<double> emaSeries(const std::vector<double>& x, int period, size_t start) {
    std::vector<double> out(x.size(), kNaN);
    if (period < 1) return out;
    const size_t p = static_cast<size_t>(period);
    if (start + p > x.size()) return out;
    double sum = 0.0;
    for (size_t i = start; i < start + p; ++i) sum += x[i];
    double v = sum / period;
    out[start + p - 1] = v;
    const double alpha = 2.0 / (period + 1.0);
    for (size_t i = start + p; i < x.size(); ++i) {
        v += alpha * (x[i] - v);
        out[i] = v;
    }
    return out;
}

std::vector<double> rsiWilder(const std::vector<double>& close, int period) {
    std::vector<double> out(close.size(), kNaN);
    if (period < 1) return out;
    const size_t p = static_cast<size_t>(period);
    if (close.size() < p + 1) return out;
    auto rsi = [](double gain, double loss) {
        if (loss == 0.0) return gain > 0.0 ? 100.0 : 50.0;
        return 100.0 - 100.0 / (1.0 + gain / loss);
    };
    double gain = 0.0, loss = 0.0;
    for (size_t i = 1; i <= p; ++i) {
        const double d = close[i] - close[i - 1];
        (d > 0 ? gain : loss) += std::fabs(d);
    }
    gain /= period;
    loss /= period;
    out[p] = rsi(gain, loss);
    for (size_t i = p + 1; i < close.size(); ++i) {
        const double d = close[i] - close[i - 1];
        gain = (gain * (period - 1) + (d > 0 ? d : 0.0)) / period;
        loss = (loss * (period - 1) + (d < 0 ? -d : 0.0)) / period;
        out[i] = rsi(gain, loss);
    }
    return out;
}

std::vector<double> atrWilder(const std::vector<double>& high, const std::vector<double>& low,
                              const std::vector<double>& close, int period) {
    std::vector<double> out;
    size_t p = 0;
    if (!hlcStart(high, low, close, period, 1, out, p)) return out;
    const size_t n = out.size();
    auto tr = [&](size_t i) {
        return std::max({high[i] - low[i], std::fabs(high[i] - close[i - 1]),
                         std::fabs(low[i] - close[i - 1])});
    };
    double atr = 0.0;
    for (size_t i = 1; i <= p; ++i) atr += tr(i);
    atr /= period;
    out[p] = atr;
    for (size_t i = p + 1; i < n; ++i) {
        atr = (atr * (period - 1) + tr(i)) / period;
        out[i] = atr;
    }
    return out;
}

std::vector<double> cciTypical(const std::vector<double>& high, const std::vector<double>& low,
                               const std::vector<double>& close, int period) {
    std::vector<double> out;
    size_t p = 0;
    if (!hlcStart(high, low, close, period, 0, out, p)) return out;
    const size_t n = out.size();
    std::vector<double> tp(n);
    for (size_t i = 0; i < n; ++i) tp[i] = (high[i] + low[i] + close[i]) / 3.0;
    for (size_t i = p - 1; i < n; ++i) {
        double sma = 0.0;
        for (size_t j = i + 1 - p; j <= i; ++j) sma += tp[j];
        sma /= period;
        double mad = 0.0;
        for (size_t j = i + 1 - p; j <= i; ++j) mad += std::fabs(tp[j] - sma);
        mad /= period;
        out[i] = mad > 0.0 ? (tp[i] - sma) / (0.015 * mad) : 0.0;
    }
    return out;
}

MacdSeries macd(const std::vector<double>& close, int fast, int slow, int signal) {
    MacdSeries m;
    m.main.assign(close.size(), kNaN);
    m.signal.assign(close.size(), kNaN);
    if (fast < 1 || slow < 1 || signal < 1) return m;
    const std::vector<double> ef = emaSeries(close, fast);
    const std::vector<double> es = emaSeries(close, slow);
    const size_t start = macdMainWarmup(fast, slow);
    for (size_t i = start; i < close.size(); ++i) m.main[i] = ef[i] - es[i];
    if (start < close.size()) m.signal = emaSeries(m.main, signal, start);
    return m;
}

std::vector<double> atrSma(const std::vector<double>& high, const std::vector<double>& low,
                           const std::vector<double>& close, int period) {
    std::vector<double> out;
    size_t p = 0;
    if (!hlcStart(high, low, close, period, 1, out, p)) return out;
    const size_t n = out.size();
    std::vector<double> tr(n, 0.0);
    for (size_t i = 1; i < n; ++i)
        tr[i] = std::max(high[i], close[i - 1]) - std::min(low[i], close[i - 1]);
    for (size_t i = p; i < n; ++i) {
        double sum = 0.0;
        for (size_t j = i + 1 - p; j <= i; ++j) sum += tr[j];
        out[i] = sum / period;
    }
    return out;
}

std::vector<double> emaSeededFirst(const std::vector<double>& x, int period) {
    std::vector<double> out(x.size(), kNaN);
    if (period < 1 || x.empty()) return out;
    const double alpha = 2.0 / (period + 1.0);
    double v = x[0];
    out[0] = v;
    for (size_t i = 1; i < x.size(); ++i) {
        v = x[i] * alpha + v * (1.0 - alpha);
        out[i] = v;
    }
    return out;
}

MacdSeries macdMt5(const std::vector<double>& close, int fast, int slow, int signal) {
    MacdSeries m;
    const size_t n = close.size();
    m.main.assign(n, kNaN);
    m.signal.assign(n, kNaN);
    if (fast < 1 || slow < 1 || signal < 1) return m;
    const std::vector<double> ef = emaSeededFirst(close, fast);
    const std::vector<double> es = emaSeededFirst(close, slow);
    std::vector<double> all(n);
    for (size_t i = 0; i < n; ++i) all[i] = ef[i] - es[i];
    const size_t mainFirst = macdMainWarmup(fast, slow);
    const size_t signalFirst = macdSignalWarmup(fast, slow, signal);
    const size_t g = static_cast<size_t>(signal);
    for (size_t i = mainFirst; i < n; ++i) m.main[i] = all[i];
    for (size_t i = signalFirst; i < n; ++i) {
        double sum = 0.0;
        for (size_t j = i + 1 - g; j <= i; ++j) sum += all[j];
        m.signal[i] = sum / signal;
    }
    return m;
}

}  // namespace nnwb
