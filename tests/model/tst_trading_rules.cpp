// Trading evaluation (model/trading/TradingEvaluation.h, docs/trading.md): a scripted signal
// series on a ten-bar file whose every figure is worked out by hand below; each exit rule
// (opposite, time, stop, take, both in one bar, gaps, end); spread from the file's column vs
// a given spread; buy-and-hold; the random baseline's trade count and seed; no look-ahead
// (changing every bar after t changes nothing decided by t); bad input naming the setting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "model/Rng.h"
#include "model/trading/TradingEvaluation.h"
#include "model/trading/TradingReportText.h"

using namespace nnwb;
using nlohmann::json;

namespace {

constexpr double kTol = 1e-9;

struct Ohlc {
    double o, h, l, c, spread;
};

BarSeries makeBars(const std::vector<Ohlc>& rows, double point, bool withSpread = true) {
    BarSeries b;
    for (size_t i = 0; i < rows.size(); ++i) {
        b.time.push_back(1583143200 + int64_t(i) * 3600);  // 2020-03-02 10:00, hourly
        b.open.push_back(rows[i].o);
        b.high.push_back(rows[i].h);
        b.low.push_back(rows[i].l);
        b.close.push_back(rows[i].c);
        b.volume.push_back(0);
        if (withSpread) b.spread.push_back(rows[i].spread);
    }
    b.hasSpread = withSpread;
    b.point = point;
    b.timeframe = 3600;
    b.source = "/data/TEST.csv";
    return b;
}

// Ten bars, prices with two decimals (point 0.01), spread in points.
BarSeries tenBars(bool withSpread = true) {
    return makeBars({{10.00, 10.10, 9.90, 10.00, 2},
                     {10.00, 10.20, 9.95, 10.10, 2},
                     {10.10, 10.40, 10.05, 10.30, 3},
                     {10.30, 10.35, 10.10, 10.20, 2},
                     {10.20, 10.25, 9.80, 9.90, 4},
                     {9.90, 10.00, 9.60, 9.70, 2},
                     {9.70, 9.90, 9.65, 9.85, 2},
                     {9.85, 10.10, 9.80, 10.05, 2},
                     {10.05, 10.15, 9.95, 10.00, 3},
                     {10.00, 10.05, 9.90, 9.95, 2}},
                    0.01, withSpread);
}

// signal 1 buy, 2 sell, 0 none, with the output of that signal.
SignalSeries script(const std::vector<std::pair<int, float>>& s, size_t firstBar = 0) {
    SignalSeries out;
    for (size_t i = 0; i < s.size(); ++i) {
        std::array<float, 3> o{0.1f, 0.1f, 0.1f};
        o[size_t(s[i].first)] = s[i].second;
        out.add(firstBar + i, o, s[i].first);
    }
    return out;
}

// buy .7 | buy .6 (hold) | none | sell .8 (reverse) | sell .4 (below the threshold, hold) |
// buy .3 (opposite: closes, too weak to reverse) | sell .45 (too weak) | buy .9 | none | none
SignalSeries tenSignals() {
    return script({{1, .7f},
                   {1, .6f},
                   {0, .8f},
                   {2, .8f},
                   {2, .4f},
                   {1, .3f},
                   {2, .45f},
                   {1, .9f},
                   {0, .9f},
                   {0, .9f}});
}

TradingSettings scriptedSettings() {
    TradingSettings s;
    s.threshold = 0.5;
    s.slippagePoints = 1;
    s.commission = 0.5;
    return s;
}

std::string thrown(const BarSeries& b, const SignalSeries& s, const TradingSettings& t) {
    try {
        evaluateTrading(b, s, t);
    } catch (const TradingInputError& e) {
        return e.what();
    }
    return "";
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / double(v.size());
}

}  // namespace

