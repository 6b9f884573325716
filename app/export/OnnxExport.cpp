#include "app/export/OnnxExport.h"

#include <cstdlib>
#include <stdexcept>

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "app/export/OnnxGraph.h"
#include "app/export/OnnxLayers.h"
#include "model/AtomicFile.h"
#include "model/data/PositionalEncoding.h"
#include "nnwb/Version.h"

namespace nnwb::onnxexport {

namespace {

void setTensorType(onnx::ValueInfoProto* v, const std::vector<int64_t>& dims, int batch) {
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    auto* shape = t->mutable_shape();
    auto* b = shape->add_dim();
    if (batch > 0)
        b->set_dim_value(batch);
    else
        b->set_dim_param("batch");
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

std::vector<int64_t> dimsOf(const onnx::TypeProto& type) {
    std::vector<int64_t> out;
    if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return out;
    for (const auto& d : type.tensor_type().shape().dim())
        out.push_back(d.has_dim_value() ? d.dim_value() : -1);
    return out;
}

// One network's layers on the prepared input `x`: its [batch, classes] output (a softmax of it
// with outputSoftmax).
std::string emitBranch(OnnxGraph& g, const ExportSpec& spec, const std::string& x,
                       const TensorMap& weights) {
    const nlohmann::json& layers = spec.model.at("layers");
    if (!layers.is_array() || layers.empty())
        throw std::invalid_argument("the model has no layers");
    GraphTensor t{x, spec.input};
    for (size_t i = 0; i < layers.size(); ++i) t = emitLayer(g, int(i), layers[i], t, weights);
    const int outputs = int(t.shape.size());
    if (outputs != int(spec.classNames.size()))
        throw std::invalid_argument("the last layer gives " + std::to_string(outputs) +
                                    " values per sample; the export needs one per class (" +
                                    std::to_string(spec.classNames.size()) + ")");
    std::string y = g.node("Flatten", "output", {t.name}, {Attr::integer("axis", 1)});
    if (spec.outputSoftmax)
        y = g.node("Softmax", "output/probabilities", {y}, {Attr::integer("axis", -1)});
    return y;
}

// The members as parallel branches, stacked [batch, members, classes]: their mean over the
// members named "scores" and the agreement [batch, 1] named "agreement".
void emitEnsemble(OnnxGraph& g, const ExportSpec& spec, const std::string& x) {
    std::vector<std::string> branches;
    const std::string axis1 = g.ints("ensemble/axis1", {1});
    for (size_t m = 0; m < spec.members.size(); ++m) {
        const std::string y = emitBranch(g, spec, x, spec.members[m]);
        branches.push_back(
            g.node("Unsqueeze", "members." + std::to_string(m) + "/stack", {y, axis1}));
    }
    const std::string stacked =
        g.node("Concat", "ensemble/members", branches, {Attr::integer("axis", 1)});
    g.renameOutput(g.node("ReduceMean", "ensemble/mean", {stacked},
                          {Attr::list("axes", {1}), Attr::integer("keepdims", 0)}),
                   "scores");
    const std::string mean = "scores";
    const std::string votes = g.node("ArgMax", "ensemble/votes", {stacked},
                                     {Attr::integer("axis", 2), Attr::integer("keepdims", 0)});
    const std::string signal = g.node("ArgMax", "ensemble/signal", {mean},
                                      {Attr::integer("axis", 1), Attr::integer("keepdims", 1)});
    const std::string agree = g.node("Equal", "ensemble/agree", {votes, signal});
    const std::string share =
        g.node("Cast", "ensemble/agree", {agree}, {Attr::integer("to", onnx::TensorProto::FLOAT)});
    const std::string agreement = g.node("ReduceMean", "ensemble/agreement", {share},
                                         {Attr::list("axes", {1}), Attr::integer("keepdims", 1)});
    g.renameOutput(agreement, "agreement");
}

}  // namespace

onnx::ModelProto buildModel(const ExportSpec& spec) {
    const int window = spec.input.units, features = spec.input.window;
    if (window < 1 || features < 1) throw std::invalid_argument("the model has no input shape");
    if (!spec.mean.empty() &&
        (spec.mean.size() != size_t(features) || spec.scale.size() != size_t(features)))
        throw std::invalid_argument("normalization statistics for " +
                                    std::to_string(spec.mean.size()) +
                                    " features, but the input has " + std::to_string(features));
    if (spec.batch < 0) throw std::invalid_argument("batch must be positive or 0 (dynamic)");
    onnx::ModelProto m;
    m.set_ir_version(kIrVersion);
    auto* opset = m.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOpset);
    m.set_producer_name("nnwb");
    m.set_producer_version(NNWB_VERSION);
    m.set_domain("nnwb");
    m.set_model_version(1);
    m.set_doc_string(spec.modelDoc);
    for (const auto& [k, v] : spec.metadata) {
        auto* p = m.add_metadata_props();
        p->set_key(k);
        p->set_value(v);
    }
    onnx::GraphProto* graph = m.mutable_graph();
    graph->set_name(spec.name);
    graph->set_doc_string(spec.modelDoc);
    auto* in = graph->add_input();
    in->set_name("features");
    in->set_doc_string(spec.inputDoc);
    setTensorType(in, {window, features}, spec.batch);

