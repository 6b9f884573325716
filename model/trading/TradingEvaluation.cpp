#include "model/trading/TradingEvaluation.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "model/Rng.h"
#include "model/data/BarImporter.h"
#include "model/data/Indicators.h"
#include "model/trading/RandomBand.h"
#include "model/trading/TradeSimulator.h"

namespace nnwb {

namespace {

[[noreturn]] void fail(const std::string& what) {
    throw TradingInputError(what);
}

std::string fileName(const BarSeries& bars) {
    return bars.source.empty() ? std::string("the bars") : baseName(bars.source);
}

void checkSettings(const TradingSettings& s) {
    for (const TradingSetting& t : tradingSettings()) {
        try {
            t.spec.check("trading", t.get(s));
        } catch (const std::invalid_argument& e) {
            fail(e.what());
        }
    }
}

void checkBars(const BarSeries& b) {
    const size_t n = b.size();
    if (n == 0) fail("bars: no bars to trade on");
    for (const auto* v : {&b.open, &b.high, &b.low, &b.close})
        if (v->size() != n) fail("bars: " + fileName(b) + " has columns of different lengths");
    if (b.hasSpread && b.spread.size() != n)
        fail("bars: " + fileName(b) + " has " + std::to_string(b.spread.size()) + " spreads for " +
             std::to_string(n) + " bars");
    for (size_t i = 1; i < n; ++i)
        if (b.time[i] <= b.time[i - 1])
            fail("bars: bar " + std::to_string(i) + " of " + fileName(b) +
                 " is not after the bar before it (bars must be in time order, oldest first)");
}

void checkSignals(const BarSeries& b, const SignalSeries& s) {
    if (s.empty()) fail("signals: no signals to evaluate");
    if (s.outputs.size() != s.size() || s.signal.size() != s.size())
        fail("signals: " + std::to_string(s.size()) + " bars but " +
             std::to_string(s.outputs.size()) + " outputs and " + std::to_string(s.signal.size()) +
             " signals");
    for (size_t k = 0; k < s.size(); ++k) {
        if (s.bar[k] >= b.size())
            fail("signals: bar " + std::to_string(s.bar[k]) + " is beyond the " +
                 std::to_string(b.size()) + " bars of " + fileName(b));
        if (k > 0 && s.bar[k] <= s.bar[k - 1])
            fail("signals: bar " + std::to_string(s.bar[k]) + " (entry " + std::to_string(k) +
                 ") does not come after bar " + std::to_string(s.bar[k - 1]) +
                 "; signals must be in bar order");
        if (s.signal[k] < 0 || s.signal[k] > 2)
            fail("signals: signal " + std::to_string(s.signal[k]) + " at bar " +
                 std::to_string(s.bar[k]) + " is not 0 (none), 1 (buy) or 2 (sell)");
    }
}

TradeMarket makeMarket(const BarSeries& b, const TradingSettings& s, TradingReport& report) {
    TradeMarket m;
    m.point = s.pointSize > 0 ? s.pointSize : b.point;
    if (!(m.point > 0))
        fail("trading.pointSize: " + fileName(b) +
             " has no point size (its bars were not read from a file); give one");
    m.slippage = s.slippagePoints;
    m.commission = s.commission;
    const bool fromFile = s.spreadSource == "file" && b.hasSpread;
    m.spread = fromFile ? b.spread : std::vector<double>(b.size(), s.spreadPoints);
    m.stopAtr = s.stopAtr;
    m.takeAtr = s.takeAtr;
    if (s.stopAtr > 0 || s.takeAtr > 0) m.atr = atrSma(b.high, b.low, b.close, s.atrPeriod);
    report.point = m.point;
    report.spreadFrom = fromFile ? "file" : "given";
    report.spreadPoints = s.spreadPoints;
    return m;
}

// A warning when the range's trades carry no spread (every bar's spread 0), saying why, and
// whether slippage and commission are 0 too (then the figures are before any cost).
void warnOfZeroCosts(const BarSeries& b, const TradingSettings& s, const TradeMarket& m,
                     TradingReport& r) {
    for (size_t i = r.firstBar; i <= r.lastBar; ++i)
        if (m.spread[i] != 0) return;
    std::string why = r.spreadFrom == "file" ? "the file's spread column is 0 on every bar"
                      : b.hasSpread          ? "trading.spreadPoints is 0"
                                             : "the file has no spread column and "
                                               "trading.spreadPoints is 0";
    if (s.slippagePoints == 0 && s.commission == 0)
        r.warnings.push_back("no trading costs: " + why +
                             ", and slippage and commission are 0; the figures are before costs "
                             "(give --spread, --slippage, --commission)");
    else
        r.warnings.push_back("no spread is charged: " + why);
}

double barsPerYear(const BarSeries& b, size_t first, size_t last) {
    const double years = double(b.time[last] - b.time[first]) / (365.25 * 86400);
    return years > 0 ? double(last - first) / years : 0.0;
}

// Appends `part` to `all`, its equity on top of the equity before it.
void appendRun(SimulatedTrades& all, const SimulatedTrades& part) {
    TradingEquity& e = all.equity;
    const double points = e.points.empty() ? 0.0 : e.points.back();
    const double pct = e.pct.empty() ? 0.0 : e.pct.back();
    all.trades.insert(all.trades.end(), part.trades.begin(), part.trades.end());
    const TradingEquity& p = part.equity;
    for (size_t i = 0; i < p.bar.size(); ++i) {
        e.bar.push_back(p.bar[i]);
        e.time.push_back(p.time[i]);
        e.position.push_back(p.position[i]);
        e.points.push_back(points + p.points[i]);
        e.pct.push_back(pct + p.pct[i]);
    }
}

// The signals from..to (consecutive bars) traded over their bars.
SimulatedTrades runSignals(const BarSeries& b, const TradeMarket& m, const SignalSeries& sig,
                           size_t from, size_t to, const TradingSettings& s) {
    size_t k = from;
    auto decide = [&](size_t t, int position) {
        TradeOrder o;
        while (k < sig.size() && sig.bar[k] < t) ++k;
        if (k == sig.size() || sig.bar[k] != t || sig.signal[k] == 0) return o;
        const int dir = sig.signal[k] == 1 ? 1 : -1;
        const bool acts = sig.outputs[k][size_t(sig.signal[k])] >= s.threshold &&
                          double(sig.agreementAt(k)) >= s.minAgreement;
        o.close = position == -dir && s.exitOnOpposite;
        o.enter = acts ? dir : 0;
        o.holdBars = size_t(s.exitAfterBars);
        return o;
    };
    return simulateTrades(b, m, sig.bar[from], sig.bar[to], decide);
}

// The strategy's orders: the signal of bar t (none without one) against the position. Each
// run of consecutive signal bars is traded as a range of its own (a walk-forward whose step
// leaves untested bars between its test windows); the bars between runs are flat.
SimulatedTrades runStrategy(const BarSeries& b, const TradeMarket& m, const SignalSeries& sig,
                            const TradingSettings& s) {
    SimulatedTrades all;
    for (size_t from = 0; from < sig.size();) {
        size_t to = from;
        while (to + 1 < sig.size() && sig.bar[to + 1] == sig.bar[to] + 1) ++to;
        if (from > 0) {  // the untested bars before this run: flat, the equity unchanged
            SimulatedTrades gap;
            for (size_t i = sig.bar[from - 1] + 1; i < sig.bar[from]; ++i) {
                gap.equity.bar.push_back(i);
                gap.equity.time.push_back(b.time[i]);
                gap.equity.position.push_back(0);
                gap.equity.points.push_back(0.0);
                gap.equity.pct.push_back(0.0);
            }
            appendRun(all, gap);
        }
        appendRun(all, runSignals(b, m, sig, from, to, s));
        from = to + 1;
    }
    return all;
}

// A fixed plan: at signal bar plan[k].first enter plan[k].second.
struct Planned {
    size_t signalBar;
    int dir;
    size_t hold;
};

SimulatedTrades runPlan(const BarSeries& b, const TradeMarket& m, size_t first, size_t last,
                        const std::vector<Planned>& plan) {
    size_t k = 0;
    auto decide = [&](size_t t, int) {
        TradeOrder o;
        while (k < plan.size() && plan[k].signalBar < t) ++k;
        if (k < plan.size() && plan[k].signalBar == t)
            o.enter = plan[k].dir, o.holdBars = plan[k].hold;
        return o;
    };
    return simulateTrades(b, m, first, last, decide);
}

// K trades with the strategy's holding times in a random order, random directions, at random
// places that do not overlap: entries in [first + 1, last], sorted uniform offsets into the
// free bars.
std::vector<Planned> randomPlan(Rng& rng, std::vector<size_t> holds, size_t first, size_t last) {
    const size_t avail = last - first;
    size_t used = 0;
    for (size_t h : holds) used += h;
    const size_t free = avail > used ? avail - used : 0;
    for (size_t i = holds.size(); i > 1; --i) std::swap(holds[i - 1], holds[rng.below(i)]);
    std::vector<size_t> offset(holds.size());
    for (size_t& o : offset) o = rng.below(free + 1);
    std::sort(offset.begin(), offset.end());
    std::vector<Planned> plan;
    size_t before = 0;
    for (size_t k = 0; k < holds.size(); ++k) {
        const size_t entry = first + 1 + offset[k] + before;
        before += holds[k];
        plan.push_back({entry - 1, rng.uniform() < 0.5 ? 1 : -1, holds[k]});
    }
    return plan;
}

// The figures the random baseline averages over its draws (the profit factor is pooled).
using Figure = double TradingFigures::*;
const Figure kMeanFigures[] = {&TradingFigures::trades,
                               &TradingFigures::winRate,
                               &TradingFigures::netPoints,
                               &TradingFigures::netPct,
                               &TradingFigures::perTradePoints,
                               &TradingFigures::perTradePct,
                               &TradingFigures::maxDrawdownPoints,
                               &TradingFigures::maxDrawdownPct,
                               &TradingFigures::sharpe,
                               &TradingFigures::sortino,
                               &TradingFigures::sharpeAnnual,
                               &TradingFigures::sortinoAnnual,
                               &TradingFigures::exposure,
                               &TradingFigures::returns,
                               &TradingFigures::skewness,
                               &TradingFigures::kurtosis};

void randomBaseline(const BarSeries& b, const TradeMarket& m, const TradingSettings& s,
                    TradingReport& r) {
    std::vector<size_t> holds;
    for (const Trade& t : r.trades) holds.push_back(t.bars);
    Rng rng(s.randomSeed);
    TradingFigures mean;
    double won = 0, lost = 0, atOrAbove = 0;
    const int draws = s.randomDraws;
    BandCollector band(r.equity.points.size());
    for (int d = 0; d < draws; ++d) {
        const auto plan = randomPlan(rng, holds, r.firstBar, r.lastBar);
        const SimulatedTrades sim = runPlan(b, m, r.firstBar, r.lastBar, plan);
        const TradingFigures f = tradingFigures(sim.trades, sim.equity, r.barsPerYear);
        for (const Trade& t : sim.trades) (t.net > 0 ? won : lost) += std::fabs(t.net);
        atOrAbove += f.netPoints >= r.strategy.netPoints ? 1 : 0;
        band.add(sim.equity.points);
        for (Figure fig : kMeanFigures) mean.*fig += f.*fig;
    }
    for (Figure fig : kMeanFigures) mean.*fig /= draws;
    mean.profitFactor = profitFactorOf(won, lost);
    r.random = mean;
    r.randomDraws = draws;
    r.randomNetAtOrAbove = r.trades.empty() ? kNotAvailable : atOrAbove / draws;
    r.randomBand = band.band();
}

}  // namespace

TradingReport evaluateTrading(const BarSeries& bars, const SignalSeries& signals,
                              const TradingSettings& settings) {
    checkSettings(settings);
    checkBars(bars);
    checkSignals(bars, signals);
    TradingReport r;
    const TradeMarket market = makeMarket(bars, settings, r);
    r.firstBar = signals.bar.front();
    r.lastBar = signals.bar.back();
    r.barsPerYear = barsPerYear(bars, r.firstBar, r.lastBar);
    warnOfZeroCosts(bars, settings, market, r);

    SimulatedTrades strategy = runStrategy(bars, market, signals, settings);
    r.strategy = tradingFigures(strategy.trades, strategy.equity, r.barsPerYear);
    r.trades = std::move(strategy.trades);
    r.equity = std::move(strategy.equity);

    TradeMarket plain = market;  // buy-and-hold: no stop, no take
    plain.stopAtr = plain.takeAtr = 0;
    const SimulatedTrades hold = runPlan(bars, plain, r.firstBar, r.lastBar, {{r.firstBar, 1, 0}});
    r.buyAndHold = tradingFigures(hold.trades, hold.equity, r.barsPerYear);
    r.buyAndHoldPoints = hold.equity.points;

    randomBaseline(bars, market, settings, r);
    return r;
}

}  // namespace nnwb
