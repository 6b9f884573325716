// From a DataConfig to training and validation samples: load the bar file, compute features,
// label fractals, split chronologically (validation = newest share, no window spanning both
// parts), normalize with training-part statistics, add positional encoding. Errors are values.
// Stateless functions; any thread (the GUI should call them off its own thread for big files).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/SampleSet.h"
#include "model/data/BarSeries.h"
#include "model/data/DataConfig.h"
#include "model/data/Normalization.h"

namespace nnwb {

struct DataResult {
    bool ok = false;
    std::string error;                  // loader errors read "FILE:LINE: problem"
    std::vector<std::string> warnings;  // from the loader; never stop a build
    DataSplit split;                    // inputShape {window, featureCount}, outputs 3
    BarSeries bars;                     // the loaded bars (all of them)
    std::vector<std::string> featureNames;
    ZScoreStats stats;  // the training-part statistics (empty with normalization none)
    // Bar indices (into `bars`) of the samples' last bars; a part that is empty has
    // first > last. Validation windows start after trainLastBar.
    size_t trainFirstBar = 0, trainLastBar = 0;
    size_t validationFirstBar = 1, validationLastBar = 0;
    size_t droppedAtBoundary = 0;  // samples dropped so that no window spans both parts
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

}  // namespace nnwb
