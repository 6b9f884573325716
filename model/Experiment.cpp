#include "model/Experiment.h"

#include <cmath>
#include <filesystem>

#include "model/AtomicFile.h"
#include "model/JsonRead.h"
#include "model/Network.h"
#include "model/TrainingSettings.h"

namespace nnwb {

nlohmann::json TrainingConfig::toJson() const {
    return writeTrainingSettings(*this);
}

TrainingConfig TrainingConfig::version1() {
    TrainingConfig c;
    c.keepBest = false;
    c.earlyStopping.enabled = false;
    return c;
}

TrainingConfig TrainingConfig::fromJson(const nlohmann::json& j, int formatVersion) {
    TrainingConfig c =
        readTrainingSettings(j, formatVersion, formatVersion >= 2 ? TrainingConfig() : version1());
    if (c.classWeights.mode == "given" && c.classWeights.weights.empty())
        throw std::invalid_argument(
            "training.classWeights.weights: a list of numbers, one per output, is needed with "
            "mode \"given\"");
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
    nlohmann::json j = {{"formatVersion", kFormatVersion},
                        {"name", name},
                        {"data", data},
                        {"model", model},
                        {"training", training.toJson()},
                        {"trading", trading.toJson()},
                        {"view", view}};
    if (!(validation == ValidationConfig())) j["validation"] = validation.toJson();
    return j;
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
            // Read with .value(...) in many places: a wrong type there would escape unnamed.
            if (j["data"].contains("source") && !j["data"]["source"].is_string())
                throw std::invalid_argument("data.source: must be \"file\" or \"synthetic\", not " +
                                            jsonExcerpt(j["data"]["source"]));
            e.data = j["data"];
        }
        if (!j.contains("model")) throw std::invalid_argument("model: missing");
        e.model = j["model"];
        Network::layersFromJson(e.model);  // validates every layer's parameters
        e.training = j.contains("training")
                         ? TrainingConfig::fromJson(j["training"], v)
                         : (v >= 2 ? TrainingConfig() : TrainingConfig::version1());
        if (j.contains("trading")) e.trading = TradingSettings::fromJson(j["trading"]);
        if (j.contains("validation")) e.validation = ValidationConfig::fromJson(j["validation"]);
        if (j.contains("view")) e.view = j["view"];
    } catch (const ShapeError& ex) {
        throw ExperimentError(std::string("model.") + ex.what());
    } catch (const std::invalid_argument& ex) {
        throw ExperimentError(ex.what());
    } catch (const nlohmann::json::exception& ex) {  // a type no check above caught
        throw ExperimentError(jsonErrorText(ex));
    }
    return e;
}

Experiment Experiment::load(const std::string& path) {
    nlohmann::json j;
    try {
        j = loadJsonFile(path, kMaxFileBytes);
    } catch (const JsonReadError& ex) {
        std::string what = ex.what();
        const std::string syntax = ": not valid JSON (";
        const auto at = what.find(syntax);
        if (at != std::string::npos)
            what.replace(at, syntax.size(), ": not valid JSON, so not an experiment file (");
        throw ExperimentError(what);
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
