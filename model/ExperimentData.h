// Builds the training/validation samples an experiment's data section asks for: a price file
// through the data pipeline, or the synthetic task. Errors come back as a value (this runs in
// worker threads). Any thread; each call works on its own data.
#pragma once

#include <cstdint>
#include <string>

#include "model/Experiment.h"
#include "model/SampleSet.h"

namespace nnwb {

struct ExperimentData {
    bool ok = false;
    std::string error;        // "FILE:LINE: problem" or "data.key: problem"
    std::string description;  // e.g. "EURUSD_H1_2017-2018.csv, 12 399 samples"
    std::string file;         // the price file as opened (resolved path); empty for synthetic
    size_t bars = 0;          // bars in the file
    int64_t firstBarTime = 0, lastBarTime = 0;  // open times of its first and last bar (UTC s)
    DataSplit split;
};

ExperimentData loadExperimentData(const Experiment& e);

// The per-sample input shape the data section produces, without loading any file:
// {window, enabled features} for price files, {units, window} for synthetic data.
// Throws std::invalid_argument("data.key: problem").
Shape experimentInputShape(const Experiment& e);

}  // namespace nnwb