    OnnxGraph g(graph);
    std::string x = in->name();
    if (!spec.mean.empty()) {  // z-score with the training part's statistics
        std::vector<float> mean(spec.mean.begin(), spec.mean.end()),
            scale(spec.scale.begin(), spec.scale.end());
        x = g.node("Sub", "normalize",
                   {x, g.constant("normalize/mean", {features}, mean,
                                  "training-part mean of each feature")});
        x = g.node("Mul", "normalize",
                   {x, g.constant("normalize/scale", {features}, scale,
                                  "1 / training-part standard deviation of each feature "
                                  "(0 for a feature constant in training: it enters as 0)")});
    }
    if (spec.positionalEncoding) {
        std::vector<float> pe(size_t(window) * features);
        for (int u = 0; u < window; ++u)
            for (int f = 0; f < features; ++f)
                pe[size_t(u) * features + f] = float(positionalEncoding(u, f, features));
        x = g.node("Add", "positional_encoding",
                   {x, g.constant("positional_encoding/table", {window, features}, pe,
                                  "sin/cos positional encoding, row 0 = oldest bar")});
    }
    const int outputs = int(spec.classNames.size());
    if (spec.members.empty())
        g.renameOutput(emitBranch(g, spec, x, spec.weights), "scores");
    else
        emitEnsemble(g, spec, x);
    auto* out = graph->add_output();
    out->set_name("scores");
    out->set_doc_string(spec.outputDoc);
    setTensorType(out, {}, spec.batch);
    out->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(outputs);
    if (!spec.members.empty()) {
        auto* agreement = graph->add_output();
        agreement->set_name("agreement");
        agreement->set_doc_string(
            "the share of the ensemble's members whose own largest output is the class of the "
            "largest mean output, 0..1 (docs/ensembles.md)");
        setTensorType(agreement, {1}, spec.batch);
    }
    return m;
}

ModelSummary checkModel(onnx::ModelProto& model, int outputs) {
    try {
        onnx::checker::check_model(model);
        onnx::ShapeInferenceOptions options{true, 1, false};  // check types, strict errors
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("the ONNX checker rejects the model: ") + e.what());
    }
    const auto& g = model.graph();
    if (g.input_size() != 1 || g.output_size() < 1 || g.output_size() > 2)
        throw std::runtime_error(
            "the model must have one input and one output (two for an ensemble)");
    ModelSummary s;
    for (const auto& n : g.node()) ++s.ops[n.op_type()];
    for (const auto& o : model.opset_import())
        if (o.domain().empty()) s.opset = int(o.version());
    s.inputDims = dimsOf(g.input(0).type());
    s.outputDims = dimsOf(g.output(0).type());
    s.initializers = size_t(g.initializer_size());
    for (const auto& t : g.initializer())
        if (t.data_type() == onnx::TensorProto::FLOAT) {
            size_t n = 1;
            for (int64_t d : t.dims()) n *= size_t(d);
            s.parameters += n;
        }
    // The inferred shape of the node that produces the output must agree with the declared one.
    const std::string& name = g.output(0).name();
    for (const auto& vi : g.value_info())
        if (vi.name() == name) {
            const auto inferred = dimsOf(vi.type());
            if (!inferred.empty() && inferred != s.outputDims)
                throw std::runtime_error("shape inference gives the output another shape");
        }
    if (s.outputDims.size() != 2 || s.outputDims[1] != outputs ||
        g.output(0).type().tensor_type().elem_type() != onnx::TensorProto::FLOAT)
        throw std::runtime_error("the output is not float32 [batch, " + std::to_string(outputs) +
                                 "]");
    return s;
}

ModelSummary exportModel(const ExportSpec& spec, const std::string& path) {
    onnx::ModelProto m = buildModel(spec);
    ModelSummary s = checkModel(m, int(spec.classNames.size()));
    // value_info from shape inference is kept: it documents every tensor's shape.
    std::string bytes;
    if (!m.SerializeToString(&bytes)) throw std::runtime_error("cannot serialize the ONNX model");
    writeFileAtomic(path, bytes);
    return s;
}

onnx::ModelProto loadModel(const std::string& path) {
    const std::string bytes = readFile(path);
    onnx::ModelProto m;
    if (!m.ParseFromString(bytes))
        throw std::runtime_error(path + ": not an ONNX model (protobuf parse failed)");
    return m;
}

}  // namespace nnwb::onnxexport
