// What `sweep show` and `sweep export` say about a sweep, from its stored rows: counts by
// state, the leaderboard (complete trials by objective, best first), the best trial, the Pareto
// front of the two objectives when there are two, parameter importance (model/sweep/
// Importance.h) and the trials as CSV. Pure functions of the rows; any thread.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/sweep/SweepStore.h"
#include "model/sweep/SweepSpec.h"

namespace nnwb {

nlohmann::json sweepReport(const SweepRow& sweep, const sweep::SweepSpec& spec,
                           const std::vector<TrialRow>& trials);
// The report as text (sweep show without --json); `top` rows of the leaderboard.
std::string sweepReportText(const nlohmann::json& report, size_t top);
// One row per trial: number, config, replicate, state, run, attempts, slot, epochs, value,
// second value, pruned_at, error, then one column per parameter.
std::string sweepCsv(const sweep::SweepSpec& spec, const std::vector<TrialRow>& trials);

}  // namespace nnwb
