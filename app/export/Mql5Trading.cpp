#include "app/export/Mql5Trading.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nnwb::onnxexport {

namespace {

// The shortest text that reads back as v.
std::string mqlNumber(double v) {
    char buf[40];
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

std::string tradingInputs(const TradingSettings& s) {
    const long long deviation = std::llround(std::ceil(s.slippagePoints));
    std::string t;
    t += "input bool   InpTrade = true;            // false: print the signals, place no orders\n";
    t += "input double InpLots = 0.1;              // the volume of every position, in lots\n";
    t +=
        "input ulong  InpMagic = 7340301;         // the magic number of this expert's positions\n";
    t += "input double InpThreshold = " + mqlNumber(s.threshold) +
         "; // a buy or sell acts when its output is at least this\n";
    t += "input double InpMinAgreement = " + mqlNumber(s.minAgreement) +
         "; // an ensemble's buy or sell acts when at least this share of its members votes for "
         "it\n";
    t += std::string("input bool   InpExitOnOpposite = ") + (s.exitOnOpposite ? "true" : "false") +
         "; // an opposite signal closes at the next open\n";
    t += "input int    InpExitAfterBars = " + std::to_string(s.exitAfterBars) +
         "; // close at the open N bars after the entry bar; 0: never\n";
    t += "input double InpStopAtr = " + mqlNumber(s.stopAtr) +
         "; // stop at this many ATRs from the entry fill; 0: none\n";
    t += "input double InpTakeAtr = " + mqlNumber(s.takeAtr) +
         "; // take at this many ATRs from the entry fill; 0: none\n";
    t += "input int    InpAtrPeriod = " + std::to_string(s.atrPeriod) +
         "; // the ATR: the simple average of this many true ranges\n";
    t += "input int    InpSlippagePoints = " + std::to_string(deviation) +
         "; // the most a market order may slip (nnwb assumed " + mqlNumber(s.slippagePoints) +
         " points a fill)\n\n";
    return t;
}

}  // namespace

const std::vector<std::string>& mql5LiveDifferences() {
    static const std::vector<std::string> kLines{
        "Fills: nnwb fills at the bar's open price (plus its spread and slippage assumption); "
        "the expert's market orders fill at the first tick it sees of the new bar, at the "
        "broker's price then, and may be requoted or rejected (InpSlippagePoints is the most "
        "slippage accepted).",
        "Spread: nnwb charges the previous bar's recorded spread at an open (or the given "
        "spread); a live account charges the spread of the moment, which widens at rollover "
        "and news.",
        "Stop and take: nnwb fills them exactly at their levels (at the open after a gap) and, "
        "when a bar reaches both, assumes the stop; the expert rounds them to the symbol's "
        "digits (up to half a point apart) and the server fills them at the ticks that reach "
        "them, in the order they come.",
        "Costs nnwb leaves out: swap (overnight financing), the commission of the account "
        "(nnwb's is a fixed assumption in points), and currency conversion of profits.",
        "Money: nnwb counts points and percent of one unit, never lots, margin or a balance; "
        "the expert trades InpLots lots whether or not the margin allows it, and the account's "
        "stop-out can close it.",
        "History: the expert acts once per new bar on the bar that just closed, as nnwb; a "
        "restart, a missed bar or a position opened by hand (another magic number) is not "
        "replayed. Only one position per symbol and magic number is kept, as in nnwb.",
    };
    return kLines;
}

std::string mql5TradingGlue() {
    return R"MQL(CTrade g_trade;

// Sets the stop and take of the position `ticket` (in points of `point`; 0: none) on the
// symbol's price grid. Outside the trading section: only a terminal has CTrade's server side.
bool NnwbSetLevels(ulong ticket, double stop, double take, double point)
  {
   int digits = (int)SymbolInfoInteger(_Symbol, SYMBOL_DIGITS);
   double sl = stop != 0.0 ? NormalizeDouble(stop * point, digits) : 0.0;
   double tp = take != 0.0 ? NormalizeDouble(take * point, digits) : 0.0;
   if(g_trade.PositionModify(ticket, sl, tp))
      return true;
   PrintFormat("nnwb: setting stop %g and take %g failed, retcode %d", sl, tp,
               (int)g_trade.ResultRetcode());
   return false;
  }

)MQL";
}

