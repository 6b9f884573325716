// ONNX export of a trained nnwb model for MetaTrader 5 (OnnxCreate/OnnxRun) and any ONNX
// runtime: the input is the raw features [batch, window, features] in float32; the training
// part's z-score normalization and the positional encoding are nodes of the graph; the output
// is float32 [batch, 3] (none, buy, sell). Opset 17, operators onnxruntime 1.14 implements for
// float32; every model passes onnx::checker and strict shape inference before it is written.
// Plain functions on value types; any thread (each call builds its own model).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>
#include <nlohmann/json.hpp>

#include "model/Safetensors.h"
#include "model/Shape.h"

namespace nnwb::onnxexport {

constexpr int kOpset = 17;
constexpr int kIrVersion = 8;  // the IR version of opset 17 (ONNX 1.12)

// Everything the graph needs, gathered from an experiment (or model bundle) and its weights.
struct ExportSpec {
    std::string name = "nnwb";  // graph name (the experiment's)
    nlohmann::json model;       // {"layers": [...]} as in the experiment file
    Shape input;                // per sample: {window bars, features}
    TensorMap weights;          // "layers.I.*" as in the safetensors file
    // An ensemble's members (docs/ensembles.md), each "layers.I.*": the graph runs them as
    // parallel branches on the one prepared input; its outputs are "scores", the mean of the
    // members' [batch, classes] outputs, and "agreement" [batch, 1], the share of members whose
    // argmax is the mean's. Empty: one network (`weights`), one output "scores".
    std::vector<TensorMap> members;
    // The graph's input preparation, per feature column: x' = (x - mean) * scale, then the
    // sinusoidal positional encoding added when positionalEncoding. Empty: no normalization.
    std::vector<double> mean, scale;
    bool positionalEncoding = false;
    int batch = 1;               // fixed batch dimension; 0 = dynamic ("batch")
    bool outputSoftmax = false;  // a softmax over the outputs (cross-entropy models)
    std::vector<std::string> classNames{"none", "buy", "sell"};
    std::string modelDoc, inputDoc, outputDoc;    // doc strings
    std::map<std::string, std::string> metadata;  // metadata_props
};

// What an exported model holds, for reports and tests.
struct ModelSummary {
    std::map<std::string, int> ops;   // operator -> node count
    std::vector<int64_t> inputDims;   // -1 for a dynamic dimension
    std::vector<int64_t> outputDims;  // as shape inference derived them
    int opset = 0;
    size_t initializers = 0;
    size_t parameters = 0;  // float values in initializers
};

// Builds the model; throws std::invalid_argument naming the layer or tensor at fault.
onnx::ModelProto buildModel(const ExportSpec& spec);
// Runs onnx::checker::check_model and strict shape inference (in place: value_info gets the
// inferred shapes) and checks that the output is float32 [batch, outputs]; throws
// std::runtime_error with the checker's message otherwise.
ModelSummary checkModel(onnx::ModelProto& model, int outputs = 3);
// buildModel + checkModel + an atomic write of the serialized model to `path`.
ModelSummary exportModel(const ExportSpec& spec, const std::string& path);
// Reads and parses a .onnx file; throws std::runtime_error("PATH: problem").
onnx::ModelProto loadModel(const std::string& path);

}  // namespace nnwb::onnxexport
