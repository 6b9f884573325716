// The deflated Sharpe ratio of a sweep (model/trading/DeflatedSharpe.h, docs/sweeps.md): from
// the trading figures stored with its trials' runs, the best trial's per-bar Sharpe, the number
// of trials that traded, the expected maximum Sharpe of that many trials without skill and the
// probability that the best one's Sharpe is more than that luck. Pure function of the rows and
// the runs' stored trading JSON; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/sweep/SweepStore.h"

namespace nnwb {

// {trials, bestTrial, run, sharpe, sharpeAnnual, returns, skewness, kurtosis, variance,
//  expectedMaxSharpe, expectedMaxSharpeAnnual, probability (null if undefined), meaning};
// null when no complete or pruned trial has trading figures. `tradingOfRun`: a run id's
// stored trading JSON (StoredRun::trading).
nlohmann::json sweepDeflatedSharpe(const std::vector<TrialRow>& trials,
                                   const std::map<int64_t, nlohmann::json>& tradingOfRun);

// The lines `sweep show` prints for it ("" for null).
std::string sweepDeflatedSharpeText(const nlohmann::json& dsr);

}  // namespace nnwb
