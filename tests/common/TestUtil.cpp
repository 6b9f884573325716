#include "common/TestUtil.h"

namespace nnwb::test {

nlohmann::json syntheticData(int samples, int units, int window) {
    return {{"source", "synthetic"}, {"samples", samples}, {"units", units}, {"window", window}};
}

nlohmann::json tinyExperimentJson(int epochs, int batch) {
    nlohmann::json layers = nlohmann::json::array();
    layers.push_back({{"type", "conv"}, {"window", 6}, {"step", 6}, {"filters", 8},
                      {"activation", "tanh"}});
    layers.push_back({{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}});
    return {{"formatVersion", 1},
            {"name", "tiny"},
            {"data", syntheticData()},
            {"model", {{"layers", layers}}},
            {"training",
             {{"optimizer", {{"type", "adam"}, {"learningRate", 0.01}}},
              {"loss", "mse"},
              {"batchSize", batch},
              {"epochs", epochs},
              {"seed", 1},
              {"device", "cpu"}}}};
}

}  // namespace nnwb::test
