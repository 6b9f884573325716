// A thin builder over onnx::GraphProto (Debian's libonnx generated protobuf classes): float and
// int64 initializers, nodes with attributes, unique tensor names and a count of the operators
// used. The exporter's layer emitters write through it. One builder per export; one thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace nnwb::onnxexport {

// One ONNX attribute value: an int, a float or a list of ints.
struct Attr {
    std::string name;
    enum class Kind { Int, Float, Ints } kind = Kind::Int;
    int64_t i = 0;
    float f = 0.0f;
    std::vector<int64_t> ints;
    static Attr integer(std::string n, int64_t v);
    static Attr real(std::string n, float v);
    static Attr list(std::string n, std::vector<int64_t> v);
};

class OnnxGraph {
public:
    explicit OnnxGraph(onnx::GraphProto* graph) : g_(graph) {}

    // A float32 initializer of `shape` (row-major values); returns its name (made unique).
    std::string constant(const std::string& name, const std::vector<int64_t>& shape,
                         const std::vector<float>& values, const std::string& doc = {});
    // A 1-D int64 initializer (shapes, axes, indices...), or of `shape` when given.
    std::string ints(const std::string& name, const std::vector<int64_t>& values,
                     const std::vector<int64_t>& shape = {});
    // Adds a node and returns its first output's name; outputs get unique names derived from
    // `name` ("layers.1.block.0/qkv" -> "layers.1.block.0/qkv:0" ...).
    std::string node(const std::string& op, const std::string& name,
                     const std::vector<std::string>& inputs, const std::vector<Attr>& attrs = {});
    // The same with `outputs` outputs, all names returned.
    std::vector<std::string> nodeN(const std::string& op, const std::string& name,
                                   const std::vector<std::string>& inputs, int outputs,
                                   const std::vector<Attr>& attrs = {});
    // Renames the output `from` of the last node that produced it to `to` (the graph output).
    void renameOutput(const std::string& from, const std::string& to);

    // Operator type -> number of nodes of that type.
    const std::map<std::string, int>& opCounts() const { return ops_; }

private:
    std::string unique(const std::string& base);
    onnx::GraphProto* g_;
    std::map<std::string, int> used_;
    std::map<std::string, int> ops_;
};

}  // namespace nnwb::onnxexport
