// The deflated Sharpe ratio (model/trading/DeflatedSharpe.h) against the paper's numerical
// example and hand-computed cases, and the return moments the trading figures carry for it.
#include <gtest/gtest.h>

#include <cmath>

#include "model/trading/DeflatedSharpe.h"
#include "model/trading/TradingEvaluation.h"

using namespace nnwb;

TEST(DeflatedSharpe, NormalFunctions) {
    EXPECT_NEAR(normalCdf(0.0), 0.5, 1e-15);
    EXPECT_NEAR(normalCdf(1.0), 0.8413447460685429, 1e-12);
    EXPECT_NEAR(normalCdf(-1.959963984540054), 0.025, 1e-12);
    EXPECT_NEAR(normalQuantile(0.975), 1.9599639845400536, 1e-10);
    EXPECT_NEAR(normalQuantile(0.99), 2.3263478740408408, 1e-10);
    EXPECT_NEAR(normalQuantile(1e-5), -4.2648907939228256, 1e-9);  // the lower tail branch
    EXPECT_NEAR(normalQuantile(1 - 1e-5), 4.2648907939228256, 1e-9);
    for (double p : {0.001, 0.02, 0.3, 0.5, 0.77, 0.97, 0.9999})
        EXPECT_NEAR(normalCdf(normalQuantile(p)), p, 1e-12) << p;
}

// Bailey & López de Prado (2014), section "A numerical example": an annualised Sharpe of 2.5
// over 1250 daily returns, the best of N = 100 trials whose annualised Sharpe ratios have
// variance 0.5, returns with skewness -3 and kurtosis 10: SR0 = 1.7894 annualised, DSR 0.9004.
// Here in per-day units (250 days a year), as the function takes them.
TEST(DeflatedSharpe, PaperExample) {
    const double perYear = 250;
    EXPECT_NEAR(expectedMaxSharpe(100, 0.5), 1.7894, 1e-4);
    const double sr0 = expectedMaxSharpe(100, 0.5 / perYear);
    EXPECT_NEAR(sr0 * std::sqrt(perYear), 1.7894, 1e-4);
    const double dsr = probabilisticSharpe(2.5 / std::sqrt(perYear), sr0, 1250, -3, 10);
    EXPECT_NEAR(dsr, 0.9004, 1e-4);
}

// By hand: Sharpe ratios {0.1, 0.2, 0.3}: V = 0.01, SR* = 0.3, N = 3;
// SR0 = 0.1 (0.4228 Φ⁻¹(2/3) + 0.5772 Φ⁻¹(1 - 1/(3e))), with Φ⁻¹(2/3) = 0.430727,
// Φ⁻¹(0.877374) = 1.161957: SR0 = 0.085280. T = 101, skew 0, kurt 3 (normal):
// z = (0.3 - 0.085280) · 10 / sqrt(1 + 0.5 · 0.09) = 2.100455, DSR = Φ(z) = 0.982156.
TEST(DeflatedSharpe, ThreeTrialsByHand) {
    const DeflatedSharpe d = deflatedSharpe({0.2, 0.3, 0.1}, 101, 0, 3);
    EXPECT_EQ(d.trials, 3u);
    EXPECT_NEAR(d.variance, 0.01, 1e-15);
    EXPECT_DOUBLE_EQ(d.sharpe, 0.3);
    EXPECT_NEAR(normalQuantile(2.0 / 3.0), 0.430727, 1e-6);
    EXPECT_NEAR(normalQuantile(1 - 1 / (3 * std::exp(1.0))), 1.161957, 1e-6);
    EXPECT_NEAR(d.expectedMax, 0.085280, 1e-6);
    EXPECT_NEAR(d.probability, 0.982156, 1e-6);
}

TEST(DeflatedSharpe, EdgeCases) {
    // One trial: nothing to deflate, SR0 = 0 (the probabilistic Sharpe against 0).
    const DeflatedSharpe one = deflatedSharpe({0.1}, 101, 0, 3);
    EXPECT_EQ(one.expectedMax, 0.0);
    EXPECT_NEAR(one.probability, normalCdf(0.1 * 10 / std::sqrt(1 + 0.5 * 0.01)), 1e-12);
    // Every trial the same Sharpe: V = 0, SR0 = 0.
    const DeflatedSharpe same = deflatedSharpe({0.05, 0.05, 0.05, 0.05}, 50, 0, 3);
    EXPECT_EQ(same.variance, 0.0);
    EXPECT_EQ(same.expectedMax, 0.0);
    EXPECT_GT(same.probability, 0.5);
    // A best Sharpe equal to the benchmark: one half.
    EXPECT_NEAR(probabilisticSharpe(0.2, 0.2, 30, 1, 5), 0.5, 1e-15);
    // More trials raise the bar, so the same best Sharpe is less convincing.
    EXPECT_GT(expectedMaxSharpe(1000, 0.01), expectedMaxSharpe(10, 0.01));
    // Undefined: no trials, fewer than two returns, a non-positive denominator.
    EXPECT_TRUE(std::isnan(deflatedSharpe({}, 100, 0, 3).probability));
    EXPECT_TRUE(std::isnan(probabilisticSharpe(0.1, 0, 1, 0, 3)));
    EXPECT_TRUE(std::isnan(probabilisticSharpe(1.0, 0, 100, 5, 1)));
}

// The trading figures carry the per-bar returns' count, skewness and kurtosis: equity %
// 0, 1, 2, 3, 7 gives returns 1, 1, 1, 4 (a two-point law with p = 3/4): skewness 2/sqrt(3),
// kurtosis 7/3.
TEST(DeflatedSharpe, ReturnMomentsOfTheEquity) {
    TradingEquity e;
    e.pct = {0, 1, 2, 3, 7};
    e.points = {0, 10, 20, 30, 70};
    e.bar = {0, 1, 2, 3, 4};
    // One trade that made the equity (without trades the ratios do not exist: n/a).
    Trade t;
    t.direction = 1;
    t.exitBar = 4;
    t.net = 70;
    t.netPct = 7;
    const TradingFigures f = tradingFigures({t}, e, 0);
    EXPECT_EQ(f.returns, 4.0);
    EXPECT_NEAR(f.skewness, 2 / std::sqrt(3.0), 1e-12);
    EXPECT_NEAR(f.kurtosis, 7.0 / 3.0, 1e-12);
    EXPECT_NEAR(f.sharpe, 1.75 / 1.5, 1e-12);  // sample deviation sqrt(6.75 / 3) = 1.5
    TradingEquity flat;
    flat.pct = {0, 0, 0};
    flat.points = flat.pct;
    const TradingFigures g = tradingFigures({}, flat, 0);
    EXPECT_EQ(g.returns, 2.0);
    EXPECT_EQ(g.skewness, 0.0);
    EXPECT_EQ(g.kurtosis, 0.0);
}
