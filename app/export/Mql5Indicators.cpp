#include "app/export/Mql5Indicators.h"

#include <stdexcept>

namespace nnwb::onnxexport {

namespace {

struct Helper {
    const char* name;
    std::vector<std::string> calls;  // helpers it calls
    const char* code;
};

// Values before an indicator's first value stay 0 (nnwb: NaN); the expert never reads them.
const std::vector<Helper>& helpers() {
    static const std::vector<Helper> kHelpers = {
        {"NnwbCloses", {}, R"MQL(// The closes of rates[0..n-1].
void NnwbCloses(const MqlRates &rates[], int n, double &out[])
  {
   ArrayResize(out, n);
   for(int i = 0; i < n; i++)
      out[i] = rates[i].close;
  }
)MQL"},
        {"NnwbRsiValue",
         {},
         R"MQL(// RSI from the average gain and loss: 100 when loss = 0 < gain, 50 when both are 0.
double NnwbRsiValue(double gain, double loss)
  {
   if(loss == 0.0)
      return gain > 0.0 ? 100.0 : 50.0;
   return 100.0 - 100.0 / (1.0 + gain / loss);
  }
)MQL"},
        {"NnwbRsi",
         {"NnwbRsiValue"},
         R"MQL(// RSI(period) of the close, Wilder (MT5's iRSI, nnwb's rsiWilder): first value at bar period.
void NnwbRsi(const MqlRates &rates[], int n, int period, double &out[])
  {
   ArrayResize(out, n);
   ArrayInitialize(out, 0.0);
   if(n < period + 1)
      return;
   double gain = 0.0, loss = 0.0;
   for(int i = 1; i <= period; i++)
     {
      double d = rates[i].close - rates[i - 1].close;
      if(d > 0)
         gain += MathAbs(d);
      else
         loss += MathAbs(d);
     }
   gain /= period;
   loss /= period;
   out[period] = NnwbRsiValue(gain, loss);
   for(int i = period + 1; i < n; i++)
     {
      double d = rates[i].close - rates[i - 1].close;
      gain = (gain * (period - 1) + (d > 0 ? d : 0.0)) / period;
      loss = (loss * (period - 1) + (d < 0 ? -d : 0.0)) / period;
      out[i] = NnwbRsiValue(gain, loss);
     }
  }
)MQL"},
        {"NnwbCci",
         {},
         R"MQL(// CCI(period) of the typical price (MT5's iCCI, nnwb's cciTypical): first value at bar period-1.
void NnwbCci(const MqlRates &rates[], int n, int period, double &out[])
  {
   ArrayResize(out, n);
   ArrayInitialize(out, 0.0);
   double tp[];
   ArrayResize(tp, n);
   for(int i = 0; i < n; i++)
      tp[i] = (rates[i].high + rates[i].low + rates[i].close) / 3.0;
   for(int i = period - 1; i < n; i++)
     {
      double sma = 0.0;
      for(int j = i + 1 - period; j <= i; j++)
         sma += tp[j];
      sma /= period;
      double mad = 0.0;
      for(int j = i + 1 - period; j <= i; j++)
         mad += MathAbs(tp[j] - sma);
      mad /= period;
      out[i] = mad > 0.0 ? (tp[i] - sma) / (0.015 * mad) : 0.0;
     }
  }
)MQL"},
        {"NnwbRatio",
         {},
         R"MQL(// a / b, and 0 where b is not above 0 (nnwb's ratio in model/data/Features.cpp; the
// buffers here hold 0, never NaN, before their warm-up).
double NnwbRatio(double a, double b)
  {
   return b > 0.0 ? a / b : 0.0;
  }
)MQL"},
        {"NnwbAtrStart",
         {},
         R"MQL(// The start of an ATR(period): out sized n and 0; the true ranges in tr (tr[0] = 0), with
// h, l = high[i], low[i] and c = close[i-1]: max(h, c) - min(l, c) (MT5's iATR), or Wilder's
// max(h - l, |h - c|, |l - c|). False when n < period + 1 (no value).
bool NnwbAtrStart(const MqlRates &rates[], int n, int period, bool wilder, double &out[], double &tr[])
  {
   ArrayResize(out, n);
   ArrayInitialize(out, 0.0);
   if(n < period + 1)
      return false;
   ArrayResize(tr, n);
   ArrayInitialize(tr, 0.0);
   for(int i = 1; i < n; i++)
     {
      double h = rates[i].high, l = rates[i].low, c = rates[i - 1].close;
      tr[i] = wilder ? MathMax(h - l, MathMax(MathAbs(h - c), MathAbs(l - c))) : MathMax(h, c) - MathMin(l, c);
     }
   return true;
  }
)MQL"},
        {"NnwbAtrSma",
         {"NnwbAtrStart"},
         R"MQL(// ATR(period), MT5's iATR (nnwb's atrSma): the simple average of the last period true
// ranges; first value at bar period.
void NnwbAtrSma(const MqlRates &rates[], int n, int period, double &out[])
  {
   double tr[];
   if(!NnwbAtrStart(rates, n, period, false, out, tr))
      return;
   for(int i = period; i < n; i++)
     {
      double sum = 0.0;
      for(int j = i + 1 - period; j <= i; j++)
         sum += tr[j];
      out[i] = sum / period;
     }
  }
)MQL"},
        {"NnwbAtrWilder",
         {"NnwbAtrStart"},
         R"MQL(// ATR(period), textbook Wilder (nnwb's atrWilder): the mean of the first period true ranges,
// then atr = (atr*(period-1) + tr)/period; first value at bar period.
void NnwbAtrWilder(const MqlRates &rates[], int n, int period, double &out[])
  {
   double tr[];
   if(!NnwbAtrStart(rates, n, period, true, out, tr))
      return;
   double atr = 0.0;
   for(int i = 1; i <= period; i++)
      atr += tr[i];
   atr /= period;
   out[period] = atr;
   for(int i = period + 1; i < n; i++)
     {
      atr = (atr * (period - 1) + tr[i]) / period;
      out[i] = atr;
     }
  }
)MQL"},
        {"NnwbEmaFirst",
         {},
         R"MQL(// EMA(period) seeded with the first value (MT5's iMA, nnwb's emaSeededFirst):
// ema[0] = v[0], then ema = v*a + ema*(1-a), a = 2/(period+1).
void NnwbEmaFirst(const double &v[], int n, int period, double &out[])
  {
   ArrayResize(out, n);
   if(n < 1)
      return;
   double a = 2.0 / (period + 1.0);
   double e = v[0];
   out[0] = e;
   for(int i = 1; i < n; i++)
     {
      e = v[i] * a + e * (1.0 - a);
      out[i] = e;
     }
  }
)MQL"},
        {"NnwbEmaMean",
         {},
         R"MQL(// EMA(period) of v[start..n-1] seeded with the simple mean of its first period values
// (textbook, nnwb's emaSeries); first value at start+period-1.
void NnwbEmaMean(const double &v[], int n, int period, int start, double &out[])
  {
   ArrayResize(out, n);
   ArrayInitialize(out, 0.0);
   if(start + period > n)
      return;
   double sum = 0.0;
   for(int i = start; i < start + period; i++)
      sum += v[i];
   double e = sum / period;
   out[start + period - 1] = e;
   double a = 2.0 / (period + 1.0);
   for(int i = start + period; i < n; i++)
     {
      e += a * (v[i] - e);
      out[i] = e;
     }
  }
)MQL"},
        {"NnwbMacdMt5",
         {"NnwbCloses", "NnwbEmaFirst"},
         R"MQL(// MACD(fast, slow, signal), MT5's iMACD (nnwb's macdMt5): main = EMA(fast) - EMA(slow) with
// EMAs seeded with the first close, from bar max(fast,slow)-1; signal = SMA(main, signal).
void NnwbMacdMt5(const MqlRates &rates[], int n, int fast, int slow, int signal, double &macd[], double &sig[])
  {
   double c[];
   double ef[];
   double es[];
   NnwbCloses(rates, n, c);
   NnwbEmaFirst(c, n, fast, ef);
   NnwbEmaFirst(c, n, slow, es);
   ArrayResize(macd, n);
   ArrayResize(sig, n);
   ArrayInitialize(sig, 0.0);
   for(int i = 0; i < n; i++)
      macd[i] = ef[i] - es[i];
   int first = (fast > slow ? fast : slow) - 1 + signal - 1;
   for(int i = first; i < n; i++)
     {
      double sum = 0.0;
      for(int j = i + 1 - signal; j <= i; j++)
         sum += macd[j];
      sig[i] = sum / signal;
     }
  }
)MQL"},
        {"NnwbMacdTextbook",
         {"NnwbCloses", "NnwbEmaMean"},
         R"MQL(// MACD(fast, slow, signal), textbook (nnwb's macd): EMAs seeded with the mean of their first
// closes, main from bar max(fast,slow)-1; signal = EMA(main, signal) seeded the same way.
void NnwbMacdTextbook(const MqlRates &rates[], int n, int fast, int slow, int signal, double &macd[], double &sig[])
  {
   double c[];
   double ef[];
   double es[];
   NnwbCloses(rates, n, c);
   NnwbEmaMean(c, n, fast, 0, ef);
   NnwbEmaMean(c, n, slow, 0, es);
   int start = (fast > slow ? fast : slow) - 1;
   ArrayResize(macd, n);
   ArrayInitialize(macd, 0.0);
   for(int i = start; i < n; i++)
      macd[i] = ef[i] - es[i];
   NnwbEmaMean(macd, n, signal, start, sig);
  }
)MQL"},
    };
    return kHelpers;
}

const Helper& find(const std::string& name) {
    for (const Helper& h : helpers())
        if (name == h.name) return h;
    throw std::invalid_argument("no MQL5 helper function '" + name + "'");
}

void emit(const std::string& name, std::vector<std::string>& done, std::string& out) {
    for (const auto& d : done)
        if (d == name) return;
    const Helper& h = find(name);
    for (const auto& c : h.calls) emit(c, done, out);
    done.push_back(name);
    out += std::string(h.code) + "\n";
}

}  // namespace

std::string mql5Helpers(const std::vector<std::string>& names) {
    std::vector<std::string> done;
    std::string out;
    for (const auto& n : names) emit(n, done, out);
    return out;
}

}  // namespace nnwb::onnxexport
