#include "model/PopulationSpec.h"

#include <algorithm>
#include <sstream>

#include "model/PopulationCheck.h"
#include "model/TrainingSettings.h"

namespace nnwb {

namespace {

bool mayVary(const std::string& key) {
    const auto& keys = populationVaryingKeys();
    const std::string top = key.substr(0, key.find('.'));
    if (top == "optimizer") return key != "optimizer.type" && key != "optimizer";
    return std::find(keys.begin(), keys.end(), top) != keys.end();
}

// One value as JSON: a number or literal when it parses as one, else a string.
nlohmann::json valueOf(const std::string& text) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
        return text;
    }
}

std::vector<nlohmann::json> valuesOf(const std::string& item, const std::string& text, int models) {
    std::vector<nlohmann::json> out;
    const size_t dots = text.find("..");
    if (dots != std::string::npos) {
        long long a = 0, b = 0;
        size_t ea = 0, eb = 0;
        try {
            a = std::stoll(text.substr(0, dots), &ea);
            b = std::stoll(text.substr(dots + 2), &eb);
        } catch (const std::exception&) {
            ea = eb = 0;
        }
        if (ea != dots || eb != text.size() - dots - 2 || b < a)
            throw PopulationSpecError("--vary " + item + ": '" + text +
                                      "' is not an integer range A..B with A <= B");
        if (b - a + 1 != models)
            throw PopulationSpecError("--vary " + item + ": " + text + " gives " +
                                      std::to_string(b - a + 1) + " values for " +
                                      std::to_string(models) + " models");
        for (long long v = a; v <= b; ++v) out.emplace_back(v);
        return out;
    }
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, ',')) out.push_back(valueOf(part));
    if (out.size() == 1) out.assign(static_cast<size_t>(models), out.front());
    if (static_cast<int>(out.size()) != models)
        throw PopulationSpecError("--vary " + item + ": " + std::to_string(out.size()) +
                                  " values for " + std::to_string(models) + " models");
    return out;
}

void putPath(nlohmann::json& j, const std::string& path, const nlohmann::json& v) {
    nlohmann::json* at = &j;
    size_t from = 0;
    for (size_t dot; (dot = path.find('.', from)) != std::string::npos; from = dot + 1)
        at = &(*at)[path.substr(from, dot - from)];
    (*at)[path.substr(from)] = v;
}

}  // namespace

std::vector<Experiment> populationMembers(const Experiment& base, int models,
                                          const std::vector<std::string>& vary) {
    if (models < 1 || models > 4096)
        throw PopulationSpecError("--population: " + std::to_string(models) +
                                  " is outside 1..4096");
    std::vector<std::pair<std::string, std::vector<nlohmann::json>>> items;
    bool seedVaried = false;
    for (const std::string& item : vary) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw PopulationSpecError("--vary " + item + ": expected KEY=VALUES");
        const std::string key = item.substr(0, eq);
        if (!mayVary(key))
            throw PopulationSpecError(
                "--vary " + item +
                ": the models of a population may differ only in seed, "
                "optimizer.* (not its type), lrSchedule.*, classWeights, earlyStopping.* and "
                "keepBest");
        seedVaried = seedVaried || key == "seed";
        items.emplace_back(key, valuesOf(item, item.substr(eq + 1), models));
    }
    if (!seedVaried) {
        std::vector<nlohmann::json> seeds;
        for (int m = 0; m < models; ++m) seeds.emplace_back(base.training.seed + uint64_t(m));
        items.emplace_back("seed", std::move(seeds));
    }
    std::vector<Experiment> out;
    const nlohmann::json training = writeTrainingSettings(base.training);
    for (int m = 0; m < models; ++m) {
        nlohmann::json t = training;
        std::string name = base.name;
        for (const auto& [key, values] : items) {
            const nlohmann::json& v = values[static_cast<size_t>(m)];
            putPath(t, key, v);
            name += " " + key + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
        }
        Experiment e = base;
        try {
            e.training = TrainingConfig::fromJson(t);
        } catch (const std::invalid_argument& err) {
            throw PopulationSpecError("--vary, model " + std::to_string(m + 1) + ": " + err.what());
        }
        e.name = name;
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace nnwb
