// From a DataConfig to training and validation samples: load the bar file, compute features,
// label fractals, split chronologically (validation = newest share, no window spanning both
// parts), normalize with training-part statistics, add positional encoding. Errors are values.
// Stateless functions; any thread (the GUI should call them off its own thread for big files).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/SampleSet.h"
#include "model/data/BarRange.h"
#include "model/data/BarSeries.h"
#include "model/data/DataConfig.h"
#include "model/data/Normalization.h"

namespace nnwb {

// How many bars a data section needs: one window after the indicator warm-up, plus the bars
// after it that its fractal label looks at. The one minimum for training (the pipeline), for
// predict (Predictor) and for the checks at load (nnwb-cli data, the window's Data pane).
struct BarNeeds {
    size_t warmup = 0;    // first bar at which every enabled feature is defined
    size_t window = 0;    // bars per sample
    size_t reach = 0;     // bars after a window's last bar that its label needs
    size_t firstBar = 0;  // the first bar that can end a window: max(warmup + window - 1, reach)
    size_t minimum = 0;   // firstBar + reach + 1
};
BarNeeds barsNeeded(const DataConfig& config);
// "NAME: too few bars: this experiment needs at least N bars, file has M (indicator warm-up U +
// window W + R bar after it for the fractal label)".
std::string tooFewBarsMessage(const std::string& name, size_t bars, const BarNeeds& needs);

// The chronological split of `bars` bars (bar indices of the samples' last bars), or the
// reason there is none (too few bars, no training part, no validation part), named NAME.
struct SplitPlan {
    std::string error;  // "" when usable
    size_t trainFirstBar = 0, trainLastBar = 0;
    size_t validationFirstBar = 1, validationLastBar = 0;
    size_t droppedAtBoundary = 0;
};
SplitPlan planSplit(const DataConfig& config, size_t bars, const std::string& name);

struct DataResult {
    bool ok = false;
    std::string error;  // loader errors read "FILE:LINE: problem"
    // From the loader, and one per feature that is constant over the training part (it
    // carries no information); they never stop a build.
    std::vector<std::string> warnings;
    DataSplit split;  // inputShape {window, featureCount}, outputs 3
    BarSeries bars;   // the loaded bars (all of them)
    std::vector<std::string> featureNames;
    ZScoreStats stats;  // the training-part statistics (empty with normalization none)
    // Bar indices (into `bars`) of the samples' last bars; a part that is empty has
    // first > last. Validation windows start after trainLastBar.
    size_t trainFirstBar = 0, trainLastBar = 0;
    size_t validationFirstBar = 1, validationLastBar = 0;
    size_t droppedAtBoundary = 0;  // samples dropped so that no window spans both parts
    // buildDataSplitForRanges only: the test part's samples and their bars (empty otherwise).
    SampleSet test;
    size_t testFirstBar = 1, testLastBar = 0;
};

// source == "file": loads config.resolvedFile(baseDir). source == "synthetic" is an error
// (synthetic data is built by the Trainer).
DataResult buildDataSplit(const DataConfig& config, const std::string& baseDir);

// The samples whose windows end at bars firstBar..lastBar (none when first > last): inputs the
// `window` feature rows up to that bar (as float, plus positional encoding when asked),
// targets one-hot [none, buy, sell] from the fractal flags, times of the last bars. The one
// place samples are cut, for training and for predictions alike.
void fillSamples(SampleSet& set, const FeatureMatrix& m, const std::vector<uint8_t>& flags,
                 const std::vector<int64_t>& time, size_t firstBar, size_t lastBar, int window,
                 bool positional);

// The same from bars already in memory (config.source and config.file are ignored).
DataResult buildDataSplitFromBars(const DataConfig& config, BarSeries bars);

// Explicit parts of one file (a walk-forward fold, model/data/FoldPlan.h), as bar indices of
// the samples' last bars; a part with first > last is empty, the training part must not be.
struct SampleRanges {
    size_t trainFirst = 0, trainLast = 0;
    size_t validationFirst = 1, validationLast = 0;
    size_t testFirst = 1, testLast = 0;
};
// The samples of `ranges`: features over the whole file as buildDataSplitFromBars computes
// them (every indicator only looks back), normalization statistics from the training part's
// windows only (no bar after trainLast enters them), the test part in DataResult::test.
// Result `bars` is left empty (the caller holds them); the split fields name the ranges. An
// error names `config`'s problem or a range outside the file's samples.
DataResult buildDataSplitForRanges(const DataConfig& config, const BarSeries& bars,
                                   const SampleRanges& ranges);

// The same with each part a list of blocks (a combinatorial purged cross-validation split,
// model/data/CpcvPlan.h), ascending and disjoint, their samples in block order; the statistics
// from the feature rows the training blocks' windows read. The result's first and last bars of
// a part are its blocks' hull.
struct SampleBlocks {
    std::vector<BarRange> train, validation, test;
};
DataResult buildDataSplitForBlocks(const DataConfig& config, const BarSeries& bars,
                                   const SampleBlocks& blocks);

}  // namespace nnwb
