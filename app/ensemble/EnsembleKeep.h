// A trained population kept as a seed ensemble (docs/ensembles.md, "What is kept"): each
// member's kept weights and validation figures in one ensemble bundle
// (model/ensemble/EnsembleBundle.h), the ensemble and its members predicted on the validation
// part, and the kept ensemble's trading figures as a run stores them. Shared by nnwb-cli (train
// --ensemble, sweep ensemble trials, walkforward --ensemble) and the window's training worker;
// used on the thread that trained the population. Qt-free.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/engine/RunEngine.h"
#include "model/Experiment.h"
#include "model/ensemble/EnsembleBundle.h"
#include "model/ensemble/EnsemblePrediction.h"

namespace nnwb {

// Bad input while keeping an ensemble (a bundle that cannot be written, synthetic data, a
// device failure), its message naming the file or the cause.
class EnsembleError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The members of an ensemble of `n` seeds of `base`: seeds S..S+n-1 (S = base.training.seed),
// as `--population n --vary seed=S..S+n-1` makes them (model/PopulationSpec.h). EnsembleError
// for n < 2 (naming `what`, the setting or flag that asked for it).
std::vector<Experiment> seedEnsembleMembers(const Experiment& base, int n, const std::string& what);

// The ensemble of a trained population: each member's result weights (its best epoch with
// keepBest), name, seed and epoch. Throws ModelBundleError (synthetic data).
EnsembleBundle ensembleOf(RunEngine& run);

// The validation part predicted by every member and by the ensemble (empty without one).
struct EnsembleValidation {
    std::vector<PredictionResult> members;
    PredictionResult combined;
};

// The kept ensemble of a trained population: its bundle (the members' validation figures
// filled in), the validation part predicted, and its trading figures on that part as a run
// stores them (StoredRun::trading, with the per-bar return series; null: nothing to trade;
// {"error": ...}: the evaluation failed).
struct KeptEnsemble {
    EnsembleBundle bundle;
    EnsembleValidation validation;
    nlohmann::json trading;
};

// Keeps the ensemble of `run` (named `name` when not empty) and writes its bundle to `file`.
// Throws EnsembleError ("FILE: reason" for a bundle that cannot be made or written).
KeptEnsemble keepEnsembleBundle(RunEngine& run, const std::string& file, const std::string& name);

// The member of the lowest validation loss and the median one in that order (the middle one;
// for an even count the worse of the two middle ones, so with 2 members the other one).
std::pair<size_t, size_t> bestAndMedianMember(const EnsembleBundle& b);

// The same choice from the members' validation losses in member order (the Runs tab's ensemble
// runs give their member runs' best validation losses); `losses` must not be empty.
std::pair<size_t, size_t> bestAndMedianOf(const std::vector<double>& losses);

// The mean of the rows' agreement (1 without rows).
double meanAgreement(const PredictionResult& r);

}  // namespace nnwb
