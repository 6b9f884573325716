// The probability of backtest overfitting by CSCV (model/overfitting/Cscv.h): a case of S = 4
// (6 splits) worked by hand, ties, the Sharpe ratio as the trading figures define it, noise-only
// trials (PBO near 0.5 over seeds), one trial with an edge among noise (PBO near 0), refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "model/overfitting/Cscv.h"
#include "model/trading/TradingEvaluation.h"

using namespace nnwb;

namespace {

// Blocks of two bars, mean m each: (m + 1, m - 1).
std::vector<double> blocksOf(const std::vector<double>& means) {
    std::vector<double> r;
    for (double m : means) {
        r.push_back(m + 1);
        r.push_back(m - 1);
    }
    return r;
}

std::vector<std::vector<double>> noise(size_t trials, size_t bars, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<std::vector<double>> r(trials, std::vector<double>(bars));
    for (auto& t : r)
        for (double& x : t) x = normal(rng);
    return r;
}

}  // namespace

// Three trials, S = 4 blocks of 2 bars (m + 1, m - 1); block means A (3, 3, -1, -1), B all 1,
// C (-1, -1, 3, 3). Two blocks with means a and b: mean (a + b) / 2, sum of squared deviations
// 4 + (a - b)², Sharpe mean / sqrt(that / 3). So q = sqrt(3) / 2 (B anywhere, or a = b = 1 or
// -1 up to sign), 3q (a = b = 3) and r = sqrt(3 / 20) (a = 3, b = -1).
// Splits {0,1}: A wins in sample (3q), out of sample -q, rank 1 of 3: w = 1/4, logit -ln 3.
// {2,3}: C the same. {0,2} {0,3} {1,2} {1,3}: A and C r, B q wins, out of sample q, rank 3:
// logit ln 3. PBO 2/6; loss 2/6; the fit through (3q, -q) x2 and (q, q) x4: slope -1, intercept
// 2q, R² 1. Out of sample, winners {-q, -q, q x4}, all {-q x2, r x8, q x6, 3q x2}: F* - F is
// 1/3 - 1/9 at -q (first order fails, gap 2/9); SD2 falls to -(4r + 2q)/9 at 3q = the area.
TEST(Cscv, FourBlocksByHand) {
    const std::vector<std::vector<double>> m = {blocksOf({3, 3, -1, -1}), blocksOf({1, 1, 1, 1}),
                                                blocksOf({-1, -1, 3, 3})};
    const CscvResult r = cscv(m, 4);
    const double q = std::sqrt(3.0) / 2, rr = std::sqrt(3.0 / 20);
    ASSERT_EQ(r.splits.size(), 6u);
    EXPECT_EQ(r.trials, 3u);
    EXPECT_EQ(r.bars, 8u);
    EXPECT_EQ(r.minBlockBars, 2u);
    const std::vector<std::vector<int>> blocks = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    const std::vector<size_t> winner = {0, 1, 1, 1, 1, 2};
    for (size_t i = 0; i < 6; ++i) {
        const CscvSplit& s = r.splits[i];
        EXPECT_EQ(s.inSampleBlocks, blocks[i]) << i;
        EXPECT_EQ(s.winner, winner[i]) << i;
        const bool edge = i == 0 || i == 5;
        EXPECT_NEAR(s.inSample, edge ? 3 * q : q, 1e-12) << i;
        EXPECT_NEAR(s.outOfSample, edge ? -q : q, 1e-12) << i;
        EXPECT_EQ(s.rank, edge ? 1.0 : 3.0) << i;
        EXPECT_EQ(s.relativeRank, edge ? 0.25 : 0.75) << i;
        EXPECT_NEAR(s.logit, edge ? -std::log(3.0) : std::log(3.0), 1e-12) << i;
    }
    EXPECT_DOUBLE_EQ(r.pbo, 2.0 / 6);
    EXPECT_DOUBLE_EQ(r.probabilityOfLoss, 2.0 / 6);
    EXPECT_NEAR(r.slope, -1.0, 1e-12);
    EXPECT_NEAR(r.intercept, 2 * q, 1e-12);
    EXPECT_NEAR(r.rSquared, 1.0, 1e-12);
    EXPECT_FALSE(r.dominance.firstOrder);
    EXPECT_NEAR(r.dominance.firstOrderGap, 2.0 / 9, 1e-12);
    EXPECT_FALSE(r.dominance.secondOrder);
    EXPECT_NEAR(r.dominance.secondOrderMin, -(4 * rr + 2 * q) / 9, 1e-12);
    EXPECT_NEAR(r.dominance.area, -(4 * rr + 2 * q) / 9, 1e-12);
}

// Equal trials: the first wins in sample, out of sample it shares the mean rank (N + 1) / 2:
// w = 1/2, logit 0, counted as overfit (PBO counts logits <= 0).
TEST(Cscv, TiesTakeTheFirstWinnerAndTheMeanRank) {
    const std::vector<double> one = {0.5, -0.2, 0.1, 0.3, -0.4, 0.2, 0.0, 0.6};
    const CscvResult r = cscv({one, one, one}, 4);
    for (const CscvSplit& s : r.splits) {
        EXPECT_EQ(s.winner, 0u);
        EXPECT_EQ(s.rank, 2.0);
        EXPECT_EQ(s.logit, 0.0);
    }
    EXPECT_EQ(r.pbo, 1.0);
    EXPECT_TRUE(r.dominance.firstOrder);  // F* and F are the same distribution
    EXPECT_TRUE(r.dominance.secondOrder);
}

