// The ONNX nodes of each nnwb layer type (dense, conv, attention, multihead_attention,
// attention_stack, gpt in sequence mode, lightconv) in standard opset-17 operators that
// onnxruntime 1.14 implements for float32. Tensors between layers are [batch, units, window].
// Free functions used by the exporter on its own thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/export/OnnxGraph.h"
#include "model/Safetensors.h"
#include "model/Shape.h"

namespace nnwb::onnxexport {

// A graph tensor with its per-sample shape (the batch dimension is implied).
struct GraphTensor {
    std::string name;
    Shape shape;
};

// Emits layer `index` (its JSON as Layer::toJson writes it, parameters named "layers.I.*" in
// `weights`) on input `in`; returns the output tensor. Throws std::invalid_argument naming the
// layer for an unsupported layer or a missing or mis-shaped tensor.
GraphTensor emitLayer(OnnxGraph& g, int index, const nlohmann::json& layer, const GraphTensor& in,
                      const TensorMap& weights);

}  // namespace nnwb::onnxexport
