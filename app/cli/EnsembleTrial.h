// `nnwb-cli train --trial --population K --vary seed=... --ensemble --save-model FILE`: a sweep
// trial that is an ensemble of K members (docs/sweeps.md "Ensemble trials"). The members train
// as one population on the run engine, unrecorded; the trial's lines are the ensemble's: one
// "started" (with the members' seeds), one "epoch" per epoch with the ensemble's own figures
// (EnsembleCurve) and its members' reports, the kept ensemble's trading as "result", one "end".
// An answer ends the whole ensemble. CLI thread only; Qt-free.
#pragma once

#include <string>
#include <vector>

#include "model/Experiment.h"

namespace nnwb::cli {

// Trains the ensemble trial of `base` with `members` members varied by `vary` and writes the
// kept ensemble bundle to `saveModel` (unless a member failed). Returns the trial's exit status
// (app/engine/RunOutcome.h TrialExit); throws UsageError for bad input.
int runTrialEnsemble(const Experiment& base, int members, const std::vector<std::string>& vary,
                     const std::string& saveModel);

}  // namespace nnwb::cli
