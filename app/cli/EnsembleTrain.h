// `nnwb-cli train --population N --vary seed=... --ensemble --save-model FILE` (docs/ensembles.md):
// after the population trained, its members' kept weights become one ensemble bundle
// (model/ensemble/EnsembleBundle.h) with each member's validation figures, and the ensemble's
// own validation figures beside its best and median member are printed. Runs on the CLI's main
// thread; Qt-free.
#pragma once

#include <string>

#include "app/cli/EnsembleRecord.h"
#include "app/cli/PopulationTrain.h"
#include "app/engine/RunEngine.h"
#include "model/ensemble/EnsembleBundle.h"

namespace nnwb::cli {

struct EnsembleTrainOptions {
    std::string saveModel;  // the ensemble bundle to write
    bool json = false;      // one JSON object {"ensemble": {...}} instead of the lines
    std::string name;       // the experiment's name, without the members' varied values
};

// Refuses (UsageError) what cannot make an ensemble, before anything trains: fewer than 2
// members, no --save-model.
void checkEnsembleOptions(int models, const EnsembleTrainOptions& o);

// The ensemble of a trained population: each member's result weights (its best epoch with
// keepBest) and validation figures. Throws ModelBundleError (synthetic data).
EnsembleBundle ensembleOf(RunEngine& run);

// After the population (PopulationTrainOptions::after): keeps the ensemble unless a member
// failed (status 1: nothing written), records it as one run of `curve`'s epochs (recording
// as `record` says; EnsembleRecord.h); returns the exit status.
int keepEnsemble(RunEngine& run, int status, const EnsembleTrainOptions& o,
                 const EnsembleCurve* curve = nullptr,
                 const RecordingOptions& record = RecordingOptions::none());

// The kept ensemble of a trained population (ensembleOf, named `name`) written to `file`, and
// its trading figures on the validation part as a run stores them, with the per-bar return
// series (null: nothing to trade; {"error": ...}: the evaluation failed). A sweep's ensemble
// trial (EnsembleTrial.h). Throws UsageError as keepEnsemble does.
struct KeptEnsemble {
    EnsembleBundle bundle;
    nlohmann::json trading;
};
KeptEnsemble keepTrialEnsemble(RunEngine& run, const std::string& file, const std::string& name);

// Makes the population `p` an ensemble: its validation outputs kept for the ensemble's own
// epochs, keepEnsemble after it.
void wireEnsemble(PopulationTrainOptions& p, const EnsembleTrainOptions& o);

}  // namespace nnwb::cli
