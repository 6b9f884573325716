// The deflated Sharpe ratio (Bailey & López de Prado 2014, "The Deflated Sharpe Ratio:
// Correcting for Selection Bias, Backtest Overfitting and Non-Normality"): the probability that
// the best of N trials' Sharpe ratios is above what the best of N trials without skill would
// reach, given its returns' count, skewness and kurtosis. Pure functions; any thread.
#pragma once

#include <cstddef>
#include <vector>

namespace nnwb {

// The standard normal distribution function Φ and its inverse Φ⁻¹ (p in (0, 1); Acklam's
// rational approximation refined by one Halley step, |error| below 1e-12).
double normalCdf(double x);
double normalQuantile(double p);

// The expected maximum of N independent Sharpe ratios of trials without skill whose Sharpe
// ratios vary with variance `variance`: sqrt(V) ((1 − γ) Φ⁻¹(1 − 1/N) + γ Φ⁻¹(1 − 1/(N e))),
// γ the Euler–Mascheroni constant. 0 for N <= 1 or V <= 0.
double expectedMaxSharpe(size_t trials, double variance);

// The probabilistic Sharpe ratio of an observed per-period Sharpe `sharpe` against the
// benchmark `benchmark` (both per period, not annualised), over `returns` returns with
// skewness `skewness` and kurtosis `kurtosis` (not excess: 3 for a normal law):
// Φ((SR − SR0) sqrt(T − 1) / sqrt(1 − skew SR + (kurt − 1)/4 SR²)). Needs T >= 2 and a
// positive denominator; NaN otherwise.
double probabilisticSharpe(double sharpe, double benchmark, double returns, double skewness,
                           double kurtosis);

struct DeflatedSharpe {
    size_t trials = 0;       // N, the trials whose Sharpe ratios were given
    double variance = 0;     // V, the sample variance of those Sharpe ratios (0 for N < 2)
    double sharpe = 0;       // SR*, the best (largest) of them, per period
    double expectedMax = 0;  // SR0, the expected maximum of N Sharpe ratios without skill
    double probability = 0;  // the DSR: probabilisticSharpe(SR*, SR0, ...); NaN if undefined
};

// The DSR of the best of `sharpes` (per-period Sharpe ratios of every trial tried), whose
// returns were `returns` many with that skewness and kurtosis.
DeflatedSharpe deflatedSharpe(const std::vector<double>& sharpes, double returns, double skewness,
                              double kurtosis);

}  // namespace nnwb
