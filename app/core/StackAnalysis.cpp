#include "app/core/StackAnalysis.h"

#include <exception>

#include "model/Network.h"

namespace nnwb {

StackAnalysis analyzeStack(const nlohmann::json& layersJson, const Shape& input, int targets) {
    StackAnalysis a;
    a.input = input;
    const size_t n = layersJson.is_array() ? layersJson.size() : 0;
    a.layers.resize(n);
    std::vector<LayerPtr> layers;
    try {
        layers = Network::layersFromJson({{"layers", layersJson}});
    } catch (const ShapeError& e) {
        a.errorLayer = e.layer();
        a.error = e.what();
        return a;
    }
    // Shapes up to the first layer that does not fit.
    Shape cur = input;
    for (size_t i = 0; i < layers.size(); ++i) {
        try {
            const Shape out = layers[i]->outputShape(cur);
            a.layers[i].ok = true;
            a.layers[i].output = out;
            a.layers[i].parameters = layers[i]->parameterCount(cur);
            a.totalParameters += a.layers[i].parameters;
            cur = out;
        } catch (const std::exception&) {
            break;
        }
    }
    try {
        Network::inferShapes(layers, input);  // for the exact message naming both layers
    } catch (const ShapeError& e) {
        a.errorLayer = e.layer();
        a.error = e.what();
        return a;
    }
    if (static_cast<int>(cur.size()) != targets) {
        a.errorLayer = static_cast<int>(layers.size()) - 1;
        a.error = "layer " + std::to_string(layers.size()) + " (" + layers.back()->type() +
                  ") gives " + std::to_string(cur.size()) + " outputs (" + cur.str() +
                  ") but the targets have " + std::to_string(targets) +
                  " values: end the stack with " + std::to_string(targets) + " outputs";
        return a;
    }
    a.valid = true;
    return a;
}

}  // namespace nnwb
