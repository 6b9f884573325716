#include "model/trading/TradeSimulator.h"

#include <cmath>
#include <limits>
#include <optional>

namespace nnwb {

double pricePoints(double price, double point) {
    const double x = price / point;
    const double whole = std::round(x);
    return std::fabs(x - whole) <= 1e-6 ? whole : x;
}

namespace {

// All prices in points (pricePoints); a long's levels are bid levels, a short's ask levels.
struct Position {
    int dir = 0;
    size_t signalBar = 0, entryBar = 0;
    double entry = 0;  // the entry fill, points
    double spreadAtEntry = 0;
    std::optional<double> stop, take;
    double atr = 0;
    size_t timeExitBar = std::numeric_limits<size_t>::max();
};

class Simulation {
public:
    Simulation(const BarSeries& b, const TradeMarket& m) : b_(b), m_(m) {}

    std::optional<Position> pos;
    SimulatedTrades out;

    // The spread at bar i's open (the previous bar's) or inside and at the close of bar i.
    double spreadAt(size_t i, bool atOpen) const { return m_.spread[atOpen ? i - 1 : i]; }

    // Buys at the ask (bid + spread) or sells at the bid at bar i's open, slippage against.
    void enter(size_t i, int dir, size_t holdBars) {
        Position p;
        p.dir = dir;
        p.signalBar = i - 1;
        p.entryBar = i;
        p.spreadAtEntry = spreadAt(i, true);
        const double open = pricePoints(b_.open[i], m_.point);
        p.entry = dir > 0 ? open + p.spreadAtEntry + m_.slippage : open - m_.slippage;
        const double atr = m_.atr.empty() ? std::nan("") : m_.atr[i - 1];
        if (std::isfinite(atr) && (m_.stopAtr > 0 || m_.takeAtr > 0)) {
            p.atr = atr;
            if (m_.stopAtr > 0) p.stop = p.entry - dir * m_.stopAtr * atr / m_.point;
            if (m_.takeAtr > 0) p.take = p.entry + dir * m_.takeAtr * atr / m_.point;
        }
        if (holdBars > 0) p.timeExitBar = i + holdBars;
        pos = p;
    }

    // Closes at `level` (points) of bar i: a bid level for a long, an ask level for a short.
    void close(size_t i, double level, ExitReason why, bool atOpen) {
        const Position& p = *pos;
        Trade t;
        t.direction = p.dir;
        t.signalBar = p.signalBar;
        t.entryBar = p.entryBar;
        t.exitBar = i;
        t.entryTime = b_.time[p.entryBar];
        t.exitTime = b_.time[i];
        const double exit = level - p.dir * m_.slippage;
        t.entryPrice = p.entry * m_.point;
        t.exitPrice = exit * m_.point;
        t.exitReason = why;
        t.atr = p.atr;
        t.stopLevel = p.stop ? *p.stop * m_.point : 0.0;
        t.takeLevel = p.take ? *p.take * m_.point : 0.0;
        t.bars = i - p.entryBar + (atOpen ? 0 : 1);
        t.spread = p.dir > 0 ? p.spreadAtEntry : spreadAt(i, atOpen);
        t.net = p.dir * (exit - p.entry) - m_.commission;
        t.cost = t.spread + 2 * m_.slippage + m_.commission;
        t.gross = t.net + t.cost;
        const double pct = 100 / p.entry;  // points / entry points = the price's fraction
        t.netPct = t.net * pct;
        t.grossPct = t.gross * pct;
        t.costPct = t.cost * pct;
        realized_ += t.net;
        realizedPct_ += t.netPct;
        out.trades.push_back(t);
        pos.reset();
    }

    // The level (points) at which the position leaves at bar i's bid price `bid`: the bid for
    // a long, the ask for a short, with the open's or the bar's spread.
    double exitLevel(size_t i, double bid, bool atOpen) const {
        const double x = pricePoints(bid, m_.point);
        return pos->dir > 0 ? x : x + spreadAt(i, atOpen);
    }

    // A stop or take that bar i's open reaches ("x reaches level against the trade":
    // d * (x - level) <= 0): out at that open. `atOpen`: before the entries (step 1).
    bool openThroughLevel(size_t i, bool atOpen) {
        const Position& p = *pos;
        const double o = exitLevel(i, b_.open[i], true);
        if (p.stop && p.dir * (o - *p.stop) <= 0)
            return close(i, o, ExitReason::Stop, atOpen), true;
        if (p.take && p.dir * (o - *p.take) >= 0)
            return close(i, o, ExitReason::Take, atOpen), true;
        return false;
    }

    // Stop and take inside bar i; both levels in the bar: the stop.
    void checkRange(size_t i) {
        if (openThroughLevel(i, false)) return;
        const Position& p = *pos;
        const double d = p.dir;
        const double worst = exitLevel(i, d > 0 ? b_.low[i] : b_.high[i], false);
        const double best = exitLevel(i, d > 0 ? b_.high[i] : b_.low[i], false);
        if (p.stop && d * (worst - *p.stop) <= 0) return close(i, *p.stop, ExitReason::Stop, false);
        if (p.take && d * (best - *p.take) >= 0) return close(i, *p.take, ExitReason::Take, false);
    }

    void mark(size_t i) {
        double net = realized_, pct = realizedPct_;
        if (pos) {
            const double fill = exitLevel(i, b_.close[i], false) - pos->dir * m_.slippage;
            const double open = pos->dir * (fill - pos->entry) - m_.commission;
            net += open;
            pct += open * 100 / pos->entry;
        }
        TradingEquity& e = out.equity;
        e.bar.push_back(i);
        e.time.push_back(b_.time[i]);
        e.position.push_back(pos ? pos->dir : 0);
        e.points.push_back(net);
        e.pct.push_back(pct);
    }

private:
    const BarSeries& b_;
    const TradeMarket& m_;
    double realized_ = 0, realizedPct_ = 0;
};

}  // namespace

SimulatedTrades simulateTrades(const BarSeries& bars, const TradeMarket& market, size_t first,
                               size_t last,
                               const std::function<TradeOrder(size_t t, int position)>& decide) {
    Simulation s(bars, market);
    TradeOrder order;
    for (size_t i = first; i <= last; ++i) {
        if (i > first) {
            if (s.pos) s.openThroughLevel(i, true);
            if (s.pos && (order.close || s.pos->timeExitBar == i))
                s.close(i, s.exitLevel(i, bars.open[i], true),
                        order.close ? ExitReason::Opposite : ExitReason::Time, true);
            if (!s.pos && order.enter != 0) s.enter(i, order.enter > 0 ? 1 : -1, order.holdBars);
        }
        if (s.pos) s.checkRange(i);
        if (i == last && s.pos)
            s.close(i, s.exitLevel(i, bars.close[i], false), ExitReason::End, false);
        s.mark(i);
        if (i < last) order = decide(i, s.pos ? s.pos->dir : 0);
    }
    return std::move(s.out);
}

}  // namespace nnwb
