// `nnwb-cli train --population N --vary seed=... --ensemble --save-model FILE` (docs/ensembles.md):
// after the population trained, its members' kept weights become one ensemble bundle
// (app/ensemble/EnsembleKeep.h) with each member's validation figures, and the ensemble's
// own validation figures beside its best and median member are printed. Runs on the CLI's main
// thread; Qt-free.
#pragma once

#include <string>

#include "app/cli/PopulationTrain.h"
#include "app/engine/RunEngine.h"
#include "app/ensemble/EnsembleKeep.h"
#include "app/ensemble/EnsembleRecord.h"

namespace nnwb::cli {

struct EnsembleTrainOptions {
    std::string saveModel;  // the ensemble bundle to write
    bool json = false;      // one JSON object {"ensemble": {...}} instead of the lines
    std::string name;       // the experiment's name, without the members' varied values
};

// Refuses (UsageError) what cannot make an ensemble, before anything trains: fewer than 2
// members, no --save-model.
void checkEnsembleOptions(int models, const EnsembleTrainOptions& o);

// After the population (PopulationTrainOptions::after): keeps the ensemble unless a member
// failed (status 1: nothing written), records it as one run of `curve`'s epochs (recording
// as `record` says; EnsembleRecord.h); returns the exit status.
int keepEnsemble(RunEngine& run, int status, const EnsembleTrainOptions& o,
                 const EnsembleCurve* curve = nullptr,
                 const RecordingOptions& record = RecordingOptions::none());

// keepEnsembleBundle (app/ensemble/EnsembleKeep.h) with its errors as UsageError (keepEnsemble
// and a sweep's ensemble trial, EnsembleTrial.h).
KeptEnsemble keepTrialEnsemble(RunEngine& run, const std::string& file, const std::string& name);

// Makes the population `p` an ensemble: its validation outputs kept for the ensemble's own
// epochs, keepEnsemble after it.
void wireEnsemble(PopulationTrainOptions& p, const EnsembleTrainOptions& o);

}  // namespace nnwb::cli