TEST(TradingRules, scriptedSeriesEveryFigureByHand) {
    const TradingReport r = evaluateTrading(tenBars(), tenSignals(), scriptedSettings());
    ASSERT_EQ(r.firstBar, 0u);
    ASSERT_EQ(r.lastBar, 9u);
    ASSERT_EQ(r.point, 0.01);
    ASSERT_EQ(r.spreadFrom, "file");
    ASSERT_EQ(r.trades.size(), 3u);

    // 1. Long: buy on bar 0, in at bar 1's open at the ask: 10.00 + (spread 2 + slippage 1)
    //    points = 10.03; the sell on bar 3 closes at bar 4's open, bid 10.20 - 1 point = 10.19.
    //    Gross 20 points, cost 2 + 2 × 1 + 0.5 = 4.5, net 15.5.
    const Trade& a = r.trades[0];
    EXPECT_EQ(a.direction, 1);
    EXPECT_EQ(a.signalBar, 0u);
    EXPECT_EQ(a.entryBar, 1u);
    EXPECT_EQ(a.exitBar, 4u);
    EXPECT_EQ(a.entryTime, 1583143200 + 3600);
    EXPECT_NEAR(a.entryPrice, 10.03, kTol);
    EXPECT_NEAR(a.exitPrice, 10.19, kTol);
    EXPECT_EQ(a.exitReason, ExitReason::Opposite);
    EXPECT_EQ(a.bars, 3u);
    EXPECT_NEAR(a.gross, 20, kTol);
    EXPECT_NEAR(a.cost, 4.5, kTol);
    EXPECT_NEAR(a.net, 15.5, kTol);
    EXPECT_NEAR(a.netPct, 15.5 * 0.01 / 10.03 * 100, kTol);
    // 2. Short (the reversal at bar 4's open): sells at the bid 10.20 - 0.01 = 10.19; the weak
    //    buy on bar 5 closes it at bar 6's open at the ask 9.70 + (2 + 1) points = 9.73.
    //    Gross 50, cost 2 (bar 6's spread) + 2 + 0.5 = 4.5, net 45.5.
    const Trade& b = r.trades[1];
    EXPECT_EQ(b.direction, -1);
    EXPECT_EQ(b.entryBar, 4u);
    EXPECT_EQ(b.exitBar, 6u);
    EXPECT_NEAR(b.entryPrice, 10.19, kTol);
    EXPECT_NEAR(b.exitPrice, 9.73, kTol);
    EXPECT_EQ(b.exitReason, ExitReason::Opposite);
    EXPECT_EQ(b.bars, 2u);
    EXPECT_NEAR(b.spread, 2, kTol);
    EXPECT_NEAR(b.gross, 50, kTol);
    EXPECT_NEAR(b.net, 45.5, kTol);
    // 3. Long: buy on bar 7, in at bar 8's open at 10.05 + (bar 7's spread 2 + 1) points =
    //    10.08 (the spread at an open is the bar before's); still open at the end: out at bar
    //    9's close 9.95 - 0.01 = 9.94. Gross -10 (the bid 10.05 -> 9.95), cost 2 + 2 + 0.5,
    //    net -14.5.
    const Trade& c = r.trades[2];
    EXPECT_EQ(c.direction, 1);
    EXPECT_EQ(c.entryBar, 8u);
    EXPECT_EQ(c.exitBar, 9u);
    EXPECT_NEAR(c.entryPrice, 10.08, kTol);
    EXPECT_NEAR(c.exitPrice, 9.94, kTol);
    EXPECT_EQ(c.exitReason, ExitReason::End);
    EXPECT_EQ(c.bars, 2u);
    EXPECT_NEAR(c.spread, 2, kTol);
    EXPECT_NEAR(c.gross, -10, kTol);
    EXPECT_NEAR(c.cost, 4.5, kTol);
    EXPECT_NEAR(c.net, -14.5, kTol);

    // Equity at each close (the open trade as if closed there, all costs included).
    const std::vector<double> points{0, 5.5, 25.5, 15.5, 39, 61, 61, 61, 51.5, 46.5};
    ASSERT_EQ(r.equity.points.size(), points.size());
    for (size_t i = 0; i < points.size(); ++i) EXPECT_NEAR(r.equity.points[i], points[i], kTol);
    EXPECT_EQ(r.equity.position, (std::vector<int>{0, 1, 1, 1, -1, -1, 0, 0, 1, 0}));
    // With a point of 0.01, % of the entry price = points / entry price.
    const double p1 = 15.5 / 10.03, p2 = p1 + 45.5 / 10.19;
    const std::vector<double> pct{
        0,  5.5 / 10.03,      25.5 / 10.03,     p1, p1 + 23.5 / 10.19, p2, p2,
        p2, p2 - 9.5 / 10.08, p2 - 14.5 / 10.08};
    for (size_t i = 0; i < pct.size(); ++i) EXPECT_NEAR(r.equity.pct[i], pct[i], kTol);

    const TradingFigures& f = r.strategy;
    EXPECT_EQ(f.trades, 3);
    EXPECT_NEAR(f.winRate, 200.0 / 3, kTol);
    EXPECT_NEAR(f.profitFactor, 61 / 14.5, kTol);
    EXPECT_NEAR(f.netPoints, 46.5, kTol);
    EXPECT_NEAR(f.perTradePoints, 46.5 / 3, kTol);
    EXPECT_NEAR(f.netPct, pct[9], kTol);
    EXPECT_NEAR(f.perTradePct, pct[9] / 3, kTol);
    EXPECT_NEAR(f.maxDrawdownPoints, 14.5, kTol);  // 61 -> 46.5 (the earlier 25.5 -> 15.5: 10)
    EXPECT_NEAR(f.maxDrawdownPct, p2 - pct[9], kTol);
    EXPECT_NEAR(f.exposure, 70, kTol);  // bars 1-3, 4-5, 8-9
    // Sharpe and Sortino of the nine per-bar returns of the % equity.
    std::vector<double> ret;
    for (size_t i = 1; i < pct.size(); ++i) ret.push_back(pct[i] - pct[i - 1]);
    const double m = mean(ret);
    double sq = 0, down = 0;
    for (double x : ret) sq += (x - m) * (x - m), down += x < 0 ? x * x : 0;
    EXPECT_NEAR(f.sharpe, m / std::sqrt(sq / 8), kTol);
    EXPECT_NEAR(f.sortino, m / std::sqrt(down / 9), kTol);
    // Nine hourly steps over 9 hours: 9 / (9 h in years) steps a year.
    EXPECT_NEAR(r.barsPerYear, 365.25 * 24, 1e-6);
    EXPECT_NEAR(f.sharpeAnnual, f.sharpe * std::sqrt(365.25 * 24), 1e-6);
}

