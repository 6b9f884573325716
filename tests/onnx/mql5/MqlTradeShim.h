// The MQL5 trading built-ins the generated expert's trading section uses (between the
// "nnwb:trading" markers of Mql5Trading.h), as C++ over a simulated broker, so that
// tst_mql5_trading can compile that MQL5 text with the system's c++ and replay real bars
// through it. The broker keeps at most one position, fills market orders at the current tick
// (bid or ask, slippage against), records every order (a recording CTrade), and closes the
// position at its stop or take when the harness moves the prices (see the harness in
// tst_mql5_trading.cpp). Prices are kept in points, as nnwb's simulation keeps them
// (model/trading/TradeSimulator.h), so that a price read back is the same number. Include
// MqlShim.h first. Single-threaded harness programs only.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using uint = unsigned int;

const string _Symbol = "NNWB";
const int _Period = 0;
inline int PeriodSeconds(int) {
    return 3600;
}
inline double MathRound(double x) {
    return std::round(x);
}
inline string IntegerToString(long long v) {
    return std::to_string(v);
}
inline void Print(const string& s) {
    std::fprintf(stderr, "%s\n", s.c_str());
}

enum ENUM_POSITION_PROPERTY {
    POSITION_SYMBOL,
    POSITION_MAGIC,
    POSITION_TYPE,
    POSITION_TIME,
    POSITION_PRICE_OPEN
};
enum ENUM_POSITION_TYPE { POSITION_TYPE_BUY = 0, POSITION_TYPE_SELL = 1 };
enum ENUM_SYMBOL_INFO { SYMBOL_POINT, SYMBOL_BID, SYMBOL_ASK };

namespace nnwb_mql {

struct Closed {
    int dir;
    long long entryBar, exitBar;
    double entry, exit;  // fills, points
    string reason;
    string by;  // "open" (the server, at the open), "range" (the server), "expert", "end"
};

// One symbol, one position at most; prices in points.
struct Broker {
    double point = 1e-5;
    double slippage = 0;      // points against every fill
    double bid = 0, ask = 0;  // the current tick
    long long bar = 0;        // the bar index of the current tick
    datetime barTime = 0;
    // The position.
    bool open = false;
    ulong ticket = 0, magic = 0;
    int dir = 0;
    long long entryBar = 0;
    datetime time = 0;
    double entry = 0, stop = 0, take = 0;  // 0: none
    std::vector<Closed> closed;
    std::vector<string> orders;  // what the expert sent, in order
    int refused = 0;             // orders the broker could not fill
    ulong nextTicket = 1;
    const string* reason = nullptr;  // the expert's reason for its market closes

    void close(double level, const string& why, const string& by) {
        closed.push_back({dir, entryBar, bar, entry, level - dir * slippage, why, by});
        open = false;
        stop = take = 0;
    }
};

inline Broker& broker() {
    static Broker b;
    return b;
}

}  // namespace nnwb_mql

inline int PositionsTotal() {
    return nnwb_mql::broker().open ? 1 : 0;
}
inline ulong PositionGetTicket(int k) {
    const auto& b = nnwb_mql::broker();
    return k == 0 && b.open ? b.ticket : 0;
}
inline string PositionGetString(ENUM_POSITION_PROPERTY) {
    return _Symbol;
}
inline long long PositionGetInteger(ENUM_POSITION_PROPERTY p) {
    const auto& b = nnwb_mql::broker();
    if (p == POSITION_MAGIC) return static_cast<long long>(b.magic);
    if (p == POSITION_TYPE) return b.dir > 0 ? POSITION_TYPE_BUY : POSITION_TYPE_SELL;
    if (p == POSITION_TIME) return b.time;
    return 0;
}
inline double PositionGetDouble(ENUM_POSITION_PROPERTY) {  // POSITION_PRICE_OPEN
    const auto& b = nnwb_mql::broker();
    return b.entry * b.point;
}
inline double SymbolInfoDouble(const string&, ENUM_SYMBOL_INFO p) {
    const auto& b = nnwb_mql::broker();
    return p == SYMBOL_POINT ? b.point : (p == SYMBOL_BID ? b.bid : b.ask) * b.point;
}

// CTrade's market orders, recorded and filled at the current tick.
class CTrade {
public:
    ulong magic = 0;
    void SetExpertMagicNumber(ulong m) { magic = m; }
    bool Buy(double lots, const string& symbol, double, double, double, const string&) {
        return market(1, lots, symbol);
    }
    bool Sell(double lots, const string& symbol, double, double, double, const string&) {
        return market(-1, lots, symbol);
    }
    bool PositionClose(ulong ticket, int) {
        auto& b = nnwb_mql::broker();
        b.orders.push_back("close " + std::to_string(ticket) + " at bar " + std::to_string(b.bar));
        if (!b.open || ticket != b.ticket) return ++b.refused, false;
        b.close(b.dir > 0 ? b.bid : b.ask, b.reason ? *b.reason : string("market"), "expert");
        return true;
    }
    uint ResultRetcode() const { return 10009; }

private:
    bool market(int dir, double lots, const string& symbol) {
        auto& b = nnwb_mql::broker();
        b.orders.push_back(string(dir > 0 ? "buy " : "sell ") + std::to_string(lots) + " " +
                           symbol + " at bar " + std::to_string(b.bar));
        if (b.open) return ++b.refused, false;  // one position: a second is refused
        b.open = true;
        b.ticket = b.nextTicket++;
        b.magic = magic;
        b.dir = dir;
        b.entryBar = b.bar;
        b.time = b.barTime;
        b.entry = dir > 0 ? b.ask + b.slippage : b.bid - b.slippage;
        return true;
    }
};
