// Every layer type the workbench offers: its JSON name, label, parameter descriptions (for the
// GUI's generic parameter form and for validation) and the factory that builds it from JSON.
// Read-only after static initialization; any thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/layers/Layer.h"

namespace nnwb {

struct LayerParamSpec {
    enum class Kind { Int, Bool, Choice, Real };
    std::string key;    // JSON key
    std::string label;  // for forms
    Kind kind = Kind::Int;
    int min = 0, max = 0;              // Int
    double minReal = 0, maxReal = 0;   // Real: minReal <= x < maxReal (maxReal excluded)
    double step = 0.05;                // Real: the GUI spin box step
    std::vector<std::string> choices;  // Choice
    nlohmann::json defaultValue;
    std::string help;
};

struct LayerTypeInfo {
    std::string type;   // JSON "type"
    std::string label;  // palette name
    std::string description;
    std::vector<LayerParamSpec> params;
    std::function<LayerPtr(const nlohmann::json&)> make;
};

const std::vector<LayerTypeInfo>& layerTypes();
const LayerTypeInfo* findLayerType(const std::string& type);
// The spec of parameter `key` of a registered type; throws std::logic_error when absent.
const LayerParamSpec& layerParam(const std::string& type, const std::string& key);

// Reads a layer from JSON: checks "type" and every parameter against its spec (missing ones
// take defaults). Throws std::invalid_argument("unknown layer type 'x'" / "neurons: must be ...").
LayerPtr makeLayer(const nlohmann::json& j);
// The JSON object of a type with every parameter at its default.
nlohmann::json defaultLayerJson(const std::string& type);

// Parameter access with validation against a spec, used by layer constructors.
int jsonInt(const nlohmann::json& j, const LayerParamSpec& spec);
bool jsonBool(const nlohmann::json& j, const LayerParamSpec& spec);
std::string jsonChoice(const nlohmann::json& j, const LayerParamSpec& spec);
double jsonReal(const nlohmann::json& j, const LayerParamSpec& spec);

}  // namespace nnwb