TEST(TradingRules, buyAndHoldOverTheSameRange) {
    // Long from bar 1's open at 10.03 to bar 9's close at 9.94: -9 - 0.5 = -9.5 points.
    const TradingReport r = evaluateTrading(tenBars(), tenSignals(), scriptedSettings());
    const TradingFigures& h = r.buyAndHold;
    EXPECT_EQ(h.trades, 1);
    EXPECT_EQ(h.winRate, 0);
    EXPECT_EQ(h.profitFactor, 0);
    EXPECT_NEAR(h.netPoints, -9.5, kTol);
    EXPECT_NEAR(h.netPct, -9.5 / 10.03, kTol);
    // Equity 0, 5.5, 25.5, 15.5, -14.5, -34.5, -19.5, 0.5, -4.5, -9.5: peak 25.5 to -34.5.
    EXPECT_NEAR(h.maxDrawdownPoints, 60, kTol);
    EXPECT_NEAR(h.exposure, 90, kTol);
}

TEST(TradingRules, spreadFromTheFileOrGiven) {
    TradingSettings s = scriptedSettings();
    s.spreadSource = "given";
    s.spreadPoints = 5;
    TradingReport r = evaluateTrading(tenBars(), tenSignals(), s);
    EXPECT_EQ(r.spreadFrom, "given");
    ASSERT_EQ(r.trades.size(), 3u);
    EXPECT_NEAR(r.trades[0].entryPrice, 10.06, kTol);  // 10.00 + (5 + 1) points
    EXPECT_NEAR(r.trades[0].net, 20 - 5 - 2 - 0.5, kTol);
    EXPECT_NEAR(r.trades[1].exitPrice, 9.76, kTol);  // short out at the ask 9.70 + (5 + 1)
    EXPECT_NEAR(r.trades[1].net, 50 - 5 - 2 - 0.5, kTol);
    // A file without a spread column: "file" takes the given spread.
    s.spreadSource = "file";
    r = evaluateTrading(tenBars(false), tenSignals(), s);
    EXPECT_EQ(r.spreadFrom, "given");
    EXPECT_NEAR(r.trades[0].net, 12.5, kTol);
    // The column's spreads at the fills' opens (bars 0, 5 and 7: 2 each) are what the
    // scripted test used.
    r = evaluateTrading(tenBars(), tenSignals(), s);
    EXPECT_NEAR(r.trades[2].cost, 2 + 2 + 0.5, kTol);
    // No costs at all: net = gross.
    r = evaluateTrading(tenBars(false), tenSignals(), [] {
        TradingSettings z;
        z.threshold = 0.5;
        return z;
    }());
    EXPECT_NEAR(r.trades[0].net, 20, kTol);
    EXPECT_NEAR(r.trades[1].net, 50, kTol);
    EXPECT_NEAR(r.trades[2].net, -10, kTol);
}

TEST(TradingRules, zeroCostsAreWarnedAndTheSpreadUsedSaid) {
    // A file without a spread column and the default settings: no cost at all.
    TradingReport r = evaluateTrading(tenBars(false), tenSignals(), TradingSettings());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0],
              "no trading costs: the file has no spread column and trading.spreadPoints is 0, "
              "and slippage and commission are 0; the figures are before costs (give --spread, "
              "--slippage, --commission)");
    std::string text = tradingReportText(r);
    EXPECT_NE(text.find("spread from the setting: 0 points"), std::string::npos) << text;
    EXPECT_NE(text.find("\nwarning: no trading costs: "), std::string::npos) << text;
    nlohmann::ordered_json j = tradingReportJson(r);
    EXPECT_EQ(j["spreadPoints"], 0.0);
    EXPECT_EQ(j["warnings"].size(), 1u);
    // A spread column of zeros with slippage: the spread alone is missing.
    BarSeries zeros = tenBars();
    std::fill(zeros.spread.begin(), zeros.spread.end(), 0.0);
    r = evaluateTrading(zeros, tenSignals(), scriptedSettings());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "no spread is charged: the file's spread column is 0 on every bar");
    EXPECT_NE(tradingReportText(r).find("spread from the file"), std::string::npos);
    // The file's spreads: no warning; a given spread is printed with its value.
    r = evaluateTrading(tenBars(), tenSignals(), scriptedSettings());
    EXPECT_TRUE(r.warnings.empty());
    EXPECT_FALSE(tradingReportJson(r).contains("warnings"));
    TradingSettings given = scriptedSettings();
    given.spreadSource = "given";
    given.spreadPoints = 2.5;
    r = evaluateTrading(tenBars(), tenSignals(), given);
    EXPECT_TRUE(r.warnings.empty());
    text = tradingReportText(r);
    EXPECT_NE(text.find("spread from the setting: 2.5 points"), std::string::npos) << text;
    EXPECT_EQ(tradingReportJson(r)["spreadPoints"], 2.5);
}

TEST(TradingRules, thresholdAndOppositeExitSwitch) {
    TradingSettings s = scriptedSettings();
    s.exitOnOpposite = false;  // the long from bar 1 is held to the end
    TradingReport r = evaluateTrading(tenBars(), tenSignals(), s);
    ASSERT_EQ(r.trades.size(), 1u);
    EXPECT_EQ(r.trades[0].exitReason, ExitReason::End);
    EXPECT_EQ(r.trades[0].bars, 9u);
    s = scriptedSettings();
    s.threshold = 0.75;  // only bar 3's sell (.8) and bar 7's buy (.9) act
    r = evaluateTrading(tenBars(), tenSignals(), s);
    ASSERT_EQ(r.trades.size(), 2u);
    EXPECT_EQ(r.trades[0].direction, -1);
    EXPECT_EQ(r.trades[0].entryBar, 4u);
    EXPECT_EQ(r.trades[0].exitBar, 6u);  // bar 5's weak buy still closes it
    EXPECT_EQ(r.trades[1].entryBar, 8u);
}

