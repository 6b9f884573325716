#include "app/export/OnnxLayers.h"

#include <cmath>
#include <stdexcept>

#include "model/layers/ActivationNames.h"
#include "model/layers/AttentionStackBase.h"
#include "model/layers/ConvLayer.h"
#include "model/layers/GptLayer.h"
#include "model/layers/LayerRegistry.h"

namespace nnwb::onnxexport {

namespace {

constexpr float kNormEps = 1e-5f;  // AttentionBlock's norm epsilon

// Emission context of one layer: the graph, the weights and the layer's name prefix.
struct LayerContext {
    OnnxGraph& g;
    const TensorMap& weights;
    std::string prefix;  // "layers.3"

    [[noreturn]] void fail(const std::string& what) const {
        throw std::invalid_argument(prefix + ": " + what);
    }
    // The tensor `prefix.name`, checked against `shape`.
    const HostTensor& tensor(const std::string& name, const std::vector<int64_t>& shape) const {
        const std::string full = prefix + "." + name;
        const auto it = weights.find(full);
        if (it == weights.end()) fail("the weights have no tensor " + full);
        if (it->second.shape != shape) {
            std::string want, got;
            for (int64_t d : shape) want += (want.empty() ? "" : ", ") + std::to_string(d);
            for (int64_t d : it->second.shape) got += (got.empty() ? "" : ", ") + std::to_string(d);
            fail("tensor " + full + " has shape [" + got + "], the layer needs [" + want + "]");
        }
        return it->second;
    }
    std::string shapeConst(const std::string& name, const std::vector<int64_t>& dims) const {
        return g.ints(prefix + "/" + name, dims);
    }
};

// y = x W^T + b over the last axis of x; W [out][in] is stored transposed as [in][out].
std::string linear(LayerContext& c, const std::string& x, const std::string& param, int in, int out,
                   const std::string& where) {
    const HostTensor& w = c.tensor(param + "weight", {out, in});
    const HostTensor& b = c.tensor(param + "bias", {out});
    std::vector<float> wt(size_t(in) * out);
    for (int o = 0; o < out; ++o)
        for (int i = 0; i < in; ++i) wt[size_t(i) * out + o] = w.values[size_t(o) * in + i];
    const std::string full = c.prefix + "." + param;
    const std::string wName =
        c.g.constant(full + "weight^T", {in, out}, wt,
                     "transpose of " + full + "weight [" + std::to_string(out) + ", " +
                         std::to_string(in) + "]");
    const std::string bName = c.g.constant(full + "bias", {out}, b.values);
    const std::string mm = c.g.node("MatMul", where, {x, wName});
    return c.g.node("Add", where, {mm, bName});
}

std::string activation(LayerContext& c, const std::string& x, Activation act,
                       const std::string& where) {
    switch (act) {
        case Activation::None:
            return x;
        case Activation::Tanh:
            return c.g.node("Tanh", where, {x});
        case Activation::Sigmoid:
            return c.g.node("Sigmoid", where, {x});
        case Activation::Relu:
            return c.g.node("Relu", where, {x});
        case Activation::LeakyRelu:
            return c.g.node("LeakyRelu", where, {x}, {Attr::real("alpha", 0.01f)});
        case Activation::Swish: {  // z * sigmoid(z)
            const std::string s = c.g.node("Sigmoid", where + "/swish", {x});
            return c.g.node("Mul", where + "/swish", {x, s});
        }
        case Activation::Softmax:
            return c.g.node("Softmax", where, {x}, {Attr::integer("axis", -1)});
    }
    c.fail("unknown activation");
}

// (x - mean) / sqrt(var + eps) over `axes` (population variance), as Backend::normForward:
// the last axis for the per-element norm, axes 1 and 2 (units x window of a sample) for the
// MQL5 sequence norm.
std::string norm(LayerContext& c, const std::string& x, NormMode mode, const std::string& where) {
    const std::vector<int64_t> axes =
        mode == NormMode::Element ? std::vector<int64_t>{-1} : std::vector<int64_t>{1, 2};
    const std::vector<Attr> reduce{Attr::list("axes", axes), Attr::integer("keepdims", 1)};
    const std::string mean = c.g.node("ReduceMean", where + "/mean", {x}, reduce);
    const std::string d = c.g.node("Sub", where, {x, mean});
    const std::string sq = c.g.node("Mul", where, {d, d});
    const std::string var = c.g.node("ReduceMean", where + "/var", {sq}, reduce);
    const std::string eps = c.g.constant(where + "/eps", {}, {kNormEps});
    const std::string den = c.g.node("Sqrt", where, {c.g.node("Add", where, {var, eps})});
    return c.g.node("Div", where, {d, den});
}

struct BlockConfig {
    int units, window, heads, keySize, valueSize;
    bool w0, causal;
    NormMode norm;
    Activation hidden, ffOut;
};

// One AttentionBlock (see model/layers/AttentionBlock.h) on x [B, U, W].
std::string attentionBlock(LayerContext& c, const std::string& block, const BlockConfig& k,
                           const std::string& x) {
    const int u = k.units, w = k.window, h = k.heads, d = k.keySize, dv = k.valueSize;
    const int hd = h * d, q = h * (2 * d + dv), ctx = h * dv, f = 4 * w;
    const std::string at = c.prefix + "." + block;
    const std::string qkv = linear(c, x, block + "qkv.", w, q, at + "qkv");
    const auto parts =
        c.g.nodeN("Split", at + "qkv", {qkv, c.shapeConst(block + "qkv_split", {hd, hd, h * dv})},
                  3, {Attr::integer("axis", 2)});
    // [B, U, H*D] -> [B, U, H, D] -> per-head layouts
    auto heads = [&](const std::string& t, int size, std::vector<int64_t> perm,
                     const std::string& what) {
        const std::string r = c.g.node("Reshape", at + what,
                                       {t, c.shapeConst(block + what + "_shape", {0, u, h, size})});
        return c.g.node("Transpose", at + what, {r}, {Attr::list("perm", std::move(perm))});
    };
    const std::string qh = heads(parts[0], d, {0, 2, 1, 3}, "q");   // [B, H, U, D]
    const std::string kh = heads(parts[1], d, {0, 2, 3, 1}, "k");   // [B, H, D, U]
    const std::string vh = heads(parts[2], dv, {0, 2, 1, 3}, "v");  // [B, H, U, Dv]
    std::string s = c.g.node("MatMul", at + "scores", {qh, kh});    // [B, H, U, U]
    const float scale = 1.0f / std::sqrt(float(d));
    s = c.g.node("Mul", at + "scores", {s, c.g.constant(at + "scores/scale", {}, {scale})});
    if (k.causal) {  // a query sees itself and earlier elements: later columns get -1e30
        std::vector<float> mask(size_t(u) * u, 0.0f);
        for (int i = 0; i < u; ++i)
            for (int j = i + 1; j < u; ++j) mask[size_t(i) * u + j] = -1e30f;
        s = c.g.node("Add", at + "scores/causal",
                     {s, c.g.constant(at + "scores/causal_mask", {u, u}, mask)});
    }
    const std::string p = c.g.node("Softmax", at + "scores", {s}, {Attr::integer("axis", -1)});
    std::string z = c.g.node("MatMul", at + "context", {p, vh});  // [B, H, U, Dv]
    z = c.g.node("Transpose", at + "context", {z}, {Attr::list("perm", {0, 2, 1, 3})});
    z = c.g.node("Reshape", at + "context",
                 {z, c.shapeConst(block + "context_shape", {0, u, ctx})});
    if (k.w0) z = linear(c, z, block + "w0.", ctx, w, at + "w0");
    const std::string x1 = norm(c, c.g.node("Add", at + "residual1", {x, z}), k.norm, at + "norm1");
    std::string ff =
        activation(c, linear(c, x1, block + "ff1.", w, f, at + "ff1"), k.hidden, at + "ff1");
    ff = activation(c, linear(c, ff, block + "ff2.", f, w, at + "ff2"), k.ffOut, at + "ff2");
    return norm(c, c.g.node("Add", at + "residual2", {x1, ff}), k.norm, at + "norm2");
}

GraphTensor emitDense(LayerContext& c, const nlohmann::json& j, const GraphTensor& in) {
    const int n = j.at("neurons").get<int>();
    const int len = int(in.shape.size());
    const std::string x = c.g.node("Reshape", c.prefix + "/flatten",
                                   {in.name, c.shapeConst("flat_shape", {0, 1, len})});
    const std::string y = linear(c, x, "", len, n, c.prefix);
    return {activation(c, y, activationFromName(j.at("activation").get<std::string>()), c.prefix),
            Shape{1, n}};
}

GraphTensor emitConv(LayerContext& c, const ConvLayer& conv, const nlohmann::json& j,
                     const GraphTensor& in) {
    const int window = conv.windowFor(in.shape), step = conv.stepFor(in.shape);
    const int filters = j.at("filters").get<int>();
    const int len = int(in.shape.size());
    if (len < window) c.fail("window is longer than the input");
    const int positions = (len - window) / step + 1;
    std::string cols;
    if (step == window && positions * window == len) {  // the windows tile the input
        cols = c.g.node("Reshape", c.prefix + "/windows",
                        {in.name, c.shapeConst("windows_shape", {0, positions, window})});
    } else {  // gather the overlapping (or gapped) windows: index p * step + w
        const std::string flat = c.g.node("Reshape", c.prefix + "/flatten",
                                          {in.name, c.shapeConst("flat_shape", {0, len})});
        std::vector<int64_t> idx;
        for (int p = 0; p < positions; ++p)
            for (int w = 0; w < window; ++w) idx.push_back(int64_t(p) * step + w);
        cols = c.g.node("Gather", c.prefix + "/windows",
                        {flat, c.g.ints(c.prefix + "/window_index", idx, {positions, window})},
                        {Attr::integer("axis", 1)});
    }
    const std::string y = linear(c, cols, "", window, filters, c.prefix);
    return {activation(c, y, activationFromName(j.at("activation").get<std::string>()), c.prefix),
            Shape{positions, filters}};
}

GraphTensor emitLightConv(LayerContext& c, const nlohmann::json& j, const GraphTensor& in) {
    const int heads = j.at("heads").get<int>(), k = j.at("kernel_size").get<int>();
    const bool causal = j.at("padding_l").get<std::string>() == "causal";
    const bool softmaxTaps = j.at("softmax_taps").get<bool>();
    const int ch = in.shape.window, units = in.shape.units;
    if (ch % heads != 0) c.fail("the window is not divisible by the heads");
    const int padL = causal ? k - 1 : k / 2;
    const HostTensor& w = c.tensor("weight", {heads, k});
    std::string taps = c.g.constant(c.prefix + ".weight", {heads, k}, w.values);
    if (softmaxTaps)
        taps = c.g.node("Softmax", c.prefix + "/taps", {taps}, {Attr::integer("axis", 1)});
    // Channel ch uses kernel ch / (window / heads): [heads, K] -> [window, 1, K]
    std::vector<int64_t> headOf(static_cast<size_t>(ch));
    for (int i = 0; i < ch; ++i) headOf[size_t(i)] = i / (ch / heads);
    std::string kernel = c.g.node("Gather", c.prefix + "/kernels",
                                  {taps, c.g.ints(c.prefix + "/head_of_channel", headOf)},
                                  {Attr::integer("axis", 0)});
    kernel = c.g.node("Reshape", c.prefix + "/kernels",
                      {kernel, c.shapeConst("kernel_shape", {ch, 1, k})});
    // Depthwise Conv over the sequence: [B, U, C] -> [B, C, U] -> conv -> back.
    const std::string xt = c.g.node("Transpose", c.prefix + "/to_channels", {in.name},
                                    {Attr::list("perm", {0, 2, 1})});
    const std::string y = c.g.node("Conv", c.prefix, {xt, kernel},
                                   {Attr::integer("group", ch), Attr::list("kernel_shape", {k}),
                                    Attr::list("pads", {padL, k - 1 - padL}),
                                    Attr::list("strides", {1}), Attr::list("dilations", {1})});
    (void)units;
    return {c.g.node("Transpose", c.prefix + "/to_sequence", {y}, {Attr::list("perm", {0, 2, 1})}),
            in.shape};
}

GraphTensor emitAttention(LayerContext& c, const Layer& layer, const GraphTensor& in) {
    const auto& base = dynamic_cast<const AttentionStackBase&>(layer);
    const auto& s = base.settings();
    const std::string type = layer.type();
    const bool single = type == "attention",
               prefixed = type != "attention" && type != "multihead_attention";
    const auto* gpt = dynamic_cast<const GptLayer*>(&layer);
    if (gpt && gpt->mode() != GptLayer::Mode::Sequence)
        c.fail(
            "gpt in stream mode carries key/value rings across samples; export it in "
            "sequence mode (the same weights, mode \"sequence\")");
    BlockConfig k;
    k.units = in.shape.units;
    k.window = in.shape.window;
    k.heads = single ? 1 : s.heads;
    k.keySize = s.keySize;
    k.valueSize = single ? in.shape.window : s.keySize;
    k.w0 = !single;
    k.causal = s.causal;
    k.norm = s.norm;
    k.hidden = s.hidden;
    k.ffOut = s.ffOut;
    std::string x = in.name;
    for (int l = 0; l < s.layers; ++l)
        x = attentionBlock(c, prefixed ? "block." + std::to_string(l) + "." : "", k, x);
    if (!gpt) return {x, in.shape};
    // Sequence mode equals the causal stack's output at the newest (last) element.
    const int u = in.shape.units;
    return {c.g.node("Slice", c.prefix + "/newest",
                     {x, c.shapeConst("newest_start", {u - 1}), c.shapeConst("newest_end", {u}),
                      c.shapeConst("newest_axis", {1})}),
            Shape{1, in.shape.window}};
}

}  // namespace

GraphTensor emitLayer(OnnxGraph& g, int index, const nlohmann::json& layerJson,
                      const GraphTensor& in, const TensorMap& weights) {
    LayerContext c{g, weights, "layers." + std::to_string(index)};
    LayerPtr layer;
    try {
        layer = makeLayer(layerJson);
        layer->outputShape(in.shape);  // the same shape checks as the network
    } catch (const std::invalid_argument& e) {
        c.fail(e.what());
    }
    const std::string type = layer->type();
    const nlohmann::json j = layer->toJson();  // every parameter, defaults filled in
    if (type == "dense") return emitDense(c, j, in);
    if (type == "conv") return emitConv(c, static_cast<const ConvLayer&>(*layer), j, in);
    if (type == "lightconv") return emitLightConv(c, j, in);
    if (type == "dropout") return in;  // the identity at inference (no node)
    if (dynamic_cast<const AttentionStackBase*>(layer.get())) return emitAttention(c, *layer, in);
    c.fail("ONNX export does not support layer type '" + type + "'");
}

}  // namespace nnwb::onnxexport
