#include "app/core/SweepSpecDraft.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

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

}  // namespace

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
