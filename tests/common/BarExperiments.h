// The experiments (formatVersion 2 JSON) that the tests train on bars: a tiny dense or conv
// network on a data section of the test's own, which a test then changes. One copy here
// instead of one per test file (the JSON is a std::map: the order of its keys is the same
// however it is built). Header-only, Qt-free; any thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnwb::test {

// A dense layer of `neurons` tanh units, a dropout of `dropout` when it is above 0, and the 3
// outputs under `output`.
inline nlohmann::json denseLayers(int neurons, const std::string& output = "sigmoid",
                                  double dropout = 0) {
    nlohmann::json layers = nlohmann::json::array();
    layers.push_back({{"type", "dense"}, {"neurons", neurons}, {"activation", "tanh"}});
    if (dropout > 0) layers.push_back({{"type", "dropout"}, {"rate", dropout}});
    layers.push_back({{"type", "dense"}, {"neurons", 3}, {"activation", output}});
    return layers;
}

// A conv layer (window 12, step 12, 4 filters; sigmoid when `sigmoid`, else its default) and
// the 3 sigmoid outputs.
inline nlohmann::json convLayers(bool sigmoid = true) {
    nlohmann::json conv = {{"type", "conv"}, {"window", 12}, {"step", 12}, {"filters", 4}};
    if (sigmoid) conv["activation"] = "sigmoid";
    return nlohmann::json::array(
        {conv, {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}});
}

// {"formatVersion": version, "name", "data", "model": {"layers"}, "training"}.
inline nlohmann::json barExperiment(const std::string& name, const nlohmann::json& data,
                                    const nlohmann::json& layers, const nlohmann::json& training,
                                    int version = 2) {
    return {{"formatVersion", version},
            {"name", name},
            {"data", data},
            {"model", {{"layers", layers}}},
            {"training", training}};
}

// The walk-forward and sweep tests' experiment: `epochs` epochs of batches of 16 from seed 5
// of a dense layer of 8 on `file` (window 6, the MetaTrader 5 indicators).
inline nlohmann::json tinyMt5Experiment(const std::string& name, int epochs,
                                        const std::string& file = "cut.csv") {
    return barExperiment(name, {{"file", file}, {"window", 6}, {"indicators", "mt5"}},
                         denseLayers(8), {{"epochs", epochs}, {"batchSize", 16}, {"seed", 5}});
}

// The run tests' experiment: `epochs` epochs of batches of 16 from seed 11 of the conv network
// on `file` (window 8), balanced cross-entropy under Adam at 0.02, traded at a given spread of 7.
inline nlohmann::json balancedConvExperiment(const std::string& name, const std::string& file,
                                             int epochs) {
    nlohmann::json e = barExperiment(name, {{"file", file}, {"window", 8}}, convLayers(),
                                     {{"epochs", epochs},
                                      {"batchSize", 16},
                                      {"seed", 11},
                                      {"loss", "cross_entropy"},
                                      {"classWeights", {{"mode", "balanced"}}},
                                      {"optimizer", {{"type", "adam"}, {"learningRate", 0.02}}}});
    e["trading"] = {{"spreadSource", "given"}, {"spreadPoints", 7}};
    return e;
}

}  // namespace nnwb::test
