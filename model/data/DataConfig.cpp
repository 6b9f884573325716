#include "model/data/DataConfig.h"
#include "nnwb/SourcePaths.h"

#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace nnwb {

namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& key, const std::string& problem) {
    throw std::invalid_argument(key + ": " + problem);
}

void readBool(const json& j, const char* key, const std::string& path, bool& out) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    if (!it->is_boolean()) bad(path, "must be true or false");
    out = it->get<bool>();
}

void readInt(const json& j, const char* key, const std::string& path, int minimum,
             const std::string& problem, int& out) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    bool ok = it->is_number_integer();
    long long v = 0;
    if (ok)
        v = it->get<long long>();
    else if (it->is_number_float()) {
        const double d = it->get<double>();
        ok = std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e9;
        if (ok) v = static_cast<long long>(d);  // only a value that fits is converted
    }
    if (!ok || v < minimum || v > 1000000) bad(path, problem);
    out = static_cast<int>(v);
}

void readString(const json& j, const char* key, const std::string& path,
                std::initializer_list<const char*> allowed, const std::string& problem,
                std::string& out) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    if (!it->is_string()) bad(path, problem);
    const std::string v = it->get<std::string>();
    if (allowed.size()) {
        bool found = false;
        for (const char* a : allowed) found = found || v == a;
        if (!found) bad(path, problem);
    }
    out = v;
}

struct PeriodKey {
    const char* key;
    int FeatureSpec::*member;
};
const PeriodKey kPeriods[] = {
    {"rsiPeriod", &FeatureSpec::rsiPeriod}, {"cciPeriod", &FeatureSpec::cciPeriod},
    {"atrPeriod", &FeatureSpec::atrPeriod}, {"macdFast", &FeatureSpec::macdFast},
    {"macdSlow", &FeatureSpec::macdSlow},   {"macdSignalPeriod", &FeatureSpec::macdSignal}};

const char* const kKnownKeys[] = {"source",
                                  "file",
                                  "window",
                                  "validationShare",
                                  "features",
                                  "normalization",
                                  "positionalEncoding",
                                  "fractal",
                                  "indicators"};

}  // namespace

std::string defaultDataFile() {
#ifdef NNWB_RESOURCE_DIR
    return std::string(NNWB_RESOURCE_DIR) + "/data/EURUSD_H1_2017-2018.csv";
#else
    return "resources/data/EURUSD_H1_2017-2018.csv";
#endif
}

FractalRule DataConfig::fractalRule() const {
    FractalRule r = FractalRule::ThreeBar;
    parseFractalRule(fractal, r);
    return r;
}

std::string DataConfig::resolvedFile(const std::string& baseDir) const {
    const std::filesystem::path p(file);
    if (file.empty() || p.is_absolute() || baseDir.empty()) return file;
    return (std::filesystem::path(baseDir) / p).lexically_normal().string();
}

std::string DataConfig::validate() const {
    if (source != "file" && source != "synthetic")
        return "data.source: must be \"file\" or \"synthetic\"";
    if (window < 2) return "data.window: must be an integer >= 2";
    if (!(validationShare >= 0.0 && validationShare <= 0.9))
        return "data.validationShare: must be a number from 0 to 0.9";
    for (const PeriodKey& p : kPeriods)
        if (features.*p.member < 1)
            return std::string("data.features.") + p.key + ": must be an integer >= 1";
    if (features.macdFast >= features.macdSlow)
        return "data.features.macdFast: must be smaller than macdSlow";
    if (features.count() == 0) return "data.features: at least one feature must be enabled";
    if (normalization != "zscore" && normalization != "none")
        return "data.normalization: must be \"zscore\" or \"none\"";
    FractalRule r;
    if (!parseFractalRule(fractal, r)) return "data.fractal: must be \"3bar\" or \"5bar\"";
    return "";
}

nlohmann::json DataConfig::toJson() const {
    json f = json::object();
    for (int i = 0; i < kFeatureKinds; ++i)
        f[featureKey(static_cast<Feature>(i))] = features.enabled[static_cast<size_t>(i)];
    for (const PeriodKey& p : kPeriods) f[p.key] = features.*p.member;
    json j = extra.is_object() ? extra : json::object();
    j["source"] = source;
    j["file"] = file;
    j["window"] = window;
    j["validationShare"] = validationShare;
    j["features"] = f;
    j["normalization"] = normalization;
    j["positionalEncoding"] = positionalEncoding;
    j["fractal"] = fractal;
    j["indicators"] = indicatorDefinitionsName(features.definitions);
    return j;
}

DataConfig DataConfig::fromJson(const nlohmann::json& j) {
    DataConfig c;
    if (!j.is_object()) bad("data", "must be an object");
    // Files written before the key existed keep the definitions they were trained with.
    c.features.definitions = IndicatorDefinitions::Textbook;
    if (const auto it = j.find("indicators"); it != j.end()) {
        if (!it->is_string() ||
            !parseIndicatorDefinitions(it->get<std::string>(), c.features.definitions))
            bad("data.indicators", "must be \"mt5\" or \"textbook\"");
    }
    readString(j, "source", "data.source", {"file", "synthetic"},
               "must be \"file\" or \"synthetic\"", c.source);
    readString(j, "file", "data.file", {}, "must be a string (a path)", c.file);
    readInt(j, "window", "data.window", 2, "must be an integer >= 2", c.window);
    if (const auto it = j.find("validationShare"); it != j.end()) {
        if (!it->is_number() || !(it->get<double>() >= 0.0 && it->get<double>() <= 0.9))
            bad("data.validationShare", "must be a number from 0 to 0.9");
        c.validationShare = it->get<double>();
    }
    if (const auto it = j.find("features"); it != j.end()) {
        if (!it->is_object()) bad("data.features", "must be an object");
        for (int i = 0; i < kFeatureKinds; ++i) {
            const char* key = featureKey(static_cast<Feature>(i));
            bool on = c.features.enabled[static_cast<size_t>(i)];
            readBool(*it, key, std::string("data.features.") + key, on);
            c.features.enabled[static_cast<size_t>(i)] = on;
        }
        for (const PeriodKey& p : kPeriods)
            readInt(*it, p.key, std::string("data.features.") + p.key, 1, "must be an integer >= 1",
                    c.features.*p.member);
    }
    readString(j, "normalization", "data.normalization", {"zscore", "none"},
               "must be \"zscore\" or \"none\"", c.normalization);
    readBool(j, "positionalEncoding", "data.positionalEncoding", c.positionalEncoding);
    readString(j, "fractal", "data.fractal", {"3bar", "5bar"}, "must be \"3bar\" or \"5bar\"",
               c.fractal);
    for (auto it = j.begin(); it != j.end(); ++it) {
        bool known = false;
        for (const char* k : kKnownKeys) known = known || it.key() == k;
        if (!known) c.extra[it.key()] = it.value();
    }
    const std::string problem = c.validate();
    if (!problem.empty()) throw std::invalid_argument(problem);
    return c;
}

}  // namespace nnwb
