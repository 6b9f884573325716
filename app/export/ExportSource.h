// Gathers what an ONNX export needs from what the workbench holds: an experiment and trained
// weights (checked against the experiment's network). For bar data the training part's z-score
// statistics are computed from the experiment's data exactly as training computes them, and the
// doc strings and metadata_props name the features, definitions, periods, window and classes.
// Plain functions; any thread (loads files, builds a CPU network to check the weights).
#pragma once

#include <map>
#include <string>

#include "app/export/OnnxExport.h"
#include "model/Experiment.h"
#include "model/Safetensors.h"
#include "model/data/DataPipeline.h"

namespace nnwb::onnxexport {

struct SourceInfo {
    std::string weightsLabel;  // e.g. the weights file name, for the doc strings
    int epoch = 0;             // the epoch the weights come from; 0 = unknown
};

// Throws std::invalid_argument saying what is wrong: data that cannot be loaded (the loader's
// "FILE:LINE: problem"), a model that does not fit the data, weights that do not fit the model
// (the first missing, extra or mis-shaped tensor).
ExportSpec specFromExperiment(const Experiment& e, const TensorMap& weights, int batch,
                              const SourceInfo& info = {});
// The same with the experiment's bar data already loaded (buildDataSplit or
// buildDataSplitFromBars of its data section): its statistics are used as they are.
ExportSpec specFromData(const Experiment& e, const DataResult& data, const TensorMap& weights,
                        int batch, const SourceInfo& info = {});

}  // namespace nnwb::onnxexport
