// The folds of one walk-forward as parallel child processes on the sweep engine's slots
// (`nnwb-cli walkforward --slots S`, docs/cli.md): each fold is `nnwb-cli walkforward
// --experiment <the effective experiment> --fold K --fold-out FILE` (trained and recorded
// exactly as the serial path trains fold K), which writes the fold's outcome as JSON; the parent
// reads them back and stitches them in fold order (WalkForward::stitch). CLI thread; Linux.
#pragma once

#include <string>

#include "app/engine/WalkForward.h"
#include "app/runs/RunRecorder.h"

namespace nnwb::cli {

// The child: fold `k` (0-based) of `wf`, its outcome written to `outFile`. Returns 0, 1 when the
// fold failed or stopped (the file says why). Throws what WalkForward::runFold throws.
int runFoldToFile(WalkForward& wf, size_t k, const RecordingOptions& recording,
                  const std::string& outFile);

// The parent: every fold of `wf` on `slots` (the sweep's `--slots` form, e.g. "cpu=3"), at most
// one fold per slot at a time; `events` hears foldStarted as a fold's process starts and
// foldEnded as it ends. Throws UsageError for bad slots, std::runtime_error when a child gives
// no outcome (its stderr file is named).
WalkForwardResult runFoldsInParallel(WalkForward& wf, const std::string& slots,
                                     const RecordingOptions& recording, WalkForwardEvents& events);
// The same, the folds' outcomes in fold order, unstitched (a cpcv plan's splits: app/engine/Cpcv.h
// stitches them into paths).
std::vector<FoldOutcome> runFoldOutcomesInParallel(WalkForward& wf, const std::string& slots,
                                                   const RecordingOptions& recording,
                                                   WalkForwardEvents& events);

}  // namespace nnwb::cli
