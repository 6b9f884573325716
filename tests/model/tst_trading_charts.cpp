// The computations behind the Trading tab's charts and the HTML report (model/trading:
// Underwater, MonthlyReturns, TradeDistribution, RandomBand, FoldTrading, and the per-bar
// buy-and-hold equity and random band of evaluateTrading), each on made-up series whose values
// are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "model/data/DateTime.h"
#include "model/trading/FoldTrading.h"
#include "model/trading/MonthlyReturns.h"
#include "model/trading/RandomBand.h"
#include "model/trading/TradeDistribution.h"
#include "model/trading/TradingEvaluation.h"
#include "model/trading/Underwater.h"

using namespace nnwb;

namespace {

Trade tradeAt(int64_t entryTime, double net, double netPct = 0, size_t signalBar = 0) {
    Trade t;
    t.entryTime = entryTime;
    t.net = net;
    t.netPct = netPct;
    t.signalBar = signalBar;
    t.entryBar = signalBar + 1;
    t.exitBar = signalBar + 2;
    t.bars = 1;
    return t;
}

}  // namespace

TEST(Underwater, isTheFallFromTheRunningPeakThatStartsAtZero) {
    // peaks 0, 10, 10, 10, 15, 15; the first value below 0 is already under water
    EXPECT_EQ(underwaterOf({-5, 10, 4, 10, 15, 12}), (std::vector<double>{-5, 0, -6, 0, 0, -3}));
    EXPECT_TRUE(underwaterOf({}).empty());
}

TEST(MonthlyReturns, eachMonthIsItsLastBarLessThePreviousMonthsLastBar) {
    const std::vector<int64_t> time = {
        fromCalendar(2019, 12, 30, 10), fromCalendar(2019, 12, 31, 23),  // Dec 2019
        fromCalendar(2020, 1, 2, 0),    fromCalendar(2020, 1, 31, 12),   // Jan 2020
        fromCalendar(2020, 3, 1, 0),                                     // Mar (no Feb)
    };
    const std::vector<double> equity = {-2, 5, 9, 3, 10};
    const MonthlyReturns m = monthlyReturns(time, equity);
    ASSERT_EQ(m.years, (std::vector<int>{2019, 2020}));
    EXPECT_EQ(m.months[0][11], 5);  // 5 - 0
    EXPECT_TRUE(std::isnan(m.months[0][0]));
    EXPECT_EQ(m.months[1][0], -2);  // 3 - 5
    EXPECT_TRUE(std::isnan(m.months[1][1]));
    EXPECT_EQ(m.months[1][2], 7);  // 10 - 3
    EXPECT_EQ(m.yearTotal, (std::vector<double>{5, 5}));
    EXPECT_THROW(monthlyReturns({1, 2}, {1}), std::invalid_argument);
}

TEST(TradeDistribution, binsOfEqualWidthWithZeroAsAnEdge) {
    // width (3 - -1) / 4 = 1, first edge -1: [-1,0) {-1}, [0,1) {0, 0.5}, [1,2) {1}, [2,3] {3}
    Histogram h = histogramOf({-1, 0, 0.5, 1, 3}, 4);
    EXPECT_DOUBLE_EQ(h.first, -1);
    EXPECT_DOUBLE_EQ(h.width, 1);
    EXPECT_EQ(h.count, (std::vector<double>{1, 2, 1, 1}));
    // width 1, first edge moved down to -1: [-1,0) {-0.5}, [0,1) {}, [1,2] {1.5}
    h = histogramOf({-0.5, 1.5}, 2);
    EXPECT_DOUBLE_EQ(h.first, -1);
    EXPECT_EQ(h.count, (std::vector<double>{1, 0, 1}));
    h = histogramOf({2.5, 2.5}, 10);  // all equal: one bin
    EXPECT_EQ(h.count, (std::vector<double>{2}));
    EXPECT_TRUE(histogramOf({}, 10).count.empty());
}

TEST(TradeDistribution, entriesByHourAndWeekdayOfTheEntryBar) {
    // 2020-03-02 is a Monday, 2020-03-08 a Sunday.
    const std::vector<Trade> trades = {tradeAt(fromCalendar(2020, 3, 2, 9), 10),
                                       tradeAt(fromCalendar(2020, 3, 2, 9, 30), -4),
                                       tradeAt(fromCalendar(2020, 3, 8, 23), 7)};
    const EntryProfile p = entryProfile(trades);
    EXPECT_EQ(p.countByHour[9], 2);
    EXPECT_EQ(p.netByHour[9], 6);
    EXPECT_EQ(p.countByHour[23], 1);
    EXPECT_EQ(p.countByWeekday[0], 2);  // Monday
    EXPECT_EQ(p.netByWeekday[0], 6);
    EXPECT_EQ(p.countByWeekday[6], 1);  // Sunday
    EXPECT_EQ(p.netByWeekday[6], 7);
    const Histogram h =
        tradeReturnHistogram({tradeAt(0, 0, -0.5), tradeAt(0, 0, 0.25), tradeAt(0, 0, 1.5)}, 2);
    EXPECT_EQ(h.count, (std::vector<double>{1, 1, 1}));  // width 1 from -1
}

