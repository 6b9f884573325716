// The probability of backtest overfitting (PBO) by combinatorially symmetric cross-validation
// (CSCV; Bailey, Borwein, López de Prado and Zhu, "The Probability of Backtest Overfitting",
// J. Computational Finance 2016; docs/overfitting.md): from N trials' per-bar returns on one
// common range, the logits of the in-sample winners' out-of-sample ranks, PBO, the performance
// degradation, the probability of loss and stochastic dominance. Pure functions; any thread.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace nnwb {

// Refused input: S odd or out of range, fewer than 2 trials, series of unequal length, a block
// of fewer than 2 bars, a non-finite return. The message says which.
class CscvError : public std::invalid_argument {
public:
    explicit CscvError(const std::string& what) : std::invalid_argument(what) {}
};

// The performance statistic: the Sharpe ratio per bar of `returns` as the trading figures
// define it (TradingReport.h): mean / sample standard deviation (n - 1), 0 for fewer than two
// returns or no deviation.
double cscvSharpe(const std::vector<double>& returns);

// Two Sharpe ratios are equal when they differ by at most this share of the larger magnitude:
// trials with the same trades have returns that differ only by rounding.
constexpr double kCscvTieTolerance = 1e-10;

// One of the C(S, S/2) splits: the blocks in sample (the rest are out of sample), the trial
// best in sample (the first of equals), its Sharpe in and out of sample, its rank out of
// sample among the N trials (1 = worst; equal Sharpe ratios share the mean of their ranks),
// w = rank / (N + 1) and the logit ln(w / (1 - w)).
struct CscvSplit {
    std::vector<int> inSampleBlocks;
    size_t winner = 0;
    double inSample = 0, outOfSample = 0;
    double rank = 0, relativeRank = 0, logit = 0;
};

// First- and second-order stochastic dominance of the winners' out-of-sample Sharpe ratios
// (F*, one per split) over every trial's out-of-sample Sharpe ratio in every split (F, N per
// split), with F and F* their empirical distribution functions:
// - first order holds when F*(x) <= F(x) for every x; `firstOrderGap` = max over x of
//   F*(x) - F(x) (<= 0 when it holds);
// - second order holds when SD2(x) = integral from -inf to x of (F(t) - F*(t)) dt >= 0 for
//   every x; `secondOrderMin` = the minimum of SD2 (>= 0 when it holds, up to rounding of
//   1e-12 times the Sharpe ratios' range);
// - `area` = SD2(+inf) = the mean of F* minus the mean of F.
struct CscvDominance {
    bool firstOrder = false, secondOrder = false;
    double firstOrderGap = 0, secondOrderMin = 0, area = 0;
};

struct CscvResult {
    int blocks = 0;                 // S
    size_t trials = 0;              // N
    size_t bars = 0;                // T, the returns per trial
    size_t minBlockBars = 0;        // blocks hold floor(T / S) or one more bar
    std::vector<CscvSplit> splits;  // C(S, S/2), in lexicographic order of inSampleBlocks
    double pbo = 0;  // the share of splits whose logit is <= 0 (winner at or below the median)
    // The least-squares line outOfSample = intercept + slope * inSample through the splits'
    // winners, and its R² (NaN when the winners' in-sample Sharpe ratios are all equal).
    double slope = 0, intercept = 0, rSquared = 0;
    double probabilityOfLoss = 0;  // the share of splits whose winner's out-of-sample Sharpe < 0
    CscvDominance dominance;
};

constexpr int kCscvDefaultBlocks = 16;
constexpr int kCscvMaxBlocks = 20;  // C(20, 10) = 184,756 splits

// CSCV of `returns[trial][bar]` (every trial the same T bars) cut into `blocks` contiguous
// blocks, block s holding bars [floor(s T / S), floor((s + 1) T / S)). Throws CscvError.
CscvResult cscv(const std::vector<std::vector<double>>& returns, int blocks = kCscvDefaultBlocks);

}  // namespace nnwb
