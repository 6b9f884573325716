// The data of a walk-forward validation (validation.mode "walkforward"): the experiment's price
// file loaded once with its fold plan (model/data/FoldPlan.h), and for each fold an
// ExperimentData a run engine trains on (the fold's fitted samples as its training part, its
// early-stopping validation as its validation part, normalization fitted on the former) plus the
// fold's test samples, kept apart from the run. Errors are values. Any thread; each call works
// on its own data (the loaded bars are shared read-only).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/SampleSet.h"
#include "model/data/CpcvPlan.h"
#include "model/data/DataConfig.h"
#include "model/data/FoldPlan.h"

namespace nnwb {

struct WalkForwardData {
    bool ok = false;
    std::string error;  // "FILE:LINE: problem", "data.key: problem" or "validation.key: problem"
    std::vector<std::string> warnings;  // the loader's
    DataConfig config;
    std::string fileName;  // the price file's name, for descriptions
    std::shared_ptr<const BarSeries> bars;
    // Under scheme cpcv: the splits (`cpcv`) and, so that every fold-driven caller counts and
    // names them, one Fold per split holding the hulls of its training, validation and test
    // blocks (`plan.folds`; its contiguous flag false).
    FoldPlan plan;
    CpcvPlan cpcv;
    bool isCpcv() const { return !cpcv.splits.empty(); }
};

// Loads e's price file and plans its folds, or its CPCV splits (scheme cpcv), under
// e.validation (whatever its mode says).
WalkForwardData loadWalkForwardData(const Experiment& e);

struct FoldData {
    // ok false with the pipeline's error; else priceData, the fold's parts and statistics, the
    // shared bars and the fold's bar indices (validation = its early-stopping validation).
    std::shared_ptr<ExperimentData> data;
    SampleSet test;  // the fold's test window, normalized with the fold's statistics
    size_t testFirstBar = 1, testLastBar = 0;
};

// Fold `k` (0-based) of `wf` (which must be ok); under cpcv, split k with its blocks (the test
// samples in test-group order).
FoldData loadFoldData(const WalkForwardData& wf, size_t k);

}  // namespace nnwb
