// Builds the training/validation samples an experiment's data section asks for: a price file
// through the data pipeline, or the synthetic task. Errors come back as a value (this runs in
// worker threads). Any thread; each call works on its own data.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/Experiment.h"
#include "model/SampleSet.h"
#include "model/data/BarRange.h"
#include "model/data/BarSeries.h"
#include "model/data/DataConfig.h"
#include "model/data/Normalization.h"

namespace nnwb {

struct ExperimentData {
    bool ok = false;
    std::string error;        // "FILE:LINE: problem" or "data.key: problem"
    std::string description;  // e.g. "EURUSD_H1_2017-2018.csv, 12 399 samples"
    // The loader's and the pipeline's warnings (a feature constant over the training part...).
    std::vector<std::string> warnings;
    DataSplit split;
    // Price files only (priceData true): the data section as read, the training-part
    // normalization statistics, the feature names in input order, the loaded bars and the bar
    // indices of each part's samples (last bar of the window; a part that is empty has
    // first > last). What a model bundle and the price chart need.
    bool priceData = false;
    DataConfig dataConfig;
    ZScoreStats stats;
    std::vector<std::string> featureNames;
    std::shared_ptr<const BarSeries> bars;
    size_t trainFirstBar = 0, trainLastBar = 0;
    size_t validationFirstBar = 1, validationLastBar = 0;
    // A validation part of several blocks (a CPCV split's early-stopping validation across a
    // test group: model/FoldData.h): their bar ranges, in sample order, and validationFirstBar >
    // validationLastBar. Empty for a part of one range.
    std::vector<BarRange> validationBlocks;
};

ExperimentData loadExperimentData(const Experiment& e);

// The per-sample input shape the data section produces, without loading any file:
// {window, enabled features} for price files, {units, window} for synthetic data.
// Throws std::invalid_argument("data.key: problem").
Shape experimentInputShape(const Experiment& e);

}  // namespace nnwb
