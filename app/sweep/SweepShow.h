// The whole report `nnwb-cli sweep show --json` prints, read from the run store: the stored
// rows' report (SweepReport.h), the deflated Sharpe ratio from the trading figures of the
// trials' runs (SweepDeflatedSharpe.h) and PBO from their per-bar returns (SweepOverfitting.h),
// plus the stored trading JSON of a run, for `nnwb-cli report --sweep` and the window's
// File ▸ Export Report. Any thread that owns the RunStore.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "app/sweep/SweepStore.h"
#include "model/sweep/SweepSpec.h"

namespace nnwb {

// The report of sweep `sweep` (whose spec is `spec`) with "deflatedSharpe" and "overfitting"
// where they exist; CSCV with `cscvBlocks` blocks.
nlohmann::json sweepShowReport(RunStore& store, const SweepRow& sweep, const sweep::SweepSpec& spec,
                               int cscvBlocks);

// The trading JSON of the run the sweep's verdict is about: the deflated Sharpe ratio's best
// trial's run where there is one, else the leaderboard's best; null when it has none.
nlohmann::json sweepVerdictTrading(RunStore& store, const nlohmann::json& report);

}  // namespace nnwb
