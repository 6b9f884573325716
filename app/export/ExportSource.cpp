#include "app/export/ExportSource.h"

#include <stdexcept>

#include "app/export/FeatureDocs.h"
#include "compute/Backend.h"
#include "model/ExperimentData.h"
#include "model/Network.h"
#include "model/NetworkWeights.h"
#include "model/data/DataPipeline.h"
#include "model/data/Normalization.h"

namespace nnwb::onnxexport {

namespace {

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

nlohmann::json numbers(const std::vector<double>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (double x : v) a.push_back(x);
    return a;
}

// The weights in the network's own order and shapes; throws std::invalid_argument.
TensorMap checkedWeights(const Experiment& e, const Shape& input, const TensorMap& weights) {
    auto backend = createBackend("cpu");  // declared first: the network's buffers go before it
    std::unique_ptr<Network> net;
    try {
        net = std::make_unique<Network>(Network::layersFromJson(e.model), input);
    } catch (const ShapeError& err) {
        throw std::invalid_argument(std::string("model: ") + err.what());
    }
    net->build(*backend, 1);
    writeWeights(*net, weights);  // names the first missing, extra or mis-shaped tensor
    return readWeights(*net);
}

DataConfig dataConfig(const Experiment& e) {
    try {
        return DataConfig::fromJson(e.data);
    } catch (const std::exception& err) {
        throw std::invalid_argument(err.what());
    }
}

std::string layerSummary(const nlohmann::json& model) {
    std::vector<std::string> parts;
    for (const auto& l : model.at("layers")) parts.push_back(l.value("type", std::string("?")));
    return joined(parts, " > ");
}

ExportSpec buildSpec(const Experiment& e, const DataResult* data, const TensorMap& weights,
                     int batch, const SourceInfo& info) {
    ExportSpec spec;
    spec.name = e.name;
    spec.model = e.model;
    spec.batch = batch;
    try {
        spec.input = experimentInputShape(e);
    } catch (const std::exception& err) {
        throw std::invalid_argument(err.what());
    }
    spec.weights = checkedWeights(e, spec.input, weights);
    const int window = spec.input.units, features = spec.input.window;
    const std::string lossName = e.training.toJson().value("loss", std::string("mse"));
    const std::string source = e.data.value("source", std::string("file"));
    const std::string from =
        info.weightsLabel.empty() ? std::string("its weights") : info.weightsLabel;
    std::string epochText = info.epoch > 0 ? ", epoch " + std::to_string(info.epoch) : "";

    spec.metadata["nnwb.format"] = "nnwb-onnx 1";
    spec.metadata["nnwb.experiment"] = e.toJson().dump();
    spec.metadata["nnwb.classes"] = joined(spec.classNames, ",");
    spec.metadata["nnwb.window"] = std::to_string(window);
    spec.metadata["nnwb.loss"] = lossName;
    spec.metadata["nnwb.weights"] = from;
    if (info.epoch > 0) spec.metadata["nnwb.epoch"] = std::to_string(info.epoch);

    const std::string outputs =
        lossName == "cross_entropy"
            ? "logits (trained with softmax cross-entropy; softmax gives probabilities)"
            : "scores (trained with mean squared error towards the one-hot target)";
    if (source == "synthetic") {
        spec.inputDoc = "float32 [batch, " + std::to_string(window) + ", " +
                        std::to_string(features) +
                        "]: the synthetic task's inputs (Gaussian values, no normalization)";
        spec.outputDoc = "float32 [batch, 3]: " + outputs + " of the synthetic task's classes";
        spec.modelDoc = "nnwb model '" + e.name + "' (" + layerSummary(e.model) +
                        ") on the synthetic teacher task, from " + from + epochText + ".";
        spec.classNames = {"class 0", "class 1", "class 2"};
        spec.metadata["nnwb.classes"] = joined(spec.classNames, ",");
        spec.metadata["nnwb.normalization"] = "none";
        return spec;
    }

    const DataConfig cfg = dataConfig(e);
    if (!data || !data->ok) throw std::invalid_argument("the experiment's data is not loaded");
    if (cfg.normalization == "zscore") {
        spec.mean = data->stats.mean;
        spec.scale = zScoreScale(data->stats);
        spec.metadata["nnwb.normalization.mean"] = numbers(data->stats.mean).dump();
        spec.metadata["nnwb.normalization.stddev"] = numbers(data->stats.stddev).dump();
    }
    spec.positionalEncoding = cfg.positionalEncoding;
    spec.metadata["nnwb.normalization"] = cfg.normalization;
    spec.metadata["nnwb.positionalEncoding"] = cfg.positionalEncoding ? "true" : "false";
    spec.metadata["nnwb.indicators"] = indicatorVariant(cfg);
    spec.metadata["nnwb.features"] = joined(data->featureNames, ",");
    spec.metadata["nnwb.fractal"] = cfg.fractal;

    std::string columns;
    const auto active = cfg.features.active();
    for (size_t k = 0; k < active.size(); ++k)
        columns += "\n  " + std::to_string(k) + " " + featureDefinition(active[k], cfg);
    const std::string file = cfg.file.substr(cfg.file.find_last_of('/') + 1);
    std::string prep = cfg.normalization == "zscore"
                           ? "The graph itself applies the training part's z-score normalization "
                             "(x - mean) / stddev per feature"
                           : "No normalization (normalization \"none\")";
    if (cfg.positionalEncoding)
        prep += " and adds the sinusoidal positional encoding (row 0 = oldest bar)";
    spec.inputDoc = "float32 [batch, " + std::to_string(window) + ", " + std::to_string(features) +
                    "]: the raw features of the last " + std::to_string(window) +
                    " closed bars, oldest first (row " + std::to_string(window - 1) +
                    " = the newest closed bar, MT5 shift 1), one column per feature:" + columns +
                    "\n" + prep + ": feed raw indicator values.";
    const std::string fractal = cfg.fractal == "5bar"
                                    ? "5-bar Williams fractal (two bars each side)"
                                    : "3-bar fractal (one bar each side)";
    spec.outputDoc = "float32 [batch, 3]: " + outputs +
                     " of the classes none, buy, sell for the newest bar of the window: buy = its "
                     "low is a " +
                     fractal +
                     " low, sell = its high a fractal high, confirmed "
                     "when the next bar closes. The signal is the largest of the three; buy or "
                     "sell is a signal, none is not.";
    spec.modelDoc = "nnwb model '" + e.name + "' (" + layerSummary(e.model) + "), trained on " +
                    file + " with a window of " + std::to_string(window) + " bars and " +
                    std::to_string(features) + " features (" + joined(data->featureNames, ", ") +
                    "; indicator definitions: " + indicatorVariant(cfg) + "), from " + from +
                    epochText + ". Input 'features' [batch, " + std::to_string(window) + ", " +
                    std::to_string(features) +
                    "] raw values, output 'scores' [batch, 3] = none, buy, sell.";
    return spec;
}

}  // namespace

ExportSpec specFromExperiment(const Experiment& e, const TensorMap& weights, int batch,
                              const SourceInfo& info) {
    if (e.data.value("source", std::string("file")) == "synthetic")
        return buildSpec(e, nullptr, weights, batch, info);
    const DataResult data = buildDataSplit(dataConfig(e), e.baseDir);
    if (!data.ok) throw std::invalid_argument(data.error);
    return buildSpec(e, &data, weights, batch, info);
}

ExportSpec specFromData(const Experiment& e, const DataResult& data, const TensorMap& weights,
                        int batch, const SourceInfo& info) {
    return buildSpec(e, &data, weights, batch, info);
}

}  // namespace nnwb::onnxexport
