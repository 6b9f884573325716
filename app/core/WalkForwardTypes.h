// Value types the training worker sends to the GUI thread through queued signals during a
// walk-forward validation (app/engine/WalkForward.h): the planned folds on the loaded bars, and
// the outcome (the fold records, the stitched out-of-sample series and its figures; under scheme
// cpcv the splits' records and the paths with their figures, app/engine/Cpcv.h). Plain
// copyable values; made on the worker thread, read anywhere.
#pragma once

#include <memory>
#include <vector>

#include <QString>

#include <nlohmann/json.hpp>

#include "app/engine/CpcvFigures.h"
#include "app/engine/RunTypes.h"
#include "app/engine/WalkForward.h"
#include "model/Metrics.h"
#include "model/data/BarSeries.h"
#include "model/data/FoldPlan.h"
#include "model/data/Fractals.h"
#include "model/trading/SignalSeries.h"

namespace nnwb {

// Sent once when a walk-forward has loaded its price file and planned its folds.
struct WalkForwardPlan {
    std::shared_ptr<const BarSeries> bars;
    FractalRule fractalRule = FractalRule::ThreeBar;
    FoldPlan plan;
    QString fileName;
    QString scheme;  // "anchored" | "rolling" | "cpcv"
    // Under cpcv: the splits and paths (plan.folds holds one hull Fold per split).
    CpcvPlan cpcv;
    bool isCpcv() const { return !cpcv.splits.empty(); }
};

// A cpcv walk-forward's result: the splits stitched into paths, each path's figures.
struct CpcvOutcome {
    CpcvResult result;
    CpcvEvaluation evaluation;
};

// Sent once when the walk-forward has ended (completed, stopped or failed at a fold).
struct WalkForwardOutcome {
    RunEnd end = RunEnd::Completed;
    QString error;                                    // "fold k/N: ..." when failed
    std::vector<FoldRecord> folds;                    // the folds that ran, in order
    std::shared_ptr<const SignalSeries> outOfSample;  // bar indices of the plan's bars
    EpochMetrics stitched;
    std::shared_ptr<const CpcvOutcome> cpcv;  // under cpcv (then outOfSample is null)
    // An ensemble's walk-forward (training.ensemble > 1): the ensemble against its members as
    // nnwb-cli walkforward prints it (app/ensemble ensembleWalkForwardJson); null otherwise.
    std::shared_ptr<const nlohmann::json> ensembleSummary;
};

}  // namespace nnwb
