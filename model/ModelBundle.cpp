#include "model/ModelBundle.h"

#include <cmath>

#include "model/data/DateTime.h"
#include "nnwb/Version.h"

namespace nnwb {

namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& key, const std::string& problem) {
    throw ModelBundleError("__metadata__." + key + ": " + problem);
}

const std::string& need(const std::map<std::string, std::string>& m, const std::string& key) {
    const auto it = m.find(key);
    if (it == m.end()) bad(key, "missing");
    return it->second;
}

json needJson(const std::map<std::string, std::string>& m, const std::string& key) {
    json j = json::parse(need(m, key), nullptr, false);
    if (j.is_discarded()) bad(key, "is not valid JSON");
    return j;
}

long long needInt(const std::map<std::string, std::string>& m, const std::string& key, long long lo,
                  long long hi) {
    const std::string& s = need(m, key);
    size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(s, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != s.size() || v < lo || v > hi)
        bad(key, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                     ", not '" + s + "'");
    return v;
}

std::string timeText(int64_t t) {
    return t ? formatBarTime(t) : std::string();
}

int64_t parseTime(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) bad(std::string("training.") + key, "missing");
    const std::string s = it->get<std::string>();
    if (s.empty()) return 0;
    int64_t t = 0;
    if (!parseDateTime(s, t)) bad(std::string("training.") + key, "not a date: '" + s + "'");
    return t;
}

// `count` finite numbers; `nonNegative`: none below 0 (a standard deviation).
std::vector<double> numbers(const json& j, const std::string& key, size_t count,
                            bool nonNegative = false) {
    if (!j.is_array() || j.size() != count)
        bad(key, "must be an array of " + std::to_string(count) + " numbers");
    std::vector<double> v;
    for (const json& x : j) {
        if (!x.is_number()) bad(key, "must be an array of numbers");
        const double d = x.get<double>();
        if (!std::isfinite(d) || (nonNegative && d < 0))
            bad(key + "[" + std::to_string(v.size()) + "]",
                std::string(nonNegative ? "must be a finite number >= 0" : "must be finite") +
                    ", not " + x.dump());
        v.push_back(d);
    }
    return v;
}

}  // namespace

const char* appVersion() {
    return NNWB_VERSION;
}

bool ModelBundle::usesVolume() const {
    return data.features.isEnabled(Feature::TickVolume);
}

std::map<std::string, std::string> ModelBundle::metadata() const {
    json norm = {{"method", data.normalization}};
    if (data.normalization == "zscore") {
        norm["mean"] = stats.mean;
        norm["stddev"] = stats.stddev;
    }
    const json training = {{"file", trainedOn},
                           {"experiment", experiment},
                           {"bars", bars},
                           {"trainSamples", trainSamples},
                           {"validationSamples", validationSamples},
                           {"trainFirst", timeText(trainFirst)},
                           {"trainLast", timeText(trainLast)},
                           {"validationFirst", timeText(validationFirst)},
                           {"validationLast", timeText(validationLast)}};
    return {{"format", "nnwb"},
            {"bundleVersion", std::to_string(kBundleVersion)},
            {"model", model.dump()},
            {"data", data.toJson().dump()},
            {"features", json(features).dump()},
            {"normalization", norm.dump()},
            {"outputs", json(outputs).dump()},
            {"loss", loss},
            {"batchSize", std::to_string(batchSize)},
            {"epoch", std::to_string(epoch)},
            {"timeframe", std::to_string(timeframe)},
            {"appVersion", appVersion},
            {"training", training.dump()}};
}

