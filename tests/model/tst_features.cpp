// Features and indicators: RSI against a plain-loop reference and by hand on Wilder's example,
// ATR and CCI on tiny series computed by hand, MACD against a direct EMA recursion, the time
// features, warm-up, z-score and positional encoding.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/FuzzyCompare.h"
#include "model/data/DateTime.h"
#include "model/data/Features.h"
#include "model/data/Indicators.h"
#include "model/data/Normalization.h"
#include "model/data/PositionalEncoding.h"

using namespace nnwb;

namespace {

bool near(double a, double b, double tol = 1e-9) {
    return std::fabs(a - b) <= tol * (1.0 + std::fabs(b));
}

// Plain-loop RSI, written independently of Indicators.cpp: Wilder's smoothing expressed as
// avg_t = avg_{t-1} + (x_t - avg_{t-1}) / n, starting from the simple mean of n changes.
std::vector<double> referenceRsi(const std::vector<double>& c, int n) {
    std::vector<double> out(c.size(), NAN);
    std::vector<double> up(c.size(), 0.0), down(c.size(), 0.0);
    for (size_t i = 1; i < c.size(); ++i) {
        up[i] = std::max(0.0, c[i] - c[i - 1]);
        down[i] = std::max(0.0, c[i - 1] - c[i]);
    }
    double au = 0, ad = 0;
    for (int i = 1; i <= n; ++i) au += up[i] / n, ad += down[i] / n;
    for (size_t i = n; i < c.size(); ++i) {
        if (i > size_t(n)) {
            au += (up[i] - au) / n;
            ad += (down[i] - ad) / n;
        }
        out[i] = ad == 0 ? (au == 0 ? 50.0 : 100.0) : 100.0 * au / (au + ad);
    }
    return out;
}

// Direct EMA recursion seeded with the SMA of the first n values from `start`.
std::vector<double> referenceEma(const std::vector<double>& x, int n, size_t start) {
    std::vector<double> out(x.size(), NAN);
    double sum = 0;
    for (size_t i = start; i < start + n; ++i) sum += x[i];
    double e = sum / n;
    out[start + n - 1] = e;
    const double k = 2.0 / (n + 1);
    for (size_t i = start + n; i < x.size(); ++i) out[i] = e = x[i] * k + e * (1 - k);
    return out;
}

std::vector<double> wave(size_t n, uint32_t seed) {
    std::vector<double> v(n);
    double p = 100;
    for (size_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        p += (double(seed >> 8) / double(1u << 24) - 0.5) + 0.3 * std::sin(i * 0.2);
        v[i] = p;
    }
    return v;
}

BarSeries barsFrom(const std::vector<double>& h, const std::vector<double>& l,
                   const std::vector<double>& c) {
    BarSeries b;
    for (size_t i = 0; i < c.size(); ++i) {
        b.time.push_back(fromCalendar(2021, 1, 4) + int64_t(i) * 3600);
        b.open.push_back(i ? c[i - 1] : c[0]);
        b.high.push_back(h[i]);
        b.low.push_back(l[i]);
        b.close.push_back(c[i]);
        b.volume.push_back(double(i));
    }
    return b;
}

}  // namespace

