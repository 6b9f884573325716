#include "app/export/ExportSource.h"

#include <memory>
#include <stdexcept>

#include "app/export/FeatureDocs.h"
#include "compute/Backend.h"
#include "compute/BackendRegistry.h"
#include "model/ExperimentData.h"
#include "model/Network.h"
#include "model/NetworkWeights.h"
#include "model/data/FeatureChecks.h"
#include "model/data/Normalization.h"

namespace nnwb::onnxexport {

namespace {

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

// The weights in the network's own order and shapes; throws std::invalid_argument.
TensorMap checkedWeights(const nlohmann::json& model, const Shape& input,
                         const TensorMap& weights) {
    auto backend = createBackend("cpu");  // declared first: the network's buffers go before it
    std::unique_ptr<Network> net;
    try {
        net = std::make_unique<Network>(Network::layersFromJson(model), input);
    } catch (const ShapeError& err) {
        throw std::invalid_argument(std::string("model: ") + err.what());
    }
    net->build(*backend, 1);
    writeWeights(*net, weights);  // names the first missing, extra or mis-shaped tensor
    return readWeights(*net);
}

std::string layerSummary(const nlohmann::json& model) {
    std::vector<std::string> parts;
    for (const auto& l : model.at("layers")) parts.push_back(l.value("type", std::string("?")));
    return joined(parts, " > ");
}

std::string outputMeaning(const std::string& loss) {
    return loss == "cross_entropy"
               ? "class probabilities (softmax of the network's outputs; trained with "
                 "cross-entropy)"
               : "scores (the network's outputs, trained with mean squared error towards the "
                 "one-hot target)";
}

ExportSpec syntheticSpec(const Experiment& e, const TensorMap& weights, int batch, int epoch,
                         const std::string& from) {
    ExportSpec spec;
    spec.name = e.name;
    spec.model = e.model;
    spec.batch = batch;
    spec.input = experimentInputShape(e);
    spec.weights = checkedWeights(e.model, spec.input, weights);
    const std::string loss = lossName(e.training.loss);
    spec.outputSoftmax = loss == "cross_entropy";
    spec.classNames = {"class 0", "class 1", "class 2"};
    const std::string dims =
        std::to_string(spec.input.units) + ", " + std::to_string(spec.input.window);
    spec.inputDoc = "float32 [batch, " + dims +
                    "]: the synthetic task's inputs (Gaussian values, no normalization)";
    spec.outputDoc = "float32 [batch, 3]: " + outputMeaning(loss) + " of the synthetic classes";
    spec.modelDoc = "nnwb model '" + e.name + "' (" + layerSummary(e.model) +
                    ") on the synthetic teacher task, from " + from +
                    (epoch > 0 ? ", epoch " + std::to_string(epoch) : "") + ".";
    spec.metadata["nnwb.onnx"] = "1";
    spec.metadata["nnwb.experiment"] = e.toJson().dump();
    spec.metadata["nnwb.outputs"] = nlohmann::json(spec.classNames).dump();
    spec.metadata["nnwb.loss"] = loss;
    if (epoch > 0) spec.metadata["nnwb.epoch"] = std::to_string(epoch);
    return spec;
}

}  // namespace

namespace {

// With z-score normalization: the features constant in training (multiplied by 0 in the graph).
std::string constantFeaturesText(const ModelBundle& b) {
    std::string constant;
    if (b.data.normalization != "zscore") return constant;
    for (size_t k = 0; k < b.features.size(); ++k)
        if (isConstantStat(b.stats, k)) constant += (constant.empty() ? "" : ", ") + b.features[k];
    if (!constant.empty())
        constant = "\nConstant in training (stddev 0, no information): " + constant +
                   "; the graph multiplies them by 0, so they enter as 0 whatever is fed.";
    return constant;
}

// With z-score normalization: the inputs the model knows only near its training data, and the
// features in the training instrument's price scale.
std::string scaleBoundText(const ModelBundle& b) {
    if (b.data.normalization != "zscore") return {};
    std::string scaleBound;
    for (const std::string& f : b.features) {
        Feature kind;
        if (featureFromKey(f, kind) && !featureInfo(kind).scaleFree)
            scaleBound += (scaleBound.empty() ? "" : ", ") + f;
    }
    return "\nThe model was trained for inputs near its training data: a normalized input "
           "(x - mean) / stddev beyond about +-" +
           std::to_string(int(kOutOfRangeZ)) +
           " (nnwb-cli predict warns when over 1% of the rows are) means bars unlike the "
           "training file (another instrument or price scale), and its scores mean little there." +
           (scaleBound.empty() ? std::string()
                               : " In the price scale of the training instrument: " + scaleBound +
                                     " (the scale-free features divide by ATR or the close).");
}

// The doc strings of a bundle's graph: what its input columns are and how they are prepared
// (constant and price-scale features named), what its outputs mean, and the model's summary.
void describeBundleSpec(const ModelBundle& b, const std::string& source, ExportSpec& spec) {
    const DataConfig& cfg = b.data;
    const int window = cfg.window, features = cfg.featureCount();
    const std::string from = source.empty() ? "its weights" : source;
    const std::string epochText = b.epoch > 0 ? ", epoch " + std::to_string(b.epoch) : "";
    std::string columns;
    const auto active = cfg.features.active();
    for (size_t k = 0; k < active.size(); ++k)
        columns += "\n  " + std::to_string(k) + " " + featureDefinition(active[k], cfg);
    std::string prep = cfg.normalization == "zscore"
                           ? "The graph itself applies the training part's z-score normalization "
                             "(x - mean) / stddev per feature"
                           : "No normalization (normalization \"none\")";
    if (cfg.positionalEncoding)
        prep += " and adds the sinusoidal positional encoding (row 0 = oldest bar)";
    const std::string constant = constantFeaturesText(b), scaleBound = scaleBoundText(b);
    spec.inputDoc = "float32 [batch, " + std::to_string(window) + ", " + std::to_string(features) +
                    "]: the raw features of the last " + std::to_string(window) +
                    " closed bars, oldest first (row " + std::to_string(window - 1) +
                    " = the newest closed bar, MT5 shift 1), one column per feature:" + columns +
                    "\n" + prep + ": feed raw indicator values." + constant + scaleBound;
    const std::string fractal = cfg.fractal == "5bar"
                                    ? "5-bar Williams fractal (two bars each side)"
                                    : "3-bar fractal (one bar each side)";
    spec.outputDoc = "float32 [batch, 3]: " + outputMeaning(b.loss) + " of the classes " +
                     joined(b.outputs, ", ") +
                     " for the newest bar of the window: buy = its low is a " + fractal +
                     " low, sell = its high a fractal high, known when the next bar closes. The "
                     "signal is the largest of the three; buy or sell is a signal, none is not.";
    spec.modelDoc = "nnwb model '" + spec.name + "' (" + layerSummary(b.model) + "), trained on " +
                    (b.trainedOn.empty() ? cfg.file : b.trainedOn) + " with a window of " +
                    std::to_string(window) + " bars and " + std::to_string(features) +
                    " features (" + joined(b.features, ", ") +
                    "; indicator definitions: " + indicatorVariant(cfg) + "), from " + from +
                    epochText + ". Input 'features' [batch, " + std::to_string(window) + ", " +
                    std::to_string(features) +
                    "] raw values, output 'scores' [batch, 3] = " + joined(b.outputs, ", ") + ".";
}

}  // namespace

ExportSpec specFromBundle(const ModelBundle& b, int batch, const std::string& source) {
    const DataConfig& cfg = b.data;
    ExportSpec spec;
    spec.name = b.experiment.empty() ? "nnwb" : b.experiment;
    spec.model = b.model;
    spec.batch = batch;
    spec.input = Shape{cfg.window, cfg.featureCount()};
    if (b.features.size() != size_t(cfg.featureCount()))
        throw std::invalid_argument("the bundle lists " + std::to_string(b.features.size()) +
                                    " features, its data settings enable " +
                                    std::to_string(cfg.featureCount()));
    spec.weights = checkedWeights(b.model, spec.input, b.tensors);
    if (cfg.normalization == "zscore") {
        if (b.stats.mean.size() != b.features.size() || b.stats.stddev.size() != b.features.size())
            throw std::invalid_argument(
                "the bundle's normalization statistics do not match its "
                "features");
        spec.mean = b.stats.mean;
        spec.scale = zScoreScale(b.stats);
    }
    spec.positionalEncoding = cfg.positionalEncoding;
    spec.classNames = b.outputs;
    spec.outputSoftmax = b.loss == "cross_entropy";

    // metadata_props: the bundle's own __metadata__ keys under "nnwb.", plus the window.
    for (const auto& [k, v] : b.metadata()) spec.metadata["nnwb." + k] = v;
    spec.metadata["nnwb.onnx"] = "1";
    spec.metadata["nnwb.window"] = std::to_string(cfg.window);

    describeBundleSpec(b, source, spec);
    return spec;
}

ExportSpec specFromEnsemble(const EnsembleBundle& e, int batch, const std::string& source) {
    ExportSpec spec = specFromBundle(e.member(0), batch, source);
    for (size_t m = 0; m < e.size(); ++m) {
        try {
            spec.members.push_back(checkedWeights(e.common.model, spec.input, e.weights[m]));
        } catch (const std::invalid_argument& err) {
            throw std::invalid_argument("member " + std::to_string(m + 1) + ": " + err.what());
        }
    }
    for (const auto& [k, v] : e.metadata()) spec.metadata["nnwb." + k] = v;
    spec.outputDoc += " An ensemble of " + std::to_string(e.size()) +
                      " members: the mean of their outputs; the output \"agreement\" is the "
                      "share of members whose own largest output is the mean's.";
    return spec;
}

ExportSpec specFromExperimentData(const Experiment& e, const ExperimentData& data,
                                  const TensorMap& weights, int batch, int epoch,
                                  const std::string& source) {
    const std::string from = source.empty() ? "its weights" : source;
    try {
        if (e.data.value("source", std::string("file")) == "synthetic")
            return syntheticSpec(e, weights, batch, epoch, from);
        if (!data.ok) throw std::invalid_argument(data.error);
        const ModelBundle b = makeModelBundle(e, data, weights, e.model, epoch);
        ExportSpec spec = specFromBundle(b, batch, from);
        spec.metadata["nnwb.experiment"] = e.toJson().dump();
        return spec;
    } catch (const ModelBundleError& err) {
        throw std::invalid_argument(err.what());
    }
}

ExportSpec specFromExperiment(const Experiment& e, const TensorMap& weights, int batch, int epoch,
                              const std::string& source) {
    if (e.data.value("source", std::string("file")) == "synthetic")
        return specFromExperimentData(e, ExperimentData{}, weights, batch, epoch, source);
    const ExperimentData data = loadExperimentData(e);
    if (!data.ok) throw std::invalid_argument(data.error);
    return specFromExperimentData(e, data, weights, batch, epoch, source);
}

}  // namespace nnwb::onnxexport