TEST(TradingRules, exitAfterNBars) {
    TradingSettings s = scriptedSettings();
    s.exitAfterBars = 2;
    const TradingReport r = evaluateTrading(tenBars(), script({{1, .9f}}, 0), s);
    // A single signal: the range is bar 0 alone, nothing can enter.
    EXPECT_TRUE(r.trades.empty());
    const TradingReport r2 =
        evaluateTrading(tenBars(), script({{1, .9f}, {0, .9f}, {0, .9f}, {0, .9f}, {0, .9f}}), s);
    ASSERT_EQ(r2.trades.size(), 1u);
    EXPECT_EQ(r2.trades[0].entryBar, 1u);
    EXPECT_EQ(r2.trades[0].exitBar, 3u);  // out at bar 3's open: bid 10.30 - 0.01
    EXPECT_EQ(r2.trades[0].exitReason, ExitReason::Time);
    EXPECT_EQ(r2.trades[0].bars, 2u);
    EXPECT_NEAR(r2.trades[0].exitPrice, 10.29, kTol);
    EXPECT_NEAR(r2.strategy.exposure, 40, kTol);  // bars 1, 2 of 0..4
    // A buy on the bar before the time exit enters again at that open.
    const TradingReport r3 =
        evaluateTrading(tenBars(), script({{1, .9f}, {0, .9f}, {1, .9f}, {0, .9f}, {0, .9f}}), s);
    ASSERT_EQ(r3.trades.size(), 2u);
    EXPECT_EQ(r3.trades[1].entryBar, 3u);
    EXPECT_EQ(r3.trades[1].exitReason, ExitReason::End);
}

TEST(TradingRules, atrStopAndTake) {
    // ATR(2) at bar 2 (MetaTrader 5's: the mean of the true ranges of bars 1 and 2):
    // (0.25 + 0.35) / 2 = 0.30. A buy on bar 2 enters at bar 3's ask: 10.30 + (bar 2's spread
    // 3 + slippage 1) points = 10.34.
    TradingSettings s = scriptedSettings();
    s.atrPeriod = 2;
    s.stopAtr = 1;  // stop 10.04: bar 4's low 9.80 reaches it, its open 10.20 does not
    const SignalSeries sig = script({{1, .9f}, {0, .9f}, {0, .9f}, {0, .9f}, {0, .9f}}, 2);
    TradingReport r = evaluateTrading(tenBars(), sig, s);
    ASSERT_EQ(r.trades.size(), 1u);
    EXPECT_NEAR(r.trades[0].entryPrice, 10.34, kTol);
    EXPECT_EQ(r.trades[0].exitReason, ExitReason::Stop);
    EXPECT_EQ(r.trades[0].exitBar, 4u);
    EXPECT_EQ(r.trades[0].bars, 2u);
    EXPECT_NEAR(r.trades[0].exitPrice, 10.03, kTol);  // 10.04 less one point of slippage
    EXPECT_NEAR(r.trades[0].net, -31.5, kTol);
    EXPECT_NEAR(r.trades[0].atr, 0.30, kTol);
    EXPECT_NEAR(r.trades[0].stopLevel, 10.04, kTol);
    EXPECT_EQ(r.trades[0].takeLevel, 0);
    s.stopAtr = 0;
    s.takeAtr = 0.03;  // take 10.349: bar 3's high 10.35 reaches it
    r = evaluateTrading(tenBars(), sig, s);
    ASSERT_EQ(r.trades.size(), 1u);
    EXPECT_EQ(r.trades[0].exitReason, ExitReason::Take);
    EXPECT_EQ(r.trades[0].exitBar, 3u);
    EXPECT_EQ(r.trades[0].bars, 1u);
    EXPECT_NEAR(r.trades[0].exitPrice, 10.339, kTol);
}

TEST(TradingRules, stopAndTakeInOneBarAndGaps) {
    // Point 1, no costs but the spread. ATR(1) at bar 1 = its true range 102 - 98 = 4; a signal
    // on bar 1 enters at bar 2's open (bid 100) with stop and take half an ATR away; bar 2
    // reaches neither, bar 3 is the bar under test.
    auto run = [](Ohlc bar3, int signal = 1, double spread = 0) {
        BarSeries b = makeBars({{100, 101, 99, 100, spread},
                                {100, 102, 98, 100, spread},
                                {100, 100.5, 99.5, 100, spread},
                                bar3,
                                {100, 100, 100, 100, spread}},
                               1);
        TradingSettings s;
        s.atrPeriod = 1;
        s.stopAtr = s.takeAtr = 0.5;
        const TradingReport r =
            evaluateTrading(b, script({{0, .9f}, {signal, .9f}, {0, .9f}, {0, .9f}, {0, .9f}}), s);
        EXPECT_EQ(r.trades.size(), 1u);
        return r.trades.at(0);
    };
    // A long in at 100: stop 98, take 102.
    Trade t = run({100, 103, 97, 100, 0});  // both levels inside the bar: the stop
    EXPECT_EQ(t.exitReason, ExitReason::Stop);
    EXPECT_EQ(t.exitBar, 3u);
    EXPECT_NEAR(t.exitPrice, 98, kTol);
    t = run({96, 103, 95, 100, 0});  // opens below the stop: filled at the open
    EXPECT_EQ(t.exitReason, ExitReason::Stop);
    EXPECT_NEAR(t.exitPrice, 96, kTol);
    t = run({105, 106, 97, 105, 0});  // opens above the take: filled at the open
    EXPECT_EQ(t.exitReason, ExitReason::Take);
    EXPECT_NEAR(t.exitPrice, 105, kTol);
    t = run({100, 101, 99, 100, 0});  // neither: out at the end
    EXPECT_EQ(t.exitReason, ExitReason::End);
    EXPECT_EQ(t.exitBar, 4u);
    // A short with a spread of 1: in at the bid 100, stop at the ask 102, take at the ask 98.
    // Bar 3's ask high 101.5 + 1 reaches the stop; the short leaves at the ask 102.
    t = run({100, 101.5, 99.5, 100, 1}, 2, 1);
    EXPECT_EQ(t.direction, -1);
    EXPECT_EQ(t.exitReason, ExitReason::Stop);
    EXPECT_NEAR(t.entryPrice, 100, kTol);
    EXPECT_NEAR(t.exitPrice, 102, kTol);
    EXPECT_NEAR(t.net, -2, kTol);
    EXPECT_NEAR(t.cost, 1, kTol);
    t = run({100, 100.5, 96.5, 100, 1}, 2, 1);  // ask low 97.5 reaches the take 98
    EXPECT_EQ(t.exitReason, ExitReason::Take);
    EXPECT_NEAR(t.exitPrice, 98, kTol);
    EXPECT_NEAR(t.net, 2, kTol);
}

