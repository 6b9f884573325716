// Parameter importance of a sweep (docs/sweeps.md, "Parameter importance"): a functional-ANOVA
// (fANOVA-style) decomposition of the objective into main effects. Each parameter's values are
// binned (categorical values and "inactive" are bins of their own; numeric values equal-count
// bins, min(10, n / 5) of them, at least 2, log parameters in log space); an additive model
// y = mean + sum_j f_j(bin_j) is fitted by backfitting; a parameter's index is omega squared of
// its component, (SS_j - (k_j - 1) MS_residual) / (SS_total + MS_residual), clipped at 0:
// about 0 for a parameter that does not matter, near 1 for one that decides the objective.
// Pure function; any thread.
#pragma once

#include <string>
#include <vector>

#include "model/sweep/SearchSpace.h"
#include "model/sweep/Trial.h"

namespace nnwb::sweep {

struct ParamImportance {
    std::string name;
    double index = 0.0;  // omega squared in [0, 1]
    int bins = 0;
};

// Over the trials with a final value (Complete); sorted by index, largest first. Empty with
// fewer than 4 such trials.
std::vector<ParamImportance> parameterImportance(const SearchSpace& space, const History& trials);

}  // namespace nnwb::sweep
