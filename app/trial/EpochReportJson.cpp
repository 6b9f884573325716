#include "app/trial/EpochReportJson.h"

#include <stdexcept>
#include <string>

#include "model/MetricsJson.h"

namespace nnwb {

namespace {

template <typename T>
T get(const nlohmann::json& j, const char* key, const std::string& where) {
    const auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(where + key + ": missing");
    try {
        return it->get<T>();
    } catch (const nlohmann::json::exception&) {
        throw std::invalid_argument(where + key + ": wrong type");
    }
}

}  // namespace

EpochMetrics metricsFromJson(const nlohmann::json& j, const std::string& where) {
    if (!j.is_object()) throw std::invalid_argument(where + ": not an object");
    const std::string in = where + ".";
    EpochMetrics m;
    m.samples = get<size_t>(j, "samples", in);
    m.loss = get<double>(j, "loss", in);
    if (j.contains("accuracy")) {
        m.accuracyPct = get<double>(j, "accuracy", in);
        m.missedPct = get<double>(j, "missed", in);
        m.signalCount = get<size_t>(j, "signals", in);
        m.patterns = get<size_t>(j, "patterns", in);
        m.confusion = get<decltype(m.confusion)>(j, "confusion", in);
    }
    return m;
}

nlohmann::json metricsToJson(const EpochMetrics& m, bool task) {
    nlohmann::json j = nlohmann::json::object();
    putEpochMetrics(j, m, task);
    return j;
}

nlohmann::json epochReportToJson(const EpochReport& r, bool hasValidation) {
    nlohmann::json j{{"epoch", r.epoch},
                     {"seconds", r.seconds},
                     {"samplesPerSecond", r.samplesPerSecond},
                     {"taskMetrics", r.taskMetrics},
                     {"learningRate", r.learningRate},
                     {"bestEpoch", r.bestEpoch},
                     {"best", r.isBest},
                     {"gradNorm", {{"max", r.gradNormMax}, {"mean", r.gradNormMean}}},
                     {"train", metricsToJson(r.train, r.taskMetrics)}};
    if (hasValidation) j["validation"] = metricsToJson(r.validation, r.taskMetrics);
    if (r.stoppedEarly) j["stoppedEarly"] = true;
    return j;
}

EpochReport epochReportFromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("not an object");
    EpochReport r;
    r.epoch = get<int>(j, "epoch", "");
    r.seconds = get<double>(j, "seconds", "");
    r.samplesPerSecond = get<double>(j, "samplesPerSecond", "");
    r.taskMetrics = j.value("taskMetrics", false);
    // Later additions: histories written before them read as unknown (0 / false).
    if (j.contains("learningRate")) r.learningRate = get<double>(j, "learningRate", "");
    if (j.contains("bestEpoch")) r.bestEpoch = get<int>(j, "bestEpoch", "");
    if (j.contains("best")) r.isBest = get<bool>(j, "best", "");
    if (j.contains("stoppedEarly")) r.stoppedEarly = get<bool>(j, "stoppedEarly", "");
    if (j.contains("gradNorm")) {
        const auto g = get<nlohmann::json>(j, "gradNorm", "");
        r.gradNormMax = get<double>(g, "max", "gradNorm.");
        r.gradNormMean = get<double>(g, "mean", "gradNorm.");
    }
    r.train = metricsFromJson(get<nlohmann::json>(j, "train", ""), "train");
    if (j.contains("validation")) r.validation = metricsFromJson(j["validation"], "validation");
    return r;
}

}  // namespace nnwb
