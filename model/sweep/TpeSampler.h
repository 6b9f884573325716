// The Tree-structured Parzen Estimator sampler (Bergstra et al. 2011, "Algorithms for
// hyper-parameter optimization"; the definitions of Optuna's TPESampler, univariate): the first
// nStartup trials are random; after that the finished trials (complete by value, then pruned by
// furthest epoch and value there) are split into the gamma(n) = min(ceil(0.1 n), 25) best
// ("below", l) and the rest ("above", g); running trials join "above" (constant liar: a trial
// still running counts as a bad result, so parallel asks move away from it). Each active
// parameter, in order, gets nCandidates draws from l's Parzen estimator (ParzenEstimator.h) and
// takes the one with the largest log l(x) - log g(x) (the expected-improvement ratio).
// Observation weights: 1 each up to 25, else a ramp from 1/n to 1 over all but the newest 25.
// Use from one thread.
#pragma once

#include <cstdint>
#include <memory>

#include "model/sweep/Sampler.h"

namespace nnwb::sweep {

struct TpeOptions {
    int nStartup = 10;
    int nCandidates = 24;
    double priorWeight = 1.0;
    bool constantLiar = true;
};

std::unique_ptr<Sampler> makeTpeSampler(const SearchSpace& space, uint64_t seed,
                                        TpeOptions options = {});

// gamma(n) = min(ceil(0.1 n), 25): how many finished trials form the good group.
int tpeGamma(int n);
// The observation weights of n trials in trial order.
std::vector<double> tpeWeights(int n);

}  // namespace nnwb::sweep
