// A trained model packed for use: one safetensors file whose weights are the network's and
// whose __metadata__ holds everything needed to apply it to new bars — the data settings
// (features, periods, window, fractal rule, positional encoding, indicator definitions), the
// training part's normalization statistics, the output order, the epoch, the time frame, the
// app version. Keys are listed in the README. Plain value type; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/Safetensors.h"
#include "model/data/DataConfig.h"
#include "model/data/Normalization.h"

namespace nnwb {

class ModelBundleError : public std::runtime_error {
public:
    explicit ModelBundleError(const std::string& what) : std::runtime_error(what) {}
};

struct ModelBundle {
    static constexpr int kBundleVersion = 1;
    TensorMap tensors;
    nlohmann::json model = nlohmann::json::object();  // {"layers": [...]}
    DataConfig data;                                  // `file` is the training file's name
    ZScoreStats stats;                                // empty with normalization "none"
    std::vector<std::string> features;                // input order, e.g. "closeOpen"
    std::vector<std::string> outputs{"none", "buy", "sell"};
    std::string loss = "mse";  // outputs are the network's (mse) or softmax probabilities
    int batchSize = 64;        // the run's batch size; predictions use the same batches
    int epoch = 0;             // 1-based epoch the weights come from
    std::string appVersion;
    int64_t timeframe = 0;  // seconds between bars of the training file
    // The training run: file name, experiment name, bar count and the bar times of the first
    // and last sample of each part (validation times 0 when it has none).
    std::string trainedOn, experiment;
    size_t bars = 0, trainSamples = 0, validationSamples = 0;
    int64_t trainFirst = 0, trainLast = 0, validationFirst = 0, validationLast = 0;

    bool usesVolume() const;
    // The __metadata__ map (string values; JSON where a value is structured).
    std::map<std::string, std::string> metadata() const;
    // Throws ModelBundleError naming the key at fault; a plain weights file (no data
    // settings) reads "not a model bundle: ...".
    static ModelBundle fromMetadata(TensorMap tensors,
                                    const std::map<std::string, std::string>& metadata);
    void save(const std::string& path) const;  // atomic
    // Throws ModelBundleError("PATH: problem") for unreadable, corrupt or plain weights files.
    static ModelBundle load(const std::string& path);
};

// The bundle of a run on a price file: its weights `tensors` (as readWeights or a
// WeightsSnapshot gives them) from `epoch`. Throws ModelBundleError when the data is not a
// price file (synthetic data cannot be applied to bars).
ModelBundle makeModelBundle(const Experiment& experiment, const ExperimentData& data,
                            const TensorMap& tensors, const nlohmann::json& model, int epoch);

// The tensors and __metadata__ strings of a bundle file (one model or an ensemble); throws
// ModelBundleError for a file that cannot be read or is not safetensors.
TensorMap readBundleFile(const std::string& path, std::map<std::string, std::string>& meta);
// decode(), its ModelBundleError named by the file: "PATH: problem".
template <class Decode>
auto decodeBundleOf(const std::string& path, Decode decode) -> decltype(decode()) {
    try {
        return decode();
    } catch (const ModelBundleError& e) {
        throw ModelBundleError(path + ": " + e.what());
    }
}

// The version of this build (NNWB_VERSION, from CMake: nnwb/Version.h).
const char* appVersion();

}  // namespace nnwb
