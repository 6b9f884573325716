// The whole report `nnwb-cli sweep show --json` prints, for `nnwb-cli report --sweep` and the
// window's File ▸ Export Report: the one read model (SweepReadModel.h) on the sweep's stored
// trials, plus the stored trading JSON of the run its verdict is about. Any thread that owns
// the RunStore.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "app/sweep/SweepStore.h"
#include "model/sweep/SweepSpec.h"

namespace nnwb {

// The read model's report of sweep `sweep` (whose spec is `spec`) with "deflatedSharpe" and
// "overfitting" where they exist; CSCV with `cscvBlocks` blocks.
nlohmann::json sweepShowReport(RunStore& store, const SweepRow& sweep, const sweep::SweepSpec& spec,
                               int cscvBlocks);

// The trading JSON of the run the sweep's verdict is about: the deflated Sharpe ratio's best
// trial's run where there is one, else the leaderboard's best; null when it has none.
nlohmann::json sweepVerdictTrading(RunStore& store, const nlohmann::json& report);

}  // namespace nnwb
