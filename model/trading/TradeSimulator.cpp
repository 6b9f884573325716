#include "model/trading/TradeSimulator.h"

#include <cmath>
#include <limits>
#include <optional>

namespace nnwb {

namespace {

struct Position {
    int dir = 0;
    size_t signalBar = 0, entryBar = 0;
    double entryPrice = 0;
    double spreadAtEntry = 0;
    std::optional<double> stop, take;  // bid levels for a long, ask levels for a short
    double atr = 0;
    size_t timeExitBar = std::numeric_limits<size_t>::max();
};

class Simulation {
public:
    Simulation(const BarSeries& b, const TradeMarket& m) : b_(b), m_(m) {}

    std::optional<Position> pos;
    SimulatedTrades out;

    // Buys at the ask (bid + spread) or sells at the bid at bar i's open, slippage against.
    void enter(size_t i, int dir, size_t holdBars) {
        Position p;
        p.dir = dir;
        p.signalBar = i - 1;
        p.entryBar = i;
        p.spreadAtEntry = m_.spread[i];
        p.entryPrice = dir > 0 ? b_.open[i] + (m_.spread[i] + m_.slippage) * m_.point
                               : b_.open[i] - m_.slippage * m_.point;
        const double atr = m_.atr.empty() ? std::nan("") : m_.atr[i - 1];
        if (std::isfinite(atr) && (m_.stopAtr > 0 || m_.takeAtr > 0)) {
            p.atr = atr;
            if (m_.stopAtr > 0) p.stop = p.entryPrice - dir * m_.stopAtr * atr;
            if (m_.takeAtr > 0) p.take = p.entryPrice + dir * m_.takeAtr * atr;
        }
        if (holdBars > 0) p.timeExitBar = i + holdBars;
        pos = p;
    }

    // Closes at `level` of bar i: a bid price for a long, an ask price for a short.
    void close(size_t i, double level, ExitReason why, bool atOpen) {
        const Position& p = *pos;
        Trade t;
        t.direction = p.dir;
        t.signalBar = p.signalBar;
        t.entryBar = p.entryBar;
        t.exitBar = i;
        t.entryTime = b_.time[p.entryBar];
        t.exitTime = b_.time[i];
        t.entryPrice = p.entryPrice;
        t.exitPrice = level - p.dir * m_.slippage * m_.point;
        t.exitReason = why;
        t.atr = p.atr;
        t.stopLevel = p.stop.value_or(0.0);
        t.takeLevel = p.take.value_or(0.0);
        t.bars = i - p.entryBar + (atOpen ? 0 : 1);
        t.spread = p.dir > 0 ? p.spreadAtEntry : m_.spread[i];
        t.net = p.dir * (t.exitPrice - t.entryPrice) / m_.point - m_.commission;
        t.cost = t.spread + 2 * m_.slippage + m_.commission;
        t.gross = t.net + t.cost;
        const double pct = m_.point / t.entryPrice * 100;
        t.netPct = t.net * pct;
        t.grossPct = t.gross * pct;
        t.costPct = t.cost * pct;
        realized_ += t.net;
        realizedPct_ += t.netPct;
        out.trades.push_back(t);
        pos.reset();
    }

    // The price at which a position leaves at bar i's `bid` price (an ask for a short).
    double exitLevel(size_t i, double bid) const {
        return pos->dir > 0 ? bid : bid + m_.spread[i] * m_.point;
    }

    // Stop and take inside bar i: a gap through a level fills at the open; both levels in the
    // bar: the stop.
    void checkLevels(size_t i) {
        const Position& p = *pos;
        const double d = p.dir;
        const double o = exitLevel(i, b_.open[i]);
        const double worst = exitLevel(i, d > 0 ? b_.low[i] : b_.high[i]);
        const double best = exitLevel(i, d > 0 ? b_.high[i] : b_.low[i]);
        // "x reaches level against the trade": d * (x - level) <= 0.
        if (p.stop && d * (o - *p.stop) <= 0) return close(i, o, ExitReason::Stop, false);
        if (p.take && d * (o - *p.take) >= 0) return close(i, o, ExitReason::Take, false);
        if (p.stop && d * (worst - *p.stop) <= 0) return close(i, *p.stop, ExitReason::Stop, false);
        if (p.take && d * (best - *p.take) >= 0) return close(i, *p.take, ExitReason::Take, false);
    }

    void mark(size_t i) {
        double net = realized_, pct = realizedPct_;
        if (pos) {
            const double fill = exitLevel(i, b_.close[i]) - pos->dir * m_.slippage * m_.point;
            const double open = pos->dir * (fill - pos->entryPrice) / m_.point - m_.commission;
            net += open;
            pct += open * m_.point / pos->entryPrice * 100;
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
            if (s.pos && (order.close || s.pos->timeExitBar == i))
                s.close(i, s.exitLevel(i, bars.open[i]),
                        order.close ? ExitReason::Opposite : ExitReason::Time, true);
            if (!s.pos && order.enter != 0) s.enter(i, order.enter > 0 ? 1 : -1, order.holdBars);
        }
        if (s.pos) s.checkLevels(i);
        if (i == last && s.pos) s.close(i, s.exitLevel(i, bars.close[i]), ExitReason::End, false);
        s.mark(i);
        if (i < last) order = decide(i, s.pos ? s.pos->dir : 0);
    }
    return std::move(s.out);
}

}  // namespace nnwb