// The statistic is the trading figures' Sharpe per bar; the blocks' moments combine to the
// Sharpe of the concatenated returns.
TEST(Cscv, SharpeIsTheTradingFiguresSharpe) {
    TradingEquity e;
    const std::vector<double> pct = {0, 0.4, 0.1, 0.9, 0.7, 1.5, 1.2};
    for (size_t i = 0; i < pct.size(); ++i) {
        e.bar.push_back(i);
        e.time.push_back(int64_t(i) * 3600);
        e.position.push_back(0);
        e.points.push_back(pct[i] * 100);
        e.pct.push_back(pct[i]);
    }
    std::vector<double> r;
    for (size_t i = 1; i < pct.size(); ++i) r.push_back(pct[i] - pct[i - 1]);
    const std::vector<Trade> trades(1);  // the Sharpe is the equity's; one trade makes it exist
    EXPECT_NEAR(cscvSharpe(r), tradingFigures(trades, e, 1.0).sharpe, 1e-14);
    EXPECT_EQ(cscvSharpe({1.0, 1.0, 1.0}), 0.0);  // no deviation
    EXPECT_EQ(cscvSharpe({1.0}), 0.0);

    const auto m = noise(5, 37, 3);  // 37 bars in 6 blocks: 6 or 7 bars each
    const CscvResult c = cscv(m, 6);
    EXPECT_EQ(c.splits.size(), 20u);
    EXPECT_EQ(c.minBlockBars, 6u);
    for (const CscvSplit& s : c.splits) {
        std::vector<bool> in(6, false);
        for (int b : s.inSampleBlocks) in[size_t(b)] = true;
        std::vector<double> is, oos;
        for (size_t b = 0; b < 6; ++b)
            for (size_t i = b * 37 / 6; i < (b + 1) * 37 / 6; ++i)
                (in[b] ? is : oos).push_back(m[s.winner][i]);
        EXPECT_NEAR(s.inSample, cscvSharpe(is), 1e-12);
        EXPECT_NEAR(s.outOfSample, cscvSharpe(oos), 1e-12);
    }
}

// i.i.d. normal returns: the in-sample winner's out-of-sample rank is uniform, PBO about 0.5.
TEST(Cscv, NoiseGivesPboNearHalf) {
    double sum = 0;
    const int seeds = 12;
    for (int seed = 1; seed <= seeds; ++seed) {
        const CscvResult r = cscv(noise(100, 1000, unsigned(seed)), 8);
        EXPECT_EQ(r.splits.size(), 70u);
        sum += r.pbo;
    }
    EXPECT_NEAR(sum / seeds, 0.5, 0.1);
}

// One trial with a Sharpe of 0.3 per bar among 99 of noise wins every split and stays on top.
TEST(Cscv, RealEdgeGivesPboNearZero) {
    auto m = noise(100, 1000, 7);
    for (double& x : m[42]) x += 0.3;
    const CscvResult r = cscv(m, 8);
    EXPECT_LE(r.pbo, 0.02);
    EXPECT_LE(r.probabilityOfLoss, 0.02);
    size_t wins = 0;
    for (const CscvSplit& s : r.splits) wins += s.winner == 42;
    EXPECT_EQ(wins, r.splits.size());
    EXPECT_TRUE(r.dominance.firstOrder);
    EXPECT_TRUE(r.dominance.secondOrder);
    EXPECT_GT(r.dominance.area, 0.0);
}

TEST(Cscv, Refusals) {
    const auto m = noise(3, 16, 1);
    EXPECT_NO_THROW(cscv(m, 8));  // 2 bars a block
    auto expectRefused = [](const std::vector<std::vector<double>>& x, int s, const char* word) {
        try {
            cscv(x, s);
            ADD_FAILURE() << "not refused: " << word;
        } catch (const CscvError& e) {
            EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
        }
    };
    expectRefused(m, 7, "must be even");
    expectRefused(m, 0, "must be even");
    expectRefused(m, 22, "must be even");
    expectRefused(noise(3, 15, 1), 8, "fewer than 2 bars");
    expectRefused(noise(1, 100, 1), 4, "at least 2 trials");
    expectRefused({}, 4, "at least 2 trials");
    auto uneven = m;
    uneven[1].pop_back();
    expectRefused(uneven, 4, "has 15 returns");
    auto nan = m;
    nan[2][5] = std::nan("");
    expectRefused(nan, 4, "not finite");
}

// Sharpe ratios that differ only by rounding (the same trades, the equity summed in another
// order) are equal: the first wins in sample and they share the mean rank out of sample.
TEST(Cscv, RoundingDifferencesAreTies) {
    const std::vector<double> a = {0.5, -0.2, 0.1, 0.3, -0.4, 0.2, 0.0, 0.6};
    std::vector<double> b = a;
    for (double& x : b) x *= 1 + 1e-15;  // the same Sharpe ratios up to rounding
    const std::vector<double> worse = {-0.5, 0.2, -0.1, -0.3, 0.4, -0.2, 0.0, -0.6};
    const CscvResult r = cscv({worse, b, a}, 4);
    for (const CscvSplit& s : r.splits) {
        if (s.winner == 0) continue;  // `worse` can win a split where a and b lose
        EXPECT_EQ(s.winner, 1u);      // b, the first of the two equal ones
    }
    for (const CscvSplit& s : r.splits)
        if (s.winner == 1) EXPECT_TRUE(s.rank == 2.5 || s.rank == 1.5) << s.rank;
}
