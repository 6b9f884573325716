#include "model/layers/LayerRegistry.h"

#include <stdexcept>

#include "model/layers/ActivationNames.h"
#include "model/layers/AttentionBlock.h"
#include "model/layers/AttentionLayer.h"
#include "model/layers/AttentionStackLayer.h"
#include "model/layers/ConvLayer.h"
#include "model/layers/DenseLayer.h"
#include "model/layers/DropoutLayer.h"
#include "model/layers/GptLayer.h"
#include "model/layers/LightConvLayer.h"
#include "model/layers/MultiHeadAttentionLayer.h"

namespace nnwb {

namespace {

using K = LayerParamSpec::Kind;

LayerParamSpec intParam(std::string key, std::string label, int min, int max, int def,
                        std::string help) {
    LayerParamSpec s;
    s.key = std::move(key);
    s.label = std::move(label);
    s.kind = K::Int;
    s.min = min;
    s.max = max;
    s.defaultValue = def;
    s.help = std::move(help);
    return s;
}

LayerParamSpec choiceParam(std::string key, std::string label, std::vector<std::string> choices,
                           std::string def, std::string help) {
    LayerParamSpec s;
    s.key = std::move(key);
    s.label = std::move(label);
    s.kind = K::Choice;
    s.choices = std::move(choices);
    s.defaultValue = def;
    s.help = std::move(help);
    return s;
}

LayerParamSpec boolParam(std::string key, std::string label, bool def, std::string help) {
    LayerParamSpec s;
    s.key = std::move(key);
    s.label = std::move(label);
    s.kind = K::Bool;
    s.defaultValue = def;
    s.help = std::move(help);
    return s;
}

LayerParamSpec realParam(std::string key, std::string label, double min, double maxExcluded,
                         double def, std::string help) {
    LayerParamSpec s;
    s.key = std::move(key);
    s.label = std::move(label);
    s.kind = K::Real;
    s.minReal = min;
    s.maxReal = maxExcluded;
    s.defaultValue = def;
    s.help = std::move(help);
    return s;
}

// Parameters shared by the attention layers.
LayerParamSpec unitsParam() {
    return intParam("units", "Units", 0, 1 << 16, 0,
                    "sequence length (elements); 0 = take it from the input");
}
LayerParamSpec windowParam() {
    return intParam("window", "Window", 0, 1 << 16, 0,
                    "values per element; must equal the input's (0 = take it from the input)");
}
LayerParamSpec keySizeParam(int def) {
    return intParam("key_size", "Key size", 1, 4096, def, "dk: values per query and key");
}
LayerParamSpec headsParam(int def) {
    return intParam("heads", "Heads", 1, 1024, def, "attention heads");
}
LayerParamSpec layersParam(int def) {
    return intParam("layers", "Layers", 1, 256, def, "identical blocks stacked");
}
LayerParamSpec causalParam() {
    return boolParam("causal", "Causal mask", false,
                     "a query sees only itself and earlier elements");
}
LayerParamSpec normParam() {
    return choiceParam("norm", "Norm", normModeNames(), "element",
                       "element: layer norm over each element's window; sequence: over the "
                       "whole units x window of a sample (MQL5)");
}
LayerParamSpec hiddenActParam() {
    return choiceParam("activation", "FF activation", activationNames(), "leaky_relu",
                       "f of the first feed-forward layer (hidden width 4 x window)");
}
LayerParamSpec ffOutActParam() {
    return choiceParam("ff_activation", "FF output activation", activationNames(), "none",
                       "g after the second feed-forward layer (MQL5 presets: sigmoid)");
}

LayerParamSpec scoreDropoutParam() {
    return realParam("score_dropout", "Score dropout", 0.0, 1.0, 0.0,
                     "dropout rate on the Score matrix after the softmax, in training only "
                     "(0 = off; kept values are scaled by 1 / (1 - rate))");
}
LayerParamSpec ffDropoutParam() {
    return realParam("ff_dropout", "FF dropout", 0.0, 1.0, 0.0,
                     "dropout rate on the feed-forward output before add & norm, in training "
                     "only (0 = off)");
}

LayerParamSpec activationParam(std::string def) {
    return choiceParam("activation", "Activation", activationNames(), std::move(def),
                       "f applied to W x + b");
}

std::vector<LayerTypeInfo> buildTypes() {
    std::vector<LayerTypeInfo> t;
    t.push_back({"dense",
                 "Dense",
                 "Fully connected: y = f(W x + b) over the whole flattened input.",
                 {intParam("neurons", "Neurons", 1, 1 << 20, 64, "outputs of the layer"),
                  activationParam("tanh")},
                 DenseLayer::fromJson});
    t.push_back({"conv",
                 "Convolution",
                 "Dense projection of each window of inputs moved by step (the MQL5 convolution).",
                 {intParam("window", "Window", 0, 1 << 20, 0,
                           "input values per position (0 = the input's values per element, "
                           "e.g. the features of one bar)"),
                  intParam("step", "Step", 0, 1 << 20, 0,
                           "shift between positions in values (0 = the window)"),
                  intParam("filters", "Filters", 1, 1 << 16, 24, "outputs per position"),
                  activationParam("sigmoid")},
                 ConvLayer::fromJson});
    t.push_back({"attention",
                 "Self-attention",
                 "Single-head self-attention block: Score = softmax(Q K^T / sqrt(dk)), "
                 "Z = Score V (V has window values), add & norm, feed-forward 4 x window, "
                 "add & norm.",
                 {unitsParam(), windowParam(), keySizeParam(8), causalParam(), normParam(),
                  hiddenActParam(), ffOutActParam(), scoreDropoutParam(), ffDropoutParam()},
                 AttentionLayer::fromJson});
    t.push_back(
        {"multihead_attention",
         "Multi-head attention",
         "Multi-head self-attention block: heads of key size dk in one pass, "
         "concatenated and projected back to window by W0; add & norm, "
         "feed-forward, add & norm.",
         {unitsParam(), windowParam(), keySizeParam(4), headsParam(8), causalParam(), normParam(),
          hiddenActParam(), ffOutActParam(), scoreDropoutParam(), ffDropoutParam()},
         MultiHeadAttentionLayer::fromJson});
    t.push_back({"attention_stack",
                 "Attention stack",
                 "Multi-layer multi-head attention (transformer encoder): identical blocks "
                 "with a fused QKV projection, optional causal mask.",
                 {unitsParam(), windowParam(), keySizeParam(4), headsParam(8), layersParam(5),
                  causalParam(), normParam(), hiddenActParam(), ffOutActParam(),
                  scoreDropoutParam(), ffDropoutParam()},
                 AttentionStackLayer::fromJson});
    t.push_back({"gpt",
                 "GPT block",
                 "Causal multi-head stack that processes the newest element of each sample "
                 "against cached keys/values of the earlier ones; output {1, window}.",
                 {unitsParam(), windowParam(), keySizeParam(4), headsParam(8), layersParam(5),
                  hiddenActParam(), ffOutActParam(),
                  choiceParam("mode", "Mode", {"sequence", "stream"}, "sequence",
                              "sequence: key/value stacks from each sample's own earlier "
                              "elements; stream: samples in time order, one ring per batch "
                              "slot (MQL5 style)")},
                 GptLayer::fromJson});
    t.push_back({"lightconv",
                 "Lightweight convolution",
                 "Depthwise 1-D convolution over the sequence, heads kernels each shared by "
                 "window/heads channels (fairseq LightweightConv).",
                 {unitsParam(), windowParam(), headsParam(1),
                  intParam("kernel_size", "Kernel size", 3, 31, 3, "taps: 3, 5, 7, 15 or 31"),
                  choiceParam("padding_l", "Padding", {"causal", "centred"}, "causal",
                              "left padding: causal K-1, centred K/2"),
                  boolParam("softmax_taps", "Softmax over taps", true,
                            "normalise each kernel's taps with a softmax")},
                 LightConvLayer::fromJson});
    t.push_back({"dropout",
                 "Dropout",
                 "Inverted dropout: in training each value is zeroed with probability rate and "
                 "the kept ones are scaled by 1 / (1 - rate); the identity when evaluating or "
                 "predicting.",
                 {realParam("rate", "Rate", 0.0, 1.0, 0.1,
                            "probability that a value is dropped in training (0 <= rate < 1); "
                            "a new mask every batch, drawn from the training seed")},
                 DropoutLayer::fromJson});
    return t;
}

}  // namespace

const std::vector<LayerTypeInfo>& layerTypes() {
    static const std::vector<LayerTypeInfo> types = buildTypes();
    return types;
}

const LayerTypeInfo* findLayerType(const std::string& type) {
    for (const auto& t : layerTypes())
        if (t.type == type) return &t;
    return nullptr;
}

const LayerParamSpec& layerParam(const std::string& type, const std::string& key) {
    const auto* info = findLayerType(type);
    if (info)
        for (const auto& p : info->params)
            if (p.key == key) return p;
    throw std::logic_error("layer type '" + type + "' has no parameter '" + key + "'");
}

LayerPtr makeLayer(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("a layer must be a JSON object");
    if (!j.contains("type") || !j["type"].is_string())
        throw std::invalid_argument("layer has no \"type\"");
    const std::string type = j["type"].get<std::string>();
    const auto* info = findLayerType(type);
    if (!info) {
        std::string all;
        for (const auto& t : layerTypes()) all += (all.empty() ? "" : ", ") + t.type;
        throw std::invalid_argument("unknown layer type '" + type + "' (one of: " + all + ")");
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() == "type") continue;
        bool known = false;
        for (const auto& p : info->params) known = known || p.key == it.key();
        if (!known)
            throw std::invalid_argument("unknown parameter '" + it.key() + "' for layer type '" +
                                        type + "'");
    }
    return info->make(j);
}

