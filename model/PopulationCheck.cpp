#include "model/PopulationCheck.h"

#include <algorithm>

namespace nnwb {

namespace {

// The experiment's JSON without what a population's models may vary.
nlohmann::json sharedPart(const Experiment& e) {
    nlohmann::json j = e.toJson();
    j.erase("name");
    j.erase("view");
    nlohmann::json& t = j["training"];
    for (const std::string& k : populationVaryingKeys()) t.erase(k);
    // The optimizer's values vary per model; its type must not.
    const nlohmann::json type = t["optimizer"].value("type", "adam");
    t["optimizer"] = {{"type", type}};
    return j;
}

// The first key path where a and b differ ("" when equal), with both values.
std::string firstDifference(const nlohmann::json& a, const nlohmann::json& b,
                            const std::string& path, std::string* va, std::string* vb) {
    if (a.is_object() && b.is_object()) {
        std::vector<std::string> keys;
        for (auto it = a.begin(); it != a.end(); ++it) keys.push_back(it.key());
        for (auto it = b.begin(); it != b.end(); ++it)
            if (!a.contains(it.key())) keys.push_back(it.key());
        for (const std::string& k : keys) {
            const nlohmann::json na = a.contains(k) ? a.at(k) : nlohmann::json();
            const nlohmann::json nb = b.contains(k) ? b.at(k) : nlohmann::json();
            const std::string d =
                firstDifference(na, nb, path.empty() ? k : path + "." + k, va, vb);
            if (!d.empty()) return d;
        }
        return "";
    }
    if (a == b) return "";
    *va = a.dump();
    *vb = b.dump();
    return path;
}

}  // namespace

const std::vector<std::string>& populationVaryingKeys() {
    static const std::vector<std::string> keys = {"seed", "lrSchedule", "classWeights",
                                                  "earlyStopping", "keepBest"};
    return keys;
}

std::string populationRefusal(const std::vector<Experiment>& members) {
    if (members.empty()) return "a population needs at least one model";
    const nlohmann::json first = sharedPart(members.front());
    for (size_t m = 1; m < members.size(); ++m) {
        std::string va, vb;
        const std::string d = firstDifference(first, sharedPart(members[m]), "", &va, &vb);
        if (!d.empty())
            return "model " + std::to_string(m + 1) + " differs from model 1 in " + d + " (" + vb +
                   ", not " + va +
                   "): the models of a population may differ only in the seed, the optimizer's "
                   "values, the learning-rate schedule, class weights, early stopping and "
                   "keepBest";
    }
    return "";
}

}  // namespace nnwb
