#include "model/ensemble/EnsembleBundle.h"

#include <algorithm>
#include <cmath>

namespace nnwb {

namespace {

using nlohmann::json;

const char* const kKey = "ensemble";

[[noreturn]] void bad(const std::string& key, const std::string& problem) {
    throw ModelBundleError("__metadata__.ensemble." + key + ": " + problem);
}

std::string shapeText(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
    return s + "]";
}

json memberJson(const EnsembleMember& m) {
    json j = {{"name", m.name}, {"seed", m.seed}, {"epoch", m.epoch}};
    if (m.hasValidation)
        j["validation"] = {{"loss", m.validationLoss},
                           {"accuracy", m.validationAccuracy},
                           {"missed", m.validationMissed}};
    return j;
}

double finiteNumber(const json& j, const std::string& key) {
    if (!j.is_number() || !std::isfinite(j.get<double>())) bad(key, "must be a finite number");
    return j.get<double>();
}

EnsembleMember memberFromJson(const json& j, size_t m) {
    const std::string at = "memberInfo[" + std::to_string(m) + "]";
    if (!j.is_object()) bad(at, "must be an object");
    EnsembleMember e;
    const json name = j.value("name", json(""));
    if (!name.is_string()) bad(at + ".name", "must be a string");
    e.name = name.get<std::string>();
    const json seed = j.value("seed", json());
    if (!seed.is_number_unsigned()) bad(at + ".seed", "must be an integer >= 0");
    e.seed = seed.get<uint64_t>();
    const json epoch = j.value("epoch", json());
    if (!epoch.is_number_integer() || epoch.get<int64_t>() < 0 || epoch.get<int64_t>() > 100000000)
        bad(at + ".epoch", "must be an integer from 0 to 100000000");
    e.epoch = epoch.get<int>();
    if (j.contains("validation")) {
        const json& v = j["validation"];
        if (!v.is_object()) bad(at + ".validation", "must be an object");
        e.hasValidation = true;
        e.validationLoss = finiteNumber(v.value("loss", json()), at + ".validation.loss");
        e.validationAccuracy =
            finiteNumber(v.value("accuracy", json()), at + ".validation.accuracy");
        e.validationMissed = finiteNumber(v.value("missed", json()), at + ".validation.missed");
    }
    return e;
}

// "members.<m>.<name>": m and name; false when `full` is not of that form.
bool splitName(const std::string& full, size_t& m, std::string& name) {
    const std::string prefix = "members.";
    if (full.compare(0, prefix.size(), prefix) != 0) return false;
    const size_t dot = full.find('.', prefix.size());
    if (dot == std::string::npos || dot == prefix.size() || dot + 1 == full.size()) return false;
    const std::string digits = full.substr(prefix.size(), dot - prefix.size());
    if (digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return false;
    m = std::stoul(digits);
    name = full.substr(dot + 1);
    return true;
}

}  // namespace

bool isEnsembleMetadata(const std::map<std::string, std::string>& metadata) {
    return metadata.count(kKey) > 0;
}

ModelBundle EnsembleBundle::member(size_t m) const {
    ModelBundle b = common;
    b.tensors = weights.at(m);
    b.epoch = members.at(m).epoch;
    return b;
}

void EnsembleBundle::check() const {
    if (weights.size() < 2)
        bad("members", "an ensemble of " + std::to_string(weights.size()) +
                           " member; an ensemble needs at least 2");
    if (members.size() != weights.size())
        bad("memberInfo", "describes " + std::to_string(members.size()) +
                              " members, the file "
                              "holds the weights of " +
                              std::to_string(weights.size()));
    if (combine != "mean") bad("combine", "must be \"mean\", not \"" + combine + "\"");
    const TensorMap& first = weights.front();
    for (size_t m = 1; m < weights.size(); ++m) {
        const std::string who = "member " + std::to_string(m + 1);
        for (const auto& [name, t] : weights[m]) {
            const auto it = first.find(name);
            if (it == first.end())
                throw ModelBundleError("tensor members." + std::to_string(m) + "." + name + ": " +
                                       who +
                                       " has a tensor member 1 has not (the members of an "
                                       "ensemble share one architecture)");
            if (it->second.shape != t.shape)
                throw ModelBundleError("tensor members." + std::to_string(m) + "." + name + ": " +
                                       who + "'s shape " + shapeText(t.shape) +
                                       " is not member "
                                       "1's " +
                                       shapeText(it->second.shape) +
                                       " (the members of "
                                       "an ensemble share one architecture)");
        }
        for (const auto& [name, t] : first)
            if (!weights[m].count(name))
                throw ModelBundleError("tensor members." + std::to_string(m) + "." + name + ": " +
                                       who +
                                       " lacks it (the members of an ensemble share one "
                                       "architecture)");
    }
}

std::map<std::string, std::string> EnsembleBundle::metadata() const {
    std::map<std::string, std::string> m = common.metadata();
    json info = json::array();
    for (const EnsembleMember& e : members) info.push_back(memberJson(e));
    m[kKey] = json{
        {"version", kEnsembleVersion},
        {"members", members.size()},
        {"combine", combine},
        {"memberInfo",
         info}}.dump();
    return m;
}

TensorMap EnsembleBundle::tensors() const {
    TensorMap all;
    for (size_t m = 0; m < weights.size(); ++m)
        for (const auto& [name, t] : weights[m])
            all["members." + std::to_string(m) + "." + name] = t;
    return all;
}

EnsembleBundle EnsembleBundle::fromFile(const TensorMap& tensors,
                                        const std::map<std::string, std::string>& metadata) {
    auto it = metadata.find(kKey);
    if (it == metadata.end())
        throw ModelBundleError(
            "not an ensemble bundle (no "
            "__metadata__.ensemble)");
    const json e = json::parse(it->second, nullptr, false);
    if (e.is_discarded() || !e.is_object()) bad("", "must be a JSON object");
    const json version = e.value("version", json());
    if (!version.is_number_integer() || version.get<int64_t>() < 1)
        bad("version", "must be an integer >= 1");
    if (version.get<int64_t>() > kEnsembleVersion)
        bad("version", std::to_string(version.get<int64_t>()) + " is newer than this nnwb reads (" +
                           std::to_string(kEnsembleVersion) + ")");
    const json count = e.value("members", json());
    if (!count.is_number_unsigned() || count.get<uint64_t>() > 100000)
        bad("members", "must be an integer from 2 to 100000");
    const size_t n = count.get<size_t>();
    if (n < 2)
        bad("members", "an ensemble of " + std::to_string(n) +
                           " member; an ensemble "
                           "needs at least 2");
    EnsembleBundle b;
    b.combine = e.value("combine", json("")).is_string() ? e.value("combine", std::string()) : "";
    if (b.combine != "mean") bad("combine", "must be \"mean\"");
    const json info = e.value("memberInfo", json());
    if (!info.is_array() || info.size() != n)
        bad("memberInfo", "must be an array of " + std::to_string(n) +
                              " members (as "
                              "__metadata__.ensemble.members says)");
    for (size_t m = 0; m < n; ++m) b.members.push_back(memberFromJson(info[m], m));
    b.weights.resize(n);
    size_t highest = 0;
    for (const auto& [full, t] : tensors) {
        size_t m = 0;
        std::string name;
        if (!splitName(full, m, name))
            throw ModelBundleError("tensor " + full +
                                   ": not a member's (an ensemble's tensors "
                                   "are named members.<m>.<name>)");
        highest = std::max(highest, m + 1);
        if (m < n) b.weights[m][name] = t;
    }
    size_t held = 0;
    for (const TensorMap& w : b.weights) held += w.empty() ? 0 : 1;
    if (highest > n || held != n)
        bad("members",
            std::to_string(n) + ", but the file holds the weights of " +
                std::to_string(highest > n ? highest : held) + " members" +
                (highest > n ? " (up to members." + std::to_string(highest - 1) + ")" : ""));
    std::map<std::string, std::string> plain = metadata;
    plain.erase(kKey);
    b.common = ModelBundle::fromMetadata({}, plain);
    b.check();
    return b;
}

void EnsembleBundle::save(const std::string& path) const {
    check();
    saveSafetensors(path, tensors(), metadata());
}

void loadAnyBundle(const std::string& path, ModelBundle& single, EnsembleBundle& ensemble) {
    std::map<std::string, std::string> meta;
    TensorMap t = readBundleFile(path, meta);
    decodeBundleOf(path, [&] {
        if (isEnsembleMetadata(meta)) {
            ensemble = EnsembleBundle::fromFile(t, meta);
            single = ensemble.common;
        } else {
            ensemble = EnsembleBundle();
            single = ModelBundle::fromMetadata(std::move(t), meta);
        }
    });
}

EnsembleBundle EnsembleBundle::load(const std::string& path) {
    std::map<std::string, std::string> meta;
    const TensorMap t = readBundleFile(path, meta);
    return decodeBundleOf(path, [&] { return fromFile(t, meta); });
}

}  // namespace nnwb