nlohmann::json defaultLayerJson(const std::string& type) {
    const auto* info = findLayerType(type);
    if (!info) throw std::invalid_argument("unknown layer type '" + type + "'");
    nlohmann::json j{{"type", type}};
    for (const auto& p : info->params) j[p.key] = p.defaultValue;
    return j;
}

int jsonInt(const nlohmann::json& j, const LayerParamSpec& s) {
    if (!j.contains(s.key)) return s.defaultValue.get<int>();
    const auto& v = j[s.key];
    if (!v.is_number_integer())
        throw std::invalid_argument(s.key + ": must be an integer, got " + v.dump());
    const long long x = v.get<long long>();
    if (x < s.min || x > s.max)
        throw std::invalid_argument(s.key + ": " + std::to_string(x) + " is outside " +
                                    std::to_string(s.min) + ".." + std::to_string(s.max));
    return static_cast<int>(x);
}

bool jsonBool(const nlohmann::json& j, const LayerParamSpec& s) {
    if (!j.contains(s.key)) return s.defaultValue.get<bool>();
    const auto& v = j[s.key];
    if (!v.is_boolean()) throw std::invalid_argument(s.key + ": must be true or false");
    return v.get<bool>();
}

std::string jsonChoice(const nlohmann::json& j, const LayerParamSpec& s) {
    if (!j.contains(s.key)) return s.defaultValue.get<std::string>();
    const auto& v = j[s.key];
    std::string all;
    for (const auto& c : s.choices) all += (all.empty() ? "" : ", ") + c;
    if (!v.is_string())
        throw std::invalid_argument(s.key + ": must be one of " + all + ", got " + v.dump());
    const std::string x = v.get<std::string>();
    for (const auto& c : s.choices)
        if (c == x) return x;
    throw std::invalid_argument(s.key + ": '" + x + "' is not one of " + all);
}

double jsonReal(const nlohmann::json& j, const LayerParamSpec& s) {
    if (!j.contains(s.key)) return s.defaultValue.get<double>();
    const auto& v = j[s.key];
    if (!v.is_number()) throw std::invalid_argument(s.key + ": must be a number, got " + v.dump());
    const double x = v.get<double>();
    if (!(x >= s.minReal && x < s.maxReal))
        throw std::invalid_argument(s.key + ": " + v.dump() + " is outside " +
                                    nlohmann::json(s.minReal).dump() + " <= " + s.key + " < " +
                                    nlohmann::json(s.maxReal).dump());
    return x;
}

}  // namespace nnwb