TEST(TradingRules, gapThroughALevelExitsBeforeThatOpensEntry) {
    // Point 1, no costs. ATR(1) at bar 1 = 4: a buy on bar 1 enters at bar 2's open 100 with
    // stop 98 and take 102 (half an ATR). Bar 3 opens at 96, through the stop: the long leaves
    // at that open (held bar 2 only), and then bar 2's acting signal enters at the same open
    // (docs/trading.md rule 4: exits at an open first, then the entry). The new trade's levels
    // are half of bar 2's ATR 1 from 96: 95.5 and 96.5, which bars 3 and 4 do not reach.
    BarSeries b = makeBars({{100, 101, 99, 100, 0},
                            {100, 102, 98, 100, 0},
                            {100, 100.5, 99.5, 100, 0},
                            {96, 96.4, 95.6, 96.2, 0},
                            {96.2, 96.3, 96.1, 96.2, 0}},
                           1);
    auto run = [&](int signalOnBar2, bool exitOnOpposite) {
        TradingSettings s;
        s.atrPeriod = 1;
        s.stopAtr = s.takeAtr = 0.5;
        s.threshold = 0.5;
        s.exitOnOpposite = exitOnOpposite;
        return evaluateTrading(
            b, script({{0, .9f}, {1, .9f}, {signalOnBar2, .9f}, {0, .9f}, {0, .9f}}), s);
    };
    for (int signal : {1, 2})
        for (bool exitOnOpposite : {false, true}) {
            if (signal == 1 && exitOnOpposite) continue;  // the same as without
            const TradingReport r = run(signal, exitOnOpposite);
            ASSERT_EQ(r.trades.size(), 2u) << signal << exitOnOpposite;
            const Trade& gap = r.trades[0];
            EXPECT_EQ(gap.exitReason, ExitReason::Stop);  // the level acts before the order
            EXPECT_EQ(gap.exitBar, 3u);
            EXPECT_EQ(gap.bars, 1u);  // closed at an open: bar 3 not counted
            EXPECT_NEAR(gap.exitPrice, 96, kTol);
            EXPECT_NEAR(gap.net, -4, kTol);
            const Trade& next = r.trades[1];
            EXPECT_EQ(next.direction, signal == 1 ? 1 : -1);
            EXPECT_EQ(next.signalBar, 2u);
            EXPECT_EQ(next.entryBar, 3u);
            EXPECT_NEAR(next.entryPrice, 96, kTol);
            EXPECT_NEAR(next.stopLevel, signal == 1 ? 95.5 : 96.5, kTol);
            EXPECT_EQ(next.exitReason, ExitReason::End);
            EXPECT_EQ(next.bars, 2u);
            EXPECT_NEAR(next.net, signal == 1 ? 0.2 : -0.2, kTol);
            EXPECT_NEAR(r.strategy.exposure, 60, kTol);  // bars 2, 3, 4 of 0..4
        }
    // Without the gap (bar 3 opens at 99), the same-direction buy holds the long and bar 3's
    // low reaches the stop inside the bar.
    b.open[3] = 99, b.high[3] = 99.5, b.low[3] = 97.5;
    const TradingReport held = run(1, false);
    ASSERT_EQ(held.trades.size(), 1u);
    EXPECT_EQ(held.trades[0].exitReason, ExitReason::Stop);
    EXPECT_EQ(held.trades[0].bars, 2u);
    EXPECT_NEAR(held.trades[0].exitPrice, 98, kTol);
}

