// An untrained model bundle of a small conv stack on the bundled EURUSD H1 bars, for the tests
// that predict with a model (predicting needs weights, not good ones). One copy here instead of
// one per test file. Qt-free; any thread (it trains nothing, it only builds the network).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "model/Experiment.h"
#include "model/ModelBundle.h"
#include "model/NetworkWeights.h"
#include "model/TrainingSession.h"
#include "model/data/DataConfig.h"

namespace nnwb::test {

// The bundle (epoch 1) of experiment `name`: window 8 on the bundled file, 20 % validation.
inline std::shared_ptr<const ModelBundle> untrainedBundle(const std::string& name) {
    nlohmann::json j = {
        {"formatVersion", 1},
        {"name", name},
        {"data", {{"file", defaultDataFile()}, {"window", 8}, {"validationShare", 0.2}}},
        {"model",
         {{"layers",
           {{{"type", "conv"}, {"window", 12}, {"step", 12}, {"filters", 4}},
            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
        {"training", {{"epochs", 1}, {"batchSize", 32}, {"seed", 7}, {"device", "cpu"}}}};
    const Experiment exp = Experiment::fromJson(j);
    TrainingSession session(exp);
    return std::make_shared<const ModelBundle>(makeModelBundle(
        exp, session.data(), readWeights(session.network()), session.network().toJson(), 1));
}

}  // namespace nnwb::test
