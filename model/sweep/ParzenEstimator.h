// The Parzen estimator of one parameter in TPE (Bergstra et al. 2011; Optuna's univariate
// _ParzenEstimator): a weighted mixture of one kernel per observation plus a prior kernel.
// Numeric parameters (in their internal space: log for LogFloat, [low - step/2, high + step/2]
// for Int) get Gaussians truncated to the range, each sigma the larger gap to its sorted
// neighbours (the end kernels: their one inner gap), clipped to [range / min(100, 1 + kernels),
// range]; the prior is N(middle, range). Categorical parameters get one row per observation,
// (prior_weight / kernels + [choice observed]) normalised, and a uniform prior row. Immutable
// once built; one thread.
#pragma once

#include <vector>

#include "model/Rng.h"
#include "model/sweep/SearchSpace.h"

namespace nnwb::sweep {

class ParzenEstimator {
public:
    // `obs`: the observations in the internal space (Categorical: choice indices), `weights`
    // their weights (same length, positive); the prior kernel gets `priorWeight`.
    ParzenEstimator(const ParamDef& def, const std::vector<double>& obs,
                    const std::vector<double>& weights, double priorWeight);
    // A draw in the internal space (Int: rounded onto the grid; Categorical: an index).
    double sample(Rng& rng) const;
    // log density (Categorical and Int: log probability of the value's cell).
    double logPdf(double x) const;

    // The internal space of a parameter: value -> internal and back.
    static double toInternal(const ParamDef& def, const nlohmann::json& value);
    static nlohmann::json fromInternal(const ParamDef& def, double x);

private:
    const ParamDef& def_;
    bool categorical_;
    double low_ = 0, high_ = 0;  // internal range
    std::vector<double> weights_, mus_, sigmas_;
    std::vector<std::vector<double>> rows_;  // categorical kernels
};

}  // namespace nnwb::sweep
