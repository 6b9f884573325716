// `nnwb-cli walkforward --population N --vary seed=1..N --ensemble` (docs/ensembles.md,
// "Walk-forward"): every fold trains a population of N members (one population, as train
// --ensemble does), keeps it as an ensemble (recorded as one run per fold whose member runs
// name it), and tests the ensemble and each member on the fold's test window. The ensemble's
// test outputs are stitched as one out-of-sample series with its agreement per bar, each
// member's as its own series, to set the ensemble against a single seed and the members'
// median. Used on the thread that runs the folds (the CLI's main thread, the window's training
// worker); Qt-free.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/engine/WalkForward.h"
#include "model/Experiment.h"
#include "model/trading/TradingSettings.h"

namespace nnwb {

struct EnsembleWalkForwardResult {
    // The ensemble's folds and stitched series (outOfSample.agreement: the members' agreement
    // per bar); a fold whose member failed ends it as WalkForward::run ends at a failed fold.
    WalkForwardResult ensemble;
    std::vector<WalkForwardResult> members;  // each member's folds and stitched series
    std::vector<Experiment> memberExperiments;
};

// Hears a fold's ensemble epochs (EnsembleEpochFeed: the members' mean, best epoch marked).
using EnsembleEpochHandler = std::function<void(const EpochReport&)>;

// Runs every fold of `wf` (not under cpcv) as a population of `members` (their experiments,
// model/PopulationSpec.h). `events` hears the members' epochs, `onEnsembleEpoch` (when set)
// the ensemble's own epochs of the fold in training, each after its members reported it.
// `control` (the window's Stop and Pause) acts on each fold's run as on a single run; a
// stopped fold ends the walk-forward as a failed one does. Throws what WalkForward::runFold
// throws.
EnsembleWalkForwardResult runEnsembleFolds(WalkForward& wf, const std::vector<Experiment>& members,
                                           const RecordingOptions& recording,
                                           WalkForwardEvents& events,
                                           TrainControl* control = nullptr,
                                           const EnsembleEpochHandler& onEnsembleEpoch = {});

// The agreement thresholds the summary trades the ensemble's stitched series at, besides the
// experiment's own trading.minAgreement.
const std::vector<double>& ensembleAgreementGrid();

// The ensemble against its members out of sample: {"members", "meanAgreement", "ensemble",
// "byAgreement": [...], "singleSeed", "medianOfMembers", "bestMember", "memberFigures": [...]}.
nlohmann::json ensembleWalkForwardJson(const EnsembleWalkForwardResult& r, const BarSeries& bars,
                                       const TradingSettings& settings);
// The summary's table, row by row, as the terminal and the window show it: the column titles
// (the first, the row's label, empty) and each row's label and formatted cells ("-" where a
// figure is missing, "n/a" for the accuracy of too few signals).
struct EnsembleSummaryRow {
    std::string label;
    std::vector<std::string> cells;  // as many as ensembleSummaryColumns() less one
};
const std::vector<std::string>& ensembleSummaryColumns();
std::vector<EnsembleSummaryRow> ensembleWalkForwardRows(const nlohmann::json& summary);
// The same as a table for the terminal.
std::string ensembleWalkForwardText(const nlohmann::json& summary);

}  // namespace nnwb