TEST(TradingRules, theSpreadAtAnOpenIsThePreviousBars) {
    // MT5's <SPREAD> of a bar is recorded over that bar: a fill at bar i's open pays bar
    // i - 1's spread; inside a bar and at its close the bar's own spread applies. Point 1, flat
    // prices at 100, spikes on the bars whose opens fill. Signals: buy (bar 0), sell (1, closes
    // and reverses), none, weak buy (3, closes the short), sell (4), none.
    const BarSeries b = makeBars({{100, 101, 99, 100, 2},
                                  {100, 101, 99, 100, 50},
                                  {100, 101, 99, 100, 3},
                                  {100, 101, 99, 100, 40},
                                  {100, 101, 99, 100, 60},
                                  {100, 101, 99, 100, 7}},
                                 1);
    TradingSettings s;
    s.threshold = 0.5;
    const TradingReport r =
        evaluateTrading(b, script({{1, .9f}, {2, .9f}, {0, .9f}, {1, .3f}, {2, .9f}, {0, .9f}}), s);
    ASSERT_EQ(r.trades.size(), 3u);
    // The long buys bar 1's open at the ask 100 + 2 (bar 0's spread), not 100 + 50.
    EXPECT_NEAR(r.trades[0].entryPrice, 102, kTol);
    EXPECT_NEAR(r.trades[0].spread, 2, kTol);
    EXPECT_NEAR(r.trades[0].net, -2, kTol);
    // The short buys back at bar 4's open at 100 + 40 (bar 3's spread), not 100 + 60.
    EXPECT_EQ(r.trades[1].exitBar, 4u);
    EXPECT_NEAR(r.trades[1].exitPrice, 140, kTol);
    EXPECT_NEAR(r.trades[1].net, -40, kTol);
    // The last short leaves at bar 5's close: the ask 100 + bar 5's own spread 7.
    EXPECT_EQ(r.trades[2].exitReason, ExitReason::End);
    EXPECT_NEAR(r.trades[2].exitPrice, 107, kTol);
    EXPECT_NEAR(r.trades[2].spread, 7, kTol);
    // The equity at bar 2's close marks the short at bar 2's own ask 103.
    EXPECT_NEAR(r.equity.points[2], -2 - 3, kTol);
}

TEST(TradingRules, breakevenTradesNetExactlyZero) {
    // EURUSD-like prices (point 0.00001) read from five-decimal text; a buy on every bar with
    // a time exit after one bar: each trade enters at an open and leaves at the next, whose
    // bid is 15 points higher: spread 2 + 2 x slippage 3 + commission 7 = 15 points of cost.
    // Each trade nets exactly 0 points (prices on the point grid are whole points), so none is
    // a win or a loss.
    std::vector<Ohlc> rows;
    for (int k = 0; k < 120; ++k) {
        char text[32];
        std::snprintf(text, sizeof text, "%.5f", 1.09871 + 0.00015 * k);
        const double o = std::stod(text);
        rows.push_back({o, o + 0.0002, o - 0.0002, o, 2});
    }
    rows.back().c = rows.back().h = std::stod("1.11671");  // the last trade leaves at the close
    const BarSeries b = makeBars(rows, 0.00001);
    TradingSettings s;
    s.slippagePoints = 3;
    s.commission = 7;
    s.exitAfterBars = 1;
    const TradingReport r =
        evaluateTrading(b, script(std::vector<std::pair<int, float>>(120, {1, .9f})), s);
    ASSERT_EQ(r.trades.size(), 119u);
    for (const Trade& t : r.trades) {
        ASSERT_EQ(t.net, 0.0) << t.entryBar;
        ASSERT_EQ(t.gross, 15.0) << t.entryBar;
    }
    EXPECT_EQ(r.strategy.winRate, 0);
    EXPECT_EQ(r.strategy.netPoints, 0);
    for (double e : r.equity.points) ASSERT_EQ(e, std::floor(e));  // whole points throughout
    // No trade won or lost: no profit factor (n/a, JSON null, not read back as infinite).
    EXPECT_TRUE(std::isnan(r.strategy.profitFactor));
    const nlohmann::ordered_json j = tradingReportJson(r);
    EXPECT_TRUE(j["strategy"]["profitFactor"].is_null());
    EXPECT_FALSE(tradingFigureFromJson(j["strategy"], "profitFactor").has_value());
    // One winner among the breakeven trades: none lost, the profit factor is infinite.
    BarSeries win = b;
    win.close.back() += 0.00001, win.high.back() += 0.00001;  // the last trade wins 1
    const TradingReport w =
        evaluateTrading(win, script(std::vector<std::pair<int, float>>(120, {1, .9f})), s);
    EXPECT_NEAR(w.strategy.winRate, 100.0 / 119, kTol);
    EXPECT_TRUE(std::isinf(w.strategy.profitFactor));
    const nlohmann::ordered_json wj = tradingReportJson(w);
    EXPECT_TRUE(std::isinf(tradingFigureFromJson(wj["strategy"], "profitFactor").value_or(0)));
}

TEST(TradingRules, constantReturnsHaveNoSharpe) {
    // A % equity rising by 0.1 each bar: every per-bar return is 0.1 up to the rounding of
    // differencing the cumulative sum (a deviation of ~1e-17): no deviation, Sharpe 0
    // (docs/trading.md), not 1e15.
    TradingEquity e;
    double pct = 0;
    for (size_t i = 0; i < 500; ++i) {
        e.bar.push_back(i);
        e.time.push_back(int64_t(i) * 3600);
        e.position.push_back(1);
        e.points.push_back(pct * 100);
        e.pct.push_back(pct);
        pct += 0.1;
    }
    const TradingFigures f = tradingFigures({Trade()}, e, 6000);
    EXPECT_EQ(f.sharpe, 0);
    EXPECT_EQ(f.sharpeAnnual, 0);
    EXPECT_EQ(f.sortino, 0);
    EXPECT_EQ(f.skewness, 0);
    EXPECT_EQ(f.kurtosis, 0);
    // One return off by a thousandth: a real deviation, a (large) Sharpe.
    for (size_t i = 250; i < 500; ++i) e.pct[i] += 0.001;
    EXPECT_GT(tradingFigures({Trade()}, e, 6000).sharpe, 10);
}

