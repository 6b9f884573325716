// Gathers what an ONNX export needs from what the workbench holds: a model bundle (weights,
// data settings, the training part's normalization statistics, feature order, loss, epoch), or
// an experiment plus weights (its data is loaded to compute the same statistics as training).
// The weights are checked against the model; the doc strings and metadata_props name the
// features, their definitions, periods, window and classes and carry the bundle's settings.
// Plain functions; any thread (may load files, builds a CPU network to check the weights).
#pragma once

#include <string>

#include "app/export/OnnxExport.h"
#include "model/Experiment.h"
#include "model/ModelBundle.h"
#include "model/Safetensors.h"
#include "model/ensemble/EnsembleBundle.h"

namespace nnwb::onnxexport {

// Throws std::invalid_argument saying what is wrong: a model that does not fit the data
// settings, weights that do not fit the model (the first missing, extra or mis-shaped tensor).
// `source` names where the bundle came from in the doc strings (e.g. its file name).
ExportSpec specFromBundle(const ModelBundle& bundle, int batch, const std::string& source = {});
// An ensemble bundle: specFromBundle of its shared settings, every member's weights checked
// against the model (ExportSpec::members), the bundle's "ensemble" key in the metadata_props.
ExportSpec specFromEnsemble(const EnsembleBundle& ensemble, int batch,
                            const std::string& source = {});

// An experiment and weights from `epoch` (0 = unknown): price data becomes a bundle (the
// data loaded as training loads it) and then specFromBundle; synthetic data exports without
// normalization. Throws std::invalid_argument (data that cannot be loaded: the loader's
// "FILE:LINE: problem"; a model or weights that do not fit).
ExportSpec specFromExperiment(const Experiment& e, const TensorMap& weights, int batch,
                              int epoch = 0, const std::string& source = {});
// The same with the experiment's data already loaded (loadExperimentData or equivalent).
ExportSpec specFromExperimentData(const Experiment& e, const ExperimentData& data,
                                  const TensorMap& weights, int batch, int epoch = 0,
                                  const std::string& source = {});

}  // namespace nnwb::onnxexport
