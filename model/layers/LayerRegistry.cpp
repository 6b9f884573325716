#include "model/layers/LayerRegistry.h"

#include <stdexcept>

#include "model/layers/ActivationNames.h"
#include "model/layers/ConvLayer.h"
#include "model/layers/DenseLayer.h"

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
                 {intParam("window", "Window", 1, 1 << 20, 12, "input values per position"),
                  intParam("step", "Step", 1, 1 << 20, 12, "shift between positions"),
                  intParam("filters", "Filters", 1, 1 << 16, 24, "outputs per position"),
                  activationParam("sigmoid")},
                 ConvLayer::fromJson});
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

}  // namespace nnwb
