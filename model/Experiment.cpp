#include "model/Experiment.h"

#include <cmath>
#include <filesystem>

#include "model/AtomicFile.h"
#include "model/ConfigKeys.h"
#include "model/Network.h"

namespace nnwb {

namespace {
int intKey(const nlohmann::json& j, const char* key, int def, int lo, int hi) {
    if (!j.contains(key)) return def;
    const auto& v = j[key];
    if (!v.is_number_integer())
        throw std::invalid_argument(std::string("training.") + key + ": must be an integer, got " +
                                    v.dump());
    const long long x = v.get<long long>();
    if (x < lo || x > hi)
        throw std::invalid_argument(std::string("training.") + key + ": " + std::to_string(x) +
                                    " is outside " + std::to_string(lo) + ".." +
                                    std::to_string(hi));
    return static_cast<int>(x);
}
}  // namespace

nlohmann::json TrainingConfig::toJson() const {
    return {{"optimizer", optimizer.toJson()},
            {"loss", lossName(loss)},
            {"batchSize", batchSize},
            {"epochs", epochs},
            {"seed", seed},
            {"device", device},
            {"shuffle", shuffle},
            {"monitor", monitorName(monitor)},
            {"keepBest", keepBest},
            {"earlyStopping", earlyStopping.toJson()},
            {"lrSchedule", lrSchedule.toJson()},
            {"clipNorm", clipNorm},
            {"classWeights", classWeights.toJson()}};
}

TrainingConfig TrainingConfig::version1() {
    TrainingConfig c;
    c.keepBest = false;
    c.earlyStopping.enabled = false;
    return c;
}

TrainingConfig TrainingConfig::fromJson(const nlohmann::json& j, int formatVersion) {
    if (!j.is_object()) throw std::invalid_argument("training: must be an object");
    TrainingConfig c = formatVersion >= 2 ? TrainingConfig() : version1();
    if (j.contains("optimizer")) c.optimizer = OptimizerConfig::fromJson(j["optimizer"]);
    if (j.contains("loss")) {
        if (!j["loss"].is_string())
            throw std::invalid_argument("training.loss: must be \"mse\" or \"cross_entropy\"");
        try {
            c.loss = lossFromName(j["loss"].get<std::string>());
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(std::string("training.loss: ") + e.what());
        }
    }
    c.batchSize = intKey(j, "batchSize", c.batchSize, 1, 65536);
    c.epochs = intKey(j, "epochs", c.epochs, 1, 1000000);
    if (j.contains("seed")) {
        if (!j["seed"].is_number_integer() || j["seed"].get<long long>() < 0)
            throw std::invalid_argument("training.seed: must be a non-negative integer");
        c.seed = j["seed"].get<uint64_t>();
    }
    if (j.contains("device")) {
        if (!j["device"].is_string())
            throw std::invalid_argument("training.device: must be a device id such as \"cpu\"");
        c.device = j["device"].get<std::string>();
    }
    if (j.contains("shuffle")) {
        if (!j["shuffle"].is_boolean())
            throw std::invalid_argument("training.shuffle: must be true or false");
        c.shuffle = j["shuffle"].get<bool>();
    }
    if (formatVersion < 2) return c;  // later keys are not part of a version 1 file
    if (j.contains("monitor")) {
        const std::string m = readStringKey(j, "training", "monitor", "");
        try {
            c.monitor = monitorFromName(m);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(std::string("training.monitor: ") + e.what());
        }
    }
    c.keepBest = readBoolKey(j, "training", "keepBest", c.keepBest);
    if (j.contains("earlyStopping"))
        c.earlyStopping = EarlyStoppingConfig::fromJson(j["earlyStopping"]);
    if (j.contains("lrSchedule")) c.lrSchedule = LrScheduleConfig::fromJson(j["lrSchedule"]);
    c.clipNorm = readNumberKey(j, "training", "clipNorm", c.clipNorm, 0.0, 1e9);
    if (j.contains("classWeights"))
        c.classWeights = ClassWeightsConfig::fromJson(j["classWeights"]);
    return c;
}

nlohmann::json Experiment::dataWithAbsoluteFile() const {
    nlohmann::json d = data;
    if (d.contains("file") && d["file"].is_string() && !d["file"].get<std::string>().empty()) {
        const std::filesystem::path f = d["file"].get<std::string>();
        d["file"] = std::filesystem::absolute(f.is_absolute() ? f : baseDir / f)
                        .lexically_normal()
                        .string();
    }
    return d;
}

nlohmann::json Experiment::toJson() const {
    return {{"formatVersion", kFormatVersion}, {"name", name}, {"data", data}, {"model", model},
            {"training", training.toJson()},   {"view", view}};
}

Experiment Experiment::fromJson(const nlohmann::json& j, const std::string& baseDir) {
    if (!j.is_object()) throw ExperimentError("the experiment must be a JSON object");
    if (!j.contains("formatVersion") || !j["formatVersion"].is_number_integer())
        throw ExperimentError("formatVersion: missing (this file is not an nnwb experiment)");
    const int v = j["formatVersion"].get<int>();
    if (v < 1 || v > kFormatVersion)
        throw ExperimentError("formatVersion: " + std::to_string(v) +
                              " is not supported (this nnwb reads 1.." +
                              std::to_string(kFormatVersion) + ")");
    Experiment e;
    e.baseDir = baseDir;
    try {
        if (j.contains("name")) {
            if (!j["name"].is_string()) throw std::invalid_argument("name: must be a string");
            e.name = j["name"].get<std::string>();
        }
        if (j.contains("data")) {
            if (!j["data"].is_object()) throw std::invalid_argument("data: must be an object");
            e.data = j["data"];
        }
        if (!j.contains("model")) throw std::invalid_argument("model: missing");
        e.model = j["model"];
        Network::layersFromJson(e.model);  // validates every layer's parameters
        e.training = j.contains("training")
                         ? TrainingConfig::fromJson(j["training"], v)
                         : (v >= 2 ? TrainingConfig() : TrainingConfig::version1());
        if (j.contains("view")) e.view = j["view"];
    } catch (const ShapeError& ex) {
        throw ExperimentError(std::string("model.") + ex.what());
    } catch (const std::invalid_argument& ex) {
        throw ExperimentError(ex.what());
    }
    return e;
}

Experiment Experiment::load(const std::string& path) {
    std::string text;
    try {
        text = readFile(path);
    } catch (const std::runtime_error& ex) {
        throw ExperimentError(ex.what());
    }
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& ex) {
        // nlohmann's "[json.exception.parse_error.101] " prefix means nothing to a user.
        std::string what = ex.what();
        const auto bracket = what.find("] ");
        if (what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos)
            what = what.substr(bracket + 2);
        throw ExperimentError(path + ": not valid JSON, so not an experiment file (" + what + ")");
    }
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    try {
        return fromJson(j, dir.empty() ? "/" : dir);
    } catch (const ExperimentError& ex) {
        throw ExperimentError(path + ": " + ex.what());
    }
}

void Experiment::save(const std::string& path) const {
    writeFileAtomic(path, toJson().dump(2) + "\n");
}

}  // namespace nnwb