TEST(TradingRules, aModelThatNeverSignalsHasNoRatios) {
    // Signals "none" on every bar: no trades. Win rate, profit factor, per trade, Sharpe and
    // Sortino do not exist (NaN: "n/a" in the table, null in JSON), nor does the share of
    // random draws at or above the strategy; net, drawdown and exposure are 0.
    const TradingReport r = evaluateTrading(
        tenBars(), script(std::vector<std::pair<int, float>>(10, {0, .9f})), scriptedSettings());
    ASSERT_TRUE(r.trades.empty());
    const TradingFigures& f = r.strategy;
    for (double v : {f.winRate, f.profitFactor, f.perTradePoints, f.perTradePct, f.sharpe,
                     f.sortino, f.sharpeAnnual, f.sortinoAnnual, r.random.winRate,
                     r.random.profitFactor, r.random.sharpeAnnual, r.randomNetAtOrAbove})
        EXPECT_TRUE(std::isnan(v));
    EXPECT_EQ(f.trades, 0);
    EXPECT_EQ(f.netPoints, 0);
    EXPECT_EQ(f.maxDrawdownPoints, 0);
    EXPECT_EQ(f.exposure, 0);
    EXPECT_EQ(r.buyAndHold.trades, 1);  // the baseline still trades
    EXPECT_FALSE(std::isnan(r.buyAndHold.sharpe));
    const nlohmann::ordered_json j = tradingReportJson(r);
    for (const char* key : {"winRate", "profitFactor", "perTradePoints", "sharpe", "sortino",
                            "sharpeAnnual", "sortinoAnnual"}) {
        EXPECT_TRUE(j["strategy"][key].is_null()) << key;
        EXPECT_FALSE(tradingFigureFromJson(j["strategy"], key).has_value()) << key;
    }
    EXPECT_TRUE(j["random"]["netAtOrAbove"].is_null());
    EXPECT_EQ(j["strategy"]["netPoints"], 0);
    const TradingFigures back = tradingFiguresFromJson(json::parse(j["strategy"].dump()));
    EXPECT_TRUE(std::isnan(back.winRate));
    EXPECT_TRUE(std::isnan(back.profitFactor));
    const std::string text = tradingReportText(r);
    const size_t winRow = text.find("\nwin rate %");
    ASSERT_NE(winRow, std::string::npos) << text;
    const std::string row = text.substr(winRow + 1, text.find('\n', winRow + 1) - winRow - 1);
    EXPECT_EQ(row.substr(row.find_first_not_of(' ', 10), 3), "n/a") << row;  // the strategy's
    EXPECT_NE(text.find("n/a (no strategy trades) of them net >= the strategy"), std::string::npos)
        << text;
    EXPECT_EQ(text.find("nan"), std::string::npos) << text;
}

TEST(TradingRules, randomBaselineSameTradeCountAndSeeded) {
    TradingSettings s = scriptedSettings();
    s.randomDraws = 50;
    const TradingReport a = evaluateTrading(tenBars(), tenSignals(), s);
    EXPECT_EQ(a.random.trades, 3);             // every draw places the strategy's three trades
    EXPECT_NEAR(a.random.exposure, 70, kTol);  // with their holding times 3, 2 and 2
    EXPECT_EQ(a.randomDraws, 50);
    const TradingReport b = evaluateTrading(tenBars(), tenSignals(), s);
    EXPECT_EQ(a.random.netPoints, b.random.netPoints);
    EXPECT_EQ(a.random.sharpe, b.random.sharpe);
    EXPECT_EQ(a.randomNetAtOrAbove, b.randomNetAtOrAbove);
    s.randomSeed = 2;
    const TradingReport c = evaluateTrading(tenBars(), tenSignals(), s);
    EXPECT_NE(a.random.netPoints, c.random.netPoints);
    EXPECT_EQ(c.random.trades, 3);
    // Each draw's net is between the worst and best three non-overlapping trades, and the
    // share of draws at or above the strategy is a share.
    EXPECT_GE(a.randomNetAtOrAbove, 0);
    EXPECT_LE(a.randomNetAtOrAbove, 1);
}