TEST(RandomBand, percentilesInterpolateTheSortedDraws) {
    // positions 0.05·2 = 0.1 and 0.95·2 = 1.9 of {0, 10, 20}
    EXPECT_DOUBLE_EQ(percentileOf({20, 0, 10}, 0.05), 1);
    EXPECT_DOUBLE_EQ(percentileOf({20, 0, 10}, 0.95), 19);
    EXPECT_DOUBLE_EQ(percentileOf({4}, 0.05), 4);
    EXPECT_TRUE(std::isnan(percentileOf({}, 0.5)));
    EXPECT_EQ(bandIndices(4, 200), (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(bandIndices(11, 3), (std::vector<size_t>{0, 5, 10}));
    BandCollector c(3, 200);
    c.add({0, 1, 20});
    c.add({0, 3, 0});
    c.add({0, 2, 10});
    c.add({0, 2});  // too short: ignored
    const EquityBand b = c.band();
    EXPECT_EQ(b.at, (std::vector<size_t>{0, 1, 2}));
    EXPECT_EQ(b.low, (std::vector<double>{0, 1.1, 1}));
    EXPECT_EQ(b.high, (std::vector<double>{0, 2.9, 19}));
    EXPECT_TRUE(BandCollector(3).band().at.empty());
}

namespace {
// 40 hourly bars of a zig-zag (point 0.01, spread 2), signals alternating buy and sell.
BarSeries zigzag() {
    BarSeries b;
    for (int i = 0; i < 40; ++i) {
        const double o = 10 + 0.3 * ((i / 3) % 2 ? 1 : -1) + 0.01 * i;
        b.time.push_back(1583143200 + int64_t(i) * 3600);
        b.open.push_back(o);
        b.high.push_back(o + 0.2);
        b.low.push_back(o - 0.2);
        b.close.push_back(o + 0.05);
        b.volume.push_back(0);
        b.spread.push_back(2);
    }
    b.hasSpread = true;
    b.point = 0.01;
    b.timeframe = 3600;
    b.source = "zigzag";
    return b;
}
SignalSeries alternating(size_t first, size_t last) {
    SignalSeries s;
    for (size_t i = first; i <= last; ++i) {
        const int sig = i % 4 == 0 ? 1 : i % 4 == 2 ? 2 : 0;
        std::array<float, 3> o{0.2f, 0.2f, 0.2f};
        o[size_t(sig)] = 0.8f;
        s.add(i, o, sig);
    }
    return s;
}
}  // namespace

TEST(RandomBand, oneDrawsBandIsThatDrawsEquityAndBuyAndHoldIsPerBar) {
    TradingSettings s;
    s.randomDraws = 1;
    const TradingReport r = evaluateTrading(zigzag(), alternating(2, 37), s);
    ASSERT_EQ(r.equity.points.size(), size_t(36));
    ASSERT_EQ(r.randomBand.at.size(), size_t(36));
    // One draw: both percentiles are its equity, whose last value is the baseline's net.
    EXPECT_EQ(r.randomBand.low, r.randomBand.high);
    EXPECT_DOUBLE_EQ(r.randomBand.low.back(), r.random.netPoints);
    ASSERT_EQ(r.buyAndHoldPoints.size(), size_t(36));
    EXPECT_EQ(r.buyAndHoldPoints.front(), 0);  // bought at the next bar's open
    EXPECT_DOUBLE_EQ(r.buyAndHoldPoints.back(), r.buyAndHold.netPoints);
    s.randomDraws = 50;  // the same seed: the first draw is the same, the band spreads
    const TradingReport wide = evaluateTrading(zigzag(), alternating(2, 37), s);
    for (size_t k = 0; k < wide.randomBand.at.size(); ++k)
        EXPECT_LE(wide.randomBand.low[k], wide.randomBand.high[k]);
    EXPECT_LT(wide.randomBand.low.back(), wide.randomBand.high.back());
}

TEST(FoldTrading, eachFoldHasTheTradesItSignalledAndItsPartOfTheEquity) {
    TradingReport r;
    r.barsPerYear = 0;
    // bars 10..15; equity 0, 10, 5, 20, 15, 25 (pct the same / 10)
    const std::vector<double> points = {0, 10, 5, 20, 15, 25};
    for (size_t i = 0; i < points.size(); ++i) {
        r.equity.bar.push_back(10 + i);
        r.equity.time.push_back(int64_t(i) * 3600);
        r.equity.position.push_back(0);
        r.equity.points.push_back(points[i]);
        r.equity.pct.push_back(points[i] / 10);
    }
    r.trades = {tradeAt(0, 10, 1, 10), tradeAt(0, -5, -0.5, 11), tradeAt(0, 20, 2, 12),
                tradeAt(0, 5, 0.5, 14)};
    const auto f = foldTradingFigures(r, {{10, 12}, {13, 15}, {30, 40}});
    ASSERT_EQ(f.size(), size_t(3));
    EXPECT_EQ(f[0].trades, 3);
    EXPECT_EQ(f[0].netPoints, 25);
    EXPECT_DOUBLE_EQ(f[0].profitFactor, 30.0 / 5);
    EXPECT_EQ(f[0].maxDrawdownPoints, 5);  // 10 -> 5
    // Fold 2: equity 20, 15, 25 less 5 (bar 12's): 15, 10, 20; drawdown 5 from its peak 15.
    EXPECT_EQ(f[1].trades, 1);
    EXPECT_EQ(f[1].netPoints, 5);
    EXPECT_EQ(f[1].maxDrawdownPoints, 5);
    // Per-bar returns between its bars' % equity 1.5, 1.0, 2.0: -0.5, 1.0: mean 0.25, sample
    // deviation sqrt(0.75² + 0.75²) = 0.75·√2.
    EXPECT_NEAR(f[1].sharpe, 0.25 / (0.75 * std::sqrt(2.0)), 1e-12);
    EXPECT_EQ(f[2].trades, 0);  // no bar of the report in its window
    EXPECT_TRUE(std::isnan(f[2].winRate));
}