ModelBundle ModelBundle::fromMetadata(TensorMap tensors,
                                      const std::map<std::string, std::string>& m) {
    if (m.find("data") == m.end() || m.find("bundleVersion") == m.end())
        throw ModelBundleError(
            "not a model bundle: the file has weights but no data settings in its "
            "__metadata__ (a plain weights file); save a model bundle with `nnwb-cli train "
            "--save-model` or the window's File > Export Model");
    if (m.count("ensemble"))
        throw ModelBundleError(
            "an ensemble bundle (__metadata__.ensemble): its members' weights are read by "
            "EnsembleBundle (docs/ensembles.md), not as one network's");
    ModelBundle b;
    b.tensors = std::move(tensors);
    if (need(m, "format") != "nnwb") bad("format", "must be \"nnwb\"");
    const long long version = needInt(m, "bundleVersion", 1, 1000000);
    if (version > kBundleVersion)
        bad("bundleVersion", std::to_string(version) + " is newer than this nnwb reads (" +
                                 std::to_string(kBundleVersion) + ")");
    b.model = needJson(m, "model");
    if (!b.model.is_object() || !b.model.contains("layers")) bad("model", "has no layers");
    try {
        b.data = DataConfig::fromJson(needJson(m, "data"));
    } catch (const std::invalid_argument& e) {
        bad("data", e.what());
    }
    const size_t nf = static_cast<size_t>(b.data.featureCount());
    const json feats = needJson(m, "features");
    if (!feats.is_array() || feats.size() != nf)
        bad("features", "must list the " + std::to_string(nf) + " enabled features");
    for (const json& f : feats) {
        if (!f.is_string()) bad("features", "must be an array of names");
        b.features.push_back(f.get<std::string>());
    }
    const json norm = needJson(m, "normalization");
    if (!norm.is_object() || norm.value("method", std::string()) != b.data.normalization)
        bad("normalization", "method must be \"" + b.data.normalization + "\" as in data");
    if (b.data.normalization == "zscore") {
        b.stats.mean = numbers(norm.value("mean", json()), "normalization.mean", nf);
        b.stats.stddev = numbers(norm.value("stddev", json()), "normalization.stddev", nf, true);
    }
    const json outs = needJson(m, "outputs");
    if (outs != json({"none", "buy", "sell"}))
        bad("outputs", "must be [\"none\",\"buy\",\"sell\"]");
    b.loss = need(m, "loss");
    try {
        lossFromName(b.loss);
    } catch (const std::invalid_argument&) {
        bad("loss", "must be \"mse\" or \"cross_entropy\"");
    }
    b.batchSize = static_cast<int>(needInt(m, "batchSize", 1, 65536));
    b.epoch = static_cast<int>(needInt(m, "epoch", 0, 100000000));
    b.timeframe = needInt(m, "timeframe", 1, 100000000000LL);  // seconds between bars
    b.appVersion = need(m, "appVersion");
    const json t = needJson(m, "training");
    if (!t.is_object()) bad("training", "must be an object");
    b.trainedOn = t.value("file", std::string());
    b.experiment = t.value("experiment", std::string());
    b.bars = t.value("bars", size_t(0));
    b.trainSamples = t.value("trainSamples", size_t(0));
    b.validationSamples = t.value("validationSamples", size_t(0));
    b.trainFirst = parseTime(t, "trainFirst");
    b.trainLast = parseTime(t, "trainLast");
    b.validationFirst = parseTime(t, "validationFirst");
    b.validationLast = parseTime(t, "validationLast");
    return b;
}

void ModelBundle::save(const std::string& path) const {
    saveSafetensors(path, tensors, metadata());
}

TensorMap readBundleFile(const std::string& path, std::map<std::string, std::string>& meta) {
    try {
        return loadSafetensors(path, &meta);
    } catch (const std::exception& e) {
        throw ModelBundleError(e.what());
    }
}

ModelBundle ModelBundle::load(const std::string& path) {
    std::map<std::string, std::string> meta;
    TensorMap t = readBundleFile(path, meta);
    return decodeBundleOf(path, [&] { return fromMetadata(std::move(t), meta); });
}

ModelBundle makeModelBundle(const Experiment& experiment, const ExperimentData& data,
                            const TensorMap& tensors, const nlohmann::json& model, int epoch) {
    if (!data.priceData || !data.bars)
        throw ModelBundleError(
            "a model bundle needs a model trained on a price file; this run's data is synthetic");
    ModelBundle b;
    b.tensors = tensors;
    b.model = model;
    b.data = data.dataConfig;
    const auto slash = b.data.file.find_last_of("/\\");
    b.trainedOn = slash == std::string::npos ? b.data.file : b.data.file.substr(slash + 1);
    b.data.file = b.trainedOn;
    b.stats = data.stats;
    b.features = data.featureNames;
    b.loss = lossName(experiment.training.loss);
    b.batchSize = experiment.training.batchSize;
    b.epoch = epoch;
    b.appVersion = appVersion();
    b.timeframe = data.bars->timeframe;
    b.experiment = experiment.name;
    b.bars = data.bars->size();
    b.trainSamples = data.split.train.size();
    b.validationSamples = data.split.validation.size();
    const auto& time = data.bars->time;
    if (data.trainFirstBar <= data.trainLastBar && data.trainLastBar < time.size()) {
        b.trainFirst = time[data.trainFirstBar];
        b.trainLast = time[data.trainLastBar];
    }
    if (data.validationFirstBar <= data.validationLastBar && data.validationLastBar < time.size()) {
        b.validationFirst = time[data.validationFirstBar];
        b.validationLast = time[data.validationLastBar];
    }
    return b;
}

}  // namespace nnwb