TEST(TradingRules, noLookAhead) {
    // 300 bars of a random walk with random spreads and random signals; for several t, every
    // bar after t (prices, spread) and every signal after t is replaced. What was decided by
    // bar t's close must not change: the equity up to t, the trades closed by t, and the
    // direction and entry bar of trades signalled at or before t; with bar t + 1 kept too,
    // their entry price.
    Rng rng(7);
    auto walk = [&](BarSeries& b, size_t from, double start) {
        double p = start;
        for (size_t i = from; i < b.size(); ++i) {
            const double o = p, c = p + rng.uniform(-0.8, 0.8);
            b.open[i] = o;
            b.close[i] = c;
            b.high[i] = std::max(o, c) + rng.uniform(0, 0.6);
            b.low[i] = std::min(o, c) - rng.uniform(0, 0.6);
            b.spread[i] = double(rng.below(30));
            p = c + rng.uniform(-0.2, 0.2);
        }
    };
    auto randomSignals = [&](SignalSeries& s, size_t from) {
        for (size_t k = from; k < s.size(); ++k) {
            const uint64_t u = rng.below(10);
            s.signal[k] = u < 6 ? 0 : u < 8 ? 1 : 2;
            s.outputs[k] = {float(rng.uniform()), float(rng.uniform()), float(rng.uniform())};
        }
    };
    BarSeries base = makeBars(std::vector<Ohlc>(300, {100, 100, 100, 100, 0}), 0.01);
    walk(base, 0, 100);
    SignalSeries sig = script(std::vector<std::pair<int, float>>(290, {0, 0.f}), 5);
    randomSignals(sig, 0);
    TradingSettings s;
    s.threshold = 0.3;
    s.exitAfterBars = 4;
    s.stopAtr = 1.5;
    s.takeAtr = 2.5;
    s.atrPeriod = 5;
    s.randomDraws = 1;
    s.commission = 3;
    s.slippagePoints = 2;
    const TradingReport full = evaluateTrading(base, sig, s);
    ASSERT_GT(full.trades.size(), 10u);
    size_t levelExits = 0, timeExits = 0;
    for (const Trade& x : full.trades) {
        levelExits += x.exitReason == ExitReason::Stop || x.exitReason == ExitReason::Take;
        timeExits += x.exitReason == ExitReason::Time;
    }
    ASSERT_GT(levelExits, 0u);  // every rule is at work in this series
    ASSERT_GT(timeExits, 0u);
    // Decision points: a few fixed bars and every trade's signal bar (the trade entered at
    // t + 1 is decided by then: its direction and its stop's ATR).
    std::vector<size_t> points{5, 40, 77, 150, 222, 290};
    for (const Trade& x : full.trades) points.push_back(x.signalBar);
    for (size_t t : points) {
        for (size_t keep : {t + 1, t + 2}) {  // the first bar replaced
            BarSeries changed = base;
            walk(changed, keep, base.close[keep - 1] + 5);
            SignalSeries sig2 = sig;
            randomSignals(sig2, t + 1 - 5);  // signals of bars after t
            const TradingReport other = evaluateTrading(changed, sig2, s);
            for (size_t i = 0; i + 5 <= t; ++i) {
                ASSERT_EQ(other.equity.points[i], full.equity.points[i]) << t << " bar " << i;
                ASSERT_EQ(other.equity.pct[i], full.equity.pct[i]);
                ASSERT_EQ(other.equity.position[i], full.equity.position[i]);
            }
            size_t compared = 0;
            for (size_t k = 0; k < full.trades.size(); ++k) {
                const Trade& a = full.trades[k];
                if (a.signalBar > t) break;
                ASSERT_LT(k, other.trades.size());
                const Trade& b = other.trades[k];
                ASSERT_EQ(b.direction, a.direction) << t;
                ASSERT_EQ(b.signalBar, a.signalBar);
                ASSERT_EQ(b.entryBar, a.entryBar);
                ASSERT_EQ(b.atr, a.atr) << t;  // the stop's and take's ATR: of the signal bar
                if (a.entryBar < keep) {
                    ASSERT_EQ(b.entryPrice, a.entryPrice) << t;
                }
                if (a.exitBar <= t) {
                    ASSERT_EQ(b.exitBar, a.exitBar);
                    ASSERT_EQ(b.exitPrice, a.exitPrice);
                    ASSERT_EQ(b.net, a.net);
                }
                ++compared;
            }
            if (t >= 40) {
                ASSERT_GT(compared, 0u) << t;
            }
        }
    }
}

TEST(TradingRules, badInputNamesTheSettingOrInput) {
    const BarSeries bars = tenBars();
    TradingSettings s;
    SignalSeries beyond = script({{1, .9f}, {0, .9f}}, 9);
    EXPECT_EQ(thrown(bars, beyond, s), "signals: bar 10 is beyond the 10 bars of TEST.csv");
    SignalSeries unsorted = tenSignals();
    std::swap(unsorted.bar[3], unsorted.bar[4]);
    EXPECT_EQ(thrown(bars, unsorted, s),
              "signals: bar 3 (entry 4) does not come after bar 4; signals must be in bar order");
    EXPECT_EQ(thrown(bars, SignalSeries(), s), "signals: no signals to evaluate");
    BarSeries backwards = bars;
    std::swap(backwards.time[5], backwards.time[6]);
    EXPECT_EQ(thrown(backwards, tenSignals(), s),
              "bars: bar 6 of TEST.csv is not after the bar before it (bars must be in time "
              "order, oldest first)");
    s.commission = -1;
    EXPECT_EQ(thrown(bars, tenSignals(), s), "trading.commission: -1.0 is outside [0, 1e+09]");
    s = TradingSettings();
    s.slippagePoints = -0.5;
    EXPECT_EQ(thrown(bars, tenSignals(), s), "trading.slippagePoints: -0.5 is outside [0, 1e+09]");
    s = TradingSettings();
    s.spreadPoints = -2;
    EXPECT_EQ(thrown(bars, tenSignals(), s), "trading.spreadPoints: -2.0 is outside [0, 1e+09]");
    s = TradingSettings();
    s.spreadSource = "ask";
    EXPECT_EQ(thrown(bars, tenSignals(), s),
              "trading.spreadSource: 'ask' is not one of file, given");
    BarSeries noPoint = bars;
    noPoint.point = 0;
    EXPECT_EQ(thrown(noPoint, tenSignals(), TradingSettings()),
              "trading.pointSize: TEST.csv has no point size (its bars were not read from a "
              "file); give one");
    s = TradingSettings();
    s.pointSize = 0.01;
    EXPECT_EQ(thrown(noPoint, tenSignals(), s), "");
    SignalSeries badSignal = tenSignals();
    badSignal.signal[2] = 3;
    EXPECT_EQ(thrown(bars, badSignal, TradingSettings()),
              "signals: signal 3 at bar 2 is not 0 (none), 1 (buy) or 2 (sell)");
}
