#include "app/export/OnnxGraph.h"

#include <stdexcept>

namespace nnwb::onnxexport {

Attr Attr::integer(std::string n, int64_t v) {
    Attr a;
    a.name = std::move(n);
    a.kind = Kind::Int;
    a.i = v;
    return a;
}

Attr Attr::real(std::string n, float v) {
    Attr a;
    a.name = std::move(n);
    a.kind = Kind::Float;
    a.f = v;
    return a;
}

Attr Attr::list(std::string n, std::vector<int64_t> v) {
    Attr a;
    a.name = std::move(n);
    a.kind = Kind::Ints;
    a.ints = std::move(v);
    return a;
}

std::string OnnxGraph::unique(const std::string& base) {
    const int n = used_[base]++;
    return n == 0 ? base : base + "#" + std::to_string(n);
}

std::string OnnxGraph::constant(const std::string& name, const std::vector<int64_t>& shape,
                                const std::vector<float>& values, const std::string& doc) {
    size_t count = 1;
    for (int64_t d : shape) count *= static_cast<size_t>(d);
    if (count != values.size())
        throw std::logic_error("ONNX initializer " + name + ": " + std::to_string(values.size()) +
                               " values for a shape of " + std::to_string(count));
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(unique(name));
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape) t->add_dims(d);
    // Raw little-endian data, as the ONNX spec stores float tensors most compactly.
    t->set_raw_data(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    if (!doc.empty()) t->set_doc_string(doc);
    return t->name();
}

std::string OnnxGraph::ints(const std::string& name, const std::vector<int64_t>& values,
                            const std::vector<int64_t>& shape) {
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(unique(name));
    t->set_data_type(onnx::TensorProto::INT64);
    if (shape.empty())
        t->add_dims(static_cast<int64_t>(values.size()));
    else
        for (int64_t d : shape) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return t->name();
}

std::vector<std::string> OnnxGraph::nodeN(const std::string& op, const std::string& name,
                                          const std::vector<std::string>& inputs, int outputs,
                                          const std::vector<Attr>& attrs) {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(unique(name + "/" + op));
    for (const auto& in : inputs) n->add_input(in);
    std::vector<std::string> outs;
    for (int k = 0; k < outputs; ++k) {
        outs.push_back(unique(n->name() + (outputs > 1 ? ":" + std::to_string(k) : "")));
        n->add_output(outs.back());
    }
    for (const Attr& a : attrs) {
        onnx::AttributeProto* p = n->add_attribute();
        p->set_name(a.name);
        switch (a.kind) {
            case Attr::Kind::Int:
                p->set_type(onnx::AttributeProto::INT);
                p->set_i(a.i);
                break;
            case Attr::Kind::Float:
                p->set_type(onnx::AttributeProto::FLOAT);
                p->set_f(a.f);
                break;
            case Attr::Kind::Ints:
                p->set_type(onnx::AttributeProto::INTS);
                for (int64_t v : a.ints) p->add_ints(v);
                break;
        }
    }
    ++ops_[op];
    return outs;
}

std::string OnnxGraph::node(const std::string& op, const std::string& name,
                            const std::vector<std::string>& inputs,
                            const std::vector<Attr>& attrs) {
    return nodeN(op, name, inputs, 1, attrs).front();
}

void OnnxGraph::renameOutput(const std::string& from, const std::string& to) {
    for (int i = g_->node_size() - 1; i >= 0; --i) {
        onnx::NodeProto* n = g_->mutable_node(i);
        for (int k = 0; k < n->output_size(); ++k)
            if (n->output(k) == from) {
                n->set_output(k, to);
                return;
            }
    }
    throw std::logic_error("ONNX graph: no node produces " + from);
}

}  // namespace nnwb::onnxexport