std::string mql5TradingSection(const TradingSettings& s) {
    std::string t = std::string(kMql5TradingBegin) + "\n";
    t += "// The rules of nnwb's trade simulation (docs/trading.md), as this expert trades them.\n"
         "// The inputs' defaults are the experiment's trading settings at the export.\n";
    t += tradingInputs(s);
    t +=
        R"MQL(string g_nnwb_reason = ""; // why the expert last closed: opposite, time, stop or take

// A price in points of `point`: a whole number when within 1e-6 of one (nnwb's pricePoints).
double NnwbPoints(double price, double point)
  {
   double x = price / point;
   double whole = MathRound(x);
   return MathAbs(x - whole) <= 1e-6 ? whole : x;
  }

// The ATR of rates[i] (MetaTrader 5's: the mean of the last InpAtrPeriod true ranges, the bars
// up to i only), or -1 before it has a value.
double NnwbAtr(const MqlRates &rates[], int i)
  {
   if(InpAtrPeriod < 1 || i < InpAtrPeriod)
      return -1.0;
   double sum = 0.0;
   for(int j = i + 1 - InpAtrPeriod; j <= i; j++)
      sum += MathMax(rates[j].high, rates[j - 1].close) - MathMin(rates[j].low, rates[j - 1].close);
   return sum / InpAtrPeriod;
  }

// This expert's position on this symbol (selected), or 0 when it has none.
ulong NnwbPosition()
  {
   for(int k = PositionsTotal() - 1; k >= 0; k--)
     {
      ulong ticket = PositionGetTicket(k);
      if(ticket != 0 && PositionGetString(POSITION_SYMBOL) == _Symbol &&
         (ulong)PositionGetInteger(POSITION_MAGIC) == InpMagic)
         return ticket;
     }
   return 0;
  }

// The bars the selected position has been held at the open after rates[n-1]: the closed bars
// from its entry bar on.
int NnwbBarsHeld(const MqlRates &rates[], int n)
  {
   datetime opened = (datetime)PositionGetInteger(POSITION_TIME);
   int held = 0;
   for(int k = n - 1; k >= 0 && rates[k].time + PeriodSeconds(_Period) > opened; k--)
      held++;
   return held;
  }

// Closes `ticket` at the market, `why` the reason it prints.
bool NnwbClose(CTrade &trade, ulong ticket, string why)
  {
   g_nnwb_reason = why;
   if(trade.PositionClose(ticket, InpSlippagePoints))
      return true;
   Print("nnwb: closing (" + why + ") failed, retcode " + IntegerToString((int)trade.ResultRetcode()));
   return false;
  }

// At the first tick of a new bar, the signal of the bar that just closed (rates[n-1]; 0 none,
// 1 buy, 2 sell) and its output act as in nnwb at this bar's open: (1) a stop or take the
// open went through has already closed the position (the server's); (2) an opposite signal
// (with InpExitOnOpposite) or the time limit closes it; (3) when flat, a signal whose output
// is at least InpThreshold and whose agreement (an ensemble's share of members voting for it;
// 1 for one model) is at least InpMinAgreement enters, its stop and take that many ATRs of
// rates[n-1] from the entry fill (a level the market is already through closes it at once).
void NnwbTrade(const MqlRates &rates[], int n, int signal, double output, double agreement,
               CTrade &trade)
  {
   int dir = signal == 1 ? 1 : signal == 2 ? -1 : 0;
   ulong ticket = NnwbPosition();
   if(ticket != 0)
     {
      int pos = PositionGetInteger(POSITION_TYPE) == POSITION_TYPE_BUY ? 1 : -1;
      bool opposite = InpExitOnOpposite && dir == -pos;
      bool late = InpExitAfterBars > 0 && NnwbBarsHeld(rates, n) >= InpExitAfterBars;
      if(!opposite && !late)
         return;
      if(!NnwbClose(trade, ticket, opposite ? "opposite" : "time"))
         return;
     }
   if(dir == 0 || output < InpThreshold || agreement < InpMinAgreement)
      return;
   bool placed = dir > 0 ? trade.Buy(InpLots, _Symbol, 0.0, 0.0, 0.0, "nnwb")
                         : trade.Sell(InpLots, _Symbol, 0.0, 0.0, 0.0, "nnwb");
   ticket = placed ? NnwbPosition() : 0;
   if(ticket == 0)
     {
      Print("nnwb: the entry failed, retcode " + IntegerToString((int)trade.ResultRetcode()));
      return;
     }
   double atr = NnwbAtr(rates, n - 1);
   if(atr < 0.0 || (InpStopAtr <= 0.0 && InpTakeAtr <= 0.0))
      return;
   double point = SymbolInfoDouble(_Symbol, SYMBOL_POINT);
   double entry = NnwbPoints(PositionGetDouble(POSITION_PRICE_OPEN), point);
   double stop = InpStopAtr > 0.0 ? entry - dir * InpStopAtr * atr / point : 0.0;
   double take = InpTakeAtr > 0.0 ? entry + dir * InpTakeAtr * atr / point : 0.0;
   double now = NnwbPoints(SymbolInfoDouble(_Symbol, dir > 0 ? SYMBOL_BID : SYMBOL_ASK), point);
   if(InpStopAtr > 0.0 && dir * (now - stop) <= 0)
      NnwbClose(trade, ticket, "stop");
   else if(InpTakeAtr > 0.0 && dir * (now - take) >= 0)
      NnwbClose(trade, ticket, "take");
   else
      NnwbSetLevels(ticket, stop, take, point);
  }
)MQL";
    t += std::string(kMql5TradingEnd) + "\n";
    return t;
}

}  // namespace nnwb::onnxexport
