#include "app/core/SweepSpecDraft.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "model/DataSettings.h"
#include "model/TrainingSettings.h"

namespace nnwb {

namespace {

using json = nlohmann::json;

// Keys whose change is no search: where the data comes from, names, the device (slots decide).
bool skipped(const std::string& path) {
    for (const char* k : {"data.file", "data.source", "training.device", "data.format"})
        if (path == k) return true;
    return path.find(".name") != std::string::npos;
}

void collect(const json& j, const std::string& path, std::vector<SweepField>& out) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            collect(it.value(), path + "." + it.key(), out);
        return;
    }
    if ((j.is_number() || j.is_string() || j.is_boolean()) && !skipped(path))
        out.push_back({path, j});
}

std::string trim(const std::string& s) {
    const auto a = s.find_first_not_of(" \t");
    if (a == std::string::npos) return {};
    return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// The settings-table entry of a "training." or "data." path; null for others (layer fields).
const SettingSpec* settingOf(const std::string& path) {
    auto find = [&](const std::vector<SettingSpec>& specs, const std::string& prefix) {
        const SettingSpec* hit = nullptr;
        if (path.rfind(prefix, 0) == 0)
            for (const SettingSpec& s : specs)
                if (s.key == path.substr(prefix.size())) hit = &s;
        return hit;
    };
    if (const SettingSpec* s = find(trainingSettingSpecs(), "training.")) return s;
    return find(dataSettings(), "data.");
}

}  // namespace

SweepDraftParam proposedParam(const SweepField& f) {
    SweepDraftParam p;
    p.path = f.path;
    if (!f.value.is_number()) {
        p.range = false;
        p.values = f.value.dump();
        return p;
    }
    p.integer = f.value.is_number_integer();
    const double v = f.value.get<double>();
    if (p.integer) {
        const double n = std::round(v);
        p.min = std::max(1.0, std::floor(n / 2));
        p.max = std::max(2.0, n * 2);
    } else if (v > 0) {
        p.min = v / 10;
        p.max = v * 10;
        p.log = true;
    } else {
        p.min = v - 1;
        p.max = v + 1;
    }
    const SettingSpec* s = settingOf(f.path);
    if (!s || s->min >= s->max) return p;
    // Within the setting's own range (a proposal the loader then refuses is no proposal).
    double lo = std::max(p.min, s->min), hi = std::min(p.max, s->max);
    if (s->minExcluded && lo <= s->min) lo = s->min + (hi - s->min) / 100;
    if (!(lo < hi)) lo = s->minExcluded ? s->min + (s->max - s->min) / 100 : s->min, hi = s->max;
    if (p.integer) lo = std::ceil(lo), hi = std::floor(hi);
    p.min = lo;
    p.max = hi;
    p.log = p.log && lo > 0;
    return p;
}

std::string defaultObjective(const json& experiment) {
    // A walk-forward experiment's own measure is its stitched out-of-sample figure.
    if (experiment.contains("validation") && experiment["validation"].is_object() &&
        experiment["validation"].value("mode", std::string()) == "walkforward")
        return "oos.loss";
    return "validation.loss";
}

std::vector<SweepField> sweepableFields(const json& experiment) {
    std::vector<SweepField> out;
    for (const char* section : {"training", "data"})
        if (experiment.contains(section)) collect(experiment[section], section, out);
    if (experiment.contains("model") && experiment["model"].contains("layers")) {
        const json& layers = experiment["model"]["layers"];
        for (size_t i = 0; i < layers.size(); ++i)
            for (auto it = layers[i].begin(); it != layers[i].end(); ++it)
                if (it.key() != "type")
                    collect(it.value(), "model.layers[" + std::to_string(i) + "]." + it.key(), out);
    }
    return out;
}

nlohmann::ordered_json draftValues(const std::string& text) {
    auto out = nlohmann::ordered_json::array();
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        item = trim(item);
        if (item.empty()) continue;
        try {
            out.push_back(nlohmann::ordered_json::parse(item));
        } catch (const json::parse_error&) {
            out.push_back(item);
        }
    }
    return out;
}

nlohmann::ordered_json specOfDraft(const SweepDraft& d) {
    using ojson = nlohmann::ordered_json;
    ojson j = {{"name", d.name},
               {"experiment", d.experiment},
               {"method", d.method},
               {"seed", static_cast<uint64_t>(std::max(0, d.seed))}};
    if (d.epochs > 0) j["epochs"] = d.epochs;
    j["runCap"] = d.runCap;
    if (d.population > 1) j["population"] = d.population;
    if (d.ensemble > 1) j["ensemble"] = d.ensemble;
    j["objective"] = ojson{{"metric", d.objective}, {"goal", d.goal}};
    if (!d.secondObjective.empty()) j["secondObjective"] = ojson{{"metric", d.secondObjective}};
    if (d.earlyTerminate != "none") j["earlyTerminate"] = ojson{{"type", d.earlyTerminate}};
    ojson params = ojson::array();
    for (const SweepDraftParam& p : d.params) {
        ojson q = {{"path", p.path}};
        if (!p.range) {
            q["values"] = draftValues(p.values);
        } else if (p.integer && !p.log) {
            q["min"] = static_cast<long long>(p.min);
            q["max"] = static_cast<long long>(p.max);
        } else {
            q["min"] = p.min;
            q["max"] = p.max;
            q["type"] = "float";
            if (p.log) q["log"] = true;
        }
        params.push_back(q);
    }
    j["parameters"] = params;
    return j;
}

}  // namespace nnwb
