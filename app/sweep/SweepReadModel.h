// One read model of a stored sweep (issue 42 §6) for `sweep show` (its JSON and text) and the
// window's Sweeps tab: the report of its rows (SweepReport.h) with the deflated Sharpe ratio of
// the trading figures of the trials' runs (found through trials.run_id) and the probability of
// backtest overfitting of their stored per-bar returns. Reads the store on the caller's
// connection; the thread that owns the RunStore.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "app/sweep/SweepOverfitting.h"
#include "app/sweep/SweepStore.h"
#include "model/sweep/SweepSpec.h"

namespace nnwb {

// sweepReport() plus "deflatedSharpe" and "overfitting" (S = `cscvBlocks`) when the trials'
// runs have what they need.
nlohmann::json sweepShowReport(RunStore& store, const SweepRow& sweep, const sweep::SweepSpec& spec,
                               const std::vector<TrialRow>& trials, int cscvBlocks);
// An objective value as `sweep show`'s text and the Sweeps tab write it: 6 significant digits
// ("0.123457", "1.5e-07"); `sweep show --json` keeps the full number.
std::string sweepValueText(double v);
// Each trial's place among the trials with a value, oriented by the objective's goal (lower
// values first when it is minimised, higher ones when maximised): 0 the best .. 1 the worst
// (0 when fewer than two trials have a value; equal values share the better place); none for a
// trial without a value. What the Sweeps tab colours its parallel coordinates by.
std::vector<std::optional<double>> sweepValueRanks(const std::vector<TrialRow>& trials,
                                                   bool minimize);
// The bars x trials matrix of the returns stored with the trials' runs (SweepOverfitting.h).
SweepReturnsMatrix sweepStoredReturns(RunStore& store, const std::vector<TrialRow>& trials);

}  // namespace nnwb