TEST(Features, rsiByHand) {
    // The closes of Wilder's RSI(14) example. 14 changes to bar 14: gains sum 3.34, losses
    // sum 1.40 -> RSI = 100 * 3.34 / 4.74. Bar 15 falls 0.28, bar 16 rises 0.03 (Wilder
    // smoothing: avg = (avg * 13 + x) / 14).
    const std::vector<double> c = {44.34, 44.09, 44.15, 43.61, 44.33, 44.83, 45.10, 45.42, 45.84,
                                   46.08, 45.89, 46.03, 45.61, 46.28, 46.28, 46.00, 46.03};
    const std::vector<double> r = rsiWilder(c, 14);
    for (size_t i = 0; i < 14; ++i) ASSERT_TRUE(std::isnan(r[i]));
    double g = 3.34 / 14, l = 1.40 / 14;
    ASSERT_TRUE(near(r[14], 100.0 * 3.34 / 4.74, 1e-9));
    g = g * 13 / 14, l = (l * 13 + 0.28) / 14;
    ASSERT_TRUE(near(r[15], 100.0 * g / (g + l), 1e-9));
    g = (g * 13 + 0.03) / 14, l = l * 13 / 14;
    ASSERT_TRUE(near(r[16], 100.0 * g / (g + l), 1e-9));
    ASSERT_TRUE(std::fabs(r[14] - 70.4641) < 1e-4);
    ASSERT_TRUE(std::fabs(r[15] - 66.2496) < 1e-4);
    ASSERT_TRUE(std::fabs(r[16] - 66.4809) < 1e-4);
}
TEST(Features, rsiMatchesPlainLoop) {
    const std::vector<double> c = wave(500, 7);
    for (int n : {1, 2, 5, 14, 30}) {
        const std::vector<double> a = rsiWilder(c, n), b = referenceRsi(c, n);
        ASSERT_EQ(rsiWarmup(n), size_t(n));
        for (size_t i = 0; i < c.size(); ++i) {
            if (i < size_t(n)) {
                ASSERT_TRUE(std::isnan(a[i]));
            } else {
                ASSERT_TRUE(near(a[i], b[i], 1e-9)) << i;
            }
        }
    }
    // Rising only -> 100; flat -> 50; falling only -> 0.
    ASSERT_FUZZY_EQ(rsiWilder({1, 2, 3, 4}, 3)[3], 100.0);
    ASSERT_FUZZY_EQ(rsiWilder({2, 2, 2, 2}, 3)[3], 50.0);
    ASSERT_FUZZY_EQ(rsiWilder({4, 3, 2, 1}, 3)[3], 0.0);
    ASSERT_TRUE(std::isnan(rsiWilder({1, 2, 3}, 3)[2]));  // too short: never defined
}
TEST(Features, atrByHand) {
    // period 3; true ranges from bar 1: 2, 2, 4, 2, 8, 14 (bar 6 gaps up over close 6).
    const std::vector<double> h = {10, 11, 12, 15, 14, 13, 20};
    const std::vector<double> l = {8, 9, 10, 11, 12, 5, 18};
    const std::vector<double> c = {9, 10, 11, 14, 13, 6, 19};
    const std::vector<double> a = atrWilder(h, l, c, 3);
    for (size_t i = 0; i < 3; ++i) ASSERT_TRUE(std::isnan(a[i]));
    ASSERT_TRUE(near(a[3], 8.0 / 3));
    ASSERT_TRUE(near(a[4], 22.0 / 9));
    ASSERT_TRUE(near(a[5], 116.0 / 27));
    ASSERT_TRUE(near(a[6], 610.0 / 81));
}
TEST(Features, cciByHand) {
    // Typical price = close where h = l = c; the last bar has tp = (6 + 3 + 3) / 3 = 4.
    const std::vector<double> h = {1, 2, 3, 4, 10, 5, 6};
    const std::vector<double> l = {1, 2, 3, 4, 10, 5, 3};
    const std::vector<double> c = {1, 2, 3, 4, 10, 5, 3};
    const std::vector<double> r = cciTypical(h, l, c, 3);
    ASSERT_TRUE(std::isnan(r[0]) && std::isnan(r[1]));
    ASSERT_TRUE(near(r[2], 100.0));  // tp 1,2,3: sma 2, mad 2/3 -> 1 / (0.015 * 2/3)
    ASSERT_TRUE(near(r[3], 100.0));
    ASSERT_TRUE(near(r[4], 100.0));        // 3,4,10: sma 17/3, mad 26/9 -> (13/3) / (0.015 * 26/9)
    ASSERT_TRUE(near(r[5], -400.0 / 11));  // 4,10,5: sma 19/3, mad 22/9
    // 10,5,4: sma 19/3, mad (11/3 + 4/3 + 7/3)/3 = 22/9, (4 - 19/3) / (0.015 * 22/9)
    ASSERT_TRUE(near(r[6], -(7.0 / 3) / (0.015 * 22.0 / 9)));
    ASSERT_FUZZY_EQ(cciTypical({2, 2, 2}, {2, 2, 2}, {2, 2, 2}, 3)[2], 0.0);  // mad 0
}
TEST(Features, emaAndMacdMatchDirectRecursion) {
    const std::vector<double> e = emaSeries({1, 2, 3, 4, 5}, 3);
    ASSERT_TRUE(std::isnan(e[1]));
    ASSERT_FUZZY_EQ(e[2], 2.0);
    ASSERT_FUZZY_EQ(e[3], 3.0);
    ASSERT_FUZZY_EQ(e[4], 4.0);
    const std::vector<double> c = wave(300, 11);
    const MacdSeries m = macd(c, 12, 26, 9);
    const std::vector<double> f = referenceEma(c, 12, 0), s = referenceEma(c, 26, 0);
    std::vector<double> main(c.size(), NAN);
    for (size_t i = 25; i < c.size(); ++i) main[i] = f[i] - s[i];
    const std::vector<double> sig = referenceEma(main, 9, 25);
    ASSERT_EQ(macdMainWarmup(12, 26), size_t(25));
    ASSERT_EQ(macdSignalWarmup(12, 26, 9), size_t(33));
    for (size_t i = 0; i < c.size(); ++i) {
        ASSERT_EQ(std::isnan(m.main[i]), i < 25);
        ASSERT_EQ(std::isnan(m.signal[i]), i < 33);
        if (i >= 25) {
            ASSERT_TRUE(near(m.main[i], main[i], 1e-12));
        }
        if (i >= 33) {
            ASSERT_TRUE(near(m.signal[i], sig[i], 1e-12));
        }
    }
}
TEST(Features, featureMatrix) {
    const std::vector<double> c = wave(80, 3);
    std::vector<double> h(c), l(c);
    for (size_t i = 0; i < c.size(); ++i) h[i] += 0.5, l[i] -= 0.5;
    BarSeries b = barsFrom(h, l, c);
    b.time[5] = fromCalendar(2021, 7, 18, 13);  // a Sunday in July, 13:00 (times need not
                                                // be ordered for features)
    FeatureSpec spec;
    spec.definitions = IndicatorDefinitions::Textbook;  // MT5's: tst_mt5_indicators
    ASSERT_EQ(spec.count(), 12);
    ASSERT_EQ(spec.warmup(), size_t(33));
    const FeatureMatrix m = computeFeatures(b, spec);
    ASSERT_EQ(m.features, 12);
    ASSERT_EQ(m.bars, size_t(80));
    ASSERT_EQ(m.firstValid, size_t(33));
    ASSERT_EQ(m.names.front(), std::string("closeOpen"));
    ASSERT_EQ(m.names.back(), std::string("macdSignal"));
    const size_t i = 40;
    ASSERT_FUZZY_EQ(m.at(i, 0), b.close[i] - b.open[i]);
    ASSERT_FUZZY_EQ(m.at(i, 1), b.high[i] - b.open[i]);
    ASSERT_FUZZY_EQ(m.at(i, 2), b.low[i] - b.open[i]);
    ASSERT_FUZZY_EQ(m.at(i, 3), 40.0);
    ASSERT_FUZZY_EQ(m.at(0, 4), 0.0);  // 2021-01-04 00:00, a Monday in January
    ASSERT_FUZZY_EQ(m.at(0, 5), 1.0);
    ASSERT_FUZZY_EQ(m.at(0, 6), 1.0);
    ASSERT_FUZZY_EQ(m.at(5, 4), 13.0);
    ASSERT_FUZZY_EQ(m.at(5, 5), 0.0);
    ASSERT_FUZZY_EQ(m.at(5, 6), 7.0);
    ASSERT_FUZZY_EQ(m.at(i, 7), rsiWilder(c, 14)[i]);
    ASSERT_FUZZY_EQ(m.at(i, 8), cciTypical(h, l, c, 14)[i]);
    ASSERT_FUZZY_EQ(m.at(i, 9), atrWilder(h, l, c, 14)[i]);
    ASSERT_FUZZY_EQ(m.at(i, 11), macd(c, 12, 26, 9).signal[i]);
    for (size_t r = m.firstValid; r < m.bars; ++r)
        for (int k = 0; k < m.features; ++k) ASSERT_TRUE(std::isfinite(m.at(r, k)));

    // Switches and periods: only hour and RSI(5), in the fixed order.
    FeatureSpec few;
    few.enabled.fill(false);
    few.setEnabled(Feature::Rsi, true);
    few.setEnabled(Feature::Hour, true);
    few.rsiPeriod = 5;
    ASSERT_EQ(few.count(), 2);
    ASSERT_EQ(few.warmup(), size_t(5));
    const FeatureMatrix m2 = computeFeatures(b, few);
    ASSERT_EQ(m2.names, (std::vector<std::string>{"hour", "rsi"}));
    ASSERT_FUZZY_EQ(m2.at(i, 1), rsiWilder(c, 5)[i]);
    ASSERT_FUZZY_EQ(m2.at(5, 0), 13.0);
    FeatureSpec noIndicators = few;
    noIndicators.setEnabled(Feature::Rsi, false);
    ASSERT_EQ(noIndicators.warmup(), size_t(0));
}
TEST(Features, zScoreUsesOnlyTheFittedRange) {
    FeatureMatrix m;
    m.bars = 6;
    m.features = 2;
    m.values = {1, 5, 2, 5, 3, 5, 100, 5, 200, 5, -7, 5};
    const ZScoreStats s = fitZScore(m, 0, 2);  // rows 0..2 only
    ASSERT_FUZZY_EQ(s.mean[0], 2.0);
    ASSERT_TRUE(near(s.stddev[0], std::sqrt(2.0 / 3)));
    ASSERT_FUZZY_EQ(s.mean[1], 5.0);
    ASSERT_FUZZY_EQ(s.stddev[1], 0.0);
    applyZScore(m, s);
    ASSERT_TRUE(near(m.at(0, 0), -1.0 / std::sqrt(2.0 / 3)));
    ASSERT_TRUE(near(m.at(3, 0), 98.0 / std::sqrt(2.0 / 3)));
    ASSERT_FUZZY_EQ(m.at(4, 1), 0.0);  // constant feature -> 0, no division by zero
}
TEST(Features, positionalEncodingFormula) {
    ASSERT_FUZZY_EQ(positionalEncoding(0, 0, 12), 0.0);
    ASSERT_FUZZY_EQ(positionalEncoding(0, 1, 12), 1.0);
    ASSERT_TRUE(near(positionalEncoding(3, 4, 12), std::sin(3.0 / std::pow(10000.0, 4.0 / 12))));
    ASSERT_TRUE(near(positionalEncoding(3, 5, 12), std::cos(3.0 / std::pow(10000.0, 4.0 / 12))));
    std::vector<float> block(3 * 4, 1.0f);
    addPositionalEncoding(block.data(), 3, 4);
    ASSERT_FUZZY_EQ(block[0], 1.0f);
    ASSERT_FUZZY_EQ(block[1], 2.0f);
    ASSERT_FUZZY_EQ(block[2 * 4 + 2], float(1.0 + std::sin(2.0 / 100.0)));
}
