#include "model/sweep/SweepSpec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unordered_set>

#include "model/AtomicFile.h"
#include "model/ExperimentData.h"
#include "model/JsonRead.h"
#include "model/Network.h"
#include "model/ResourceDirs.h"
#include "model/Rng.h"
#include "model/data/DataConfig.h"
#include "model/sweep/SobolSequence.h"
#include "model/trading/TradingReportText.h"

namespace nnwb::sweep {

namespace {

using nlohmann::json;

// One step of a path: a key or an index ("model.layers[1].heads" -> model, layers, 1, heads).
struct Step {
    std::string key;
    int index = -1;
};

std::vector<Step> parsePath(const std::string& path) {
    std::vector<Step> steps;
    size_t i = 0;
    auto bad = [&] { throw std::invalid_argument("'" + path + "' is not a path like a.b[1].c"); };
    while (i < path.size()) {
        if (path[i] == '[') {
            const size_t close = path.find(']', i);
            if (close == std::string::npos || close == i + 1) bad();
            const std::string digits = path.substr(i + 1, close - i - 1);
            if (digits.find_first_not_of("0123456789") != std::string::npos) bad();
            steps.push_back({"", std::stoi(digits)});
            i = close + 1;
            if (i < path.size() && path[i] == '.') ++i;
            continue;
        }
        const size_t end = path.find_first_of(".[", i);
        const std::string key = path.substr(i, end == std::string::npos ? end : end - i);
        if (key.empty()) bad();
        steps.push_back({key, -1});
        if (end == std::string::npos) break;
        i = path[end] == '.' ? end + 1 : end;
        if (path[end] == '.' && i == path.size()) bad();
    }
    if (steps.empty()) bad();
    return steps;
}

// Sets `path` in `j`. Every step must exist, but the last key of an object inside
// model.layers (a layer's field its type accepts, which the network build checks) or `data`
// may be new. Throws std::invalid_argument("no field PATH in the experiment").
void setPath(json& j, const std::string& path, const json& value) {
    const std::vector<Step> steps = parsePath(path);
    json* at = &j;
    for (size_t s = 0; s < steps.size(); ++s) {
        const Step& st = steps[s];
        const bool last = s + 1 == steps.size();
        if (st.index >= 0) {
            if (!at->is_array() || st.index >= int(at->size()))
                throw std::invalid_argument("no field " + path + " in the experiment");
            at = &(*at)[size_t(st.index)];
        } else {
            if (!at->is_object())
                throw std::invalid_argument("no field " + path + " in the experiment");
            if (!at->contains(st.key)) {
                const bool layerField = steps.size() == 4 && steps[0].key == "model" &&
                                        steps[1].key == "layers" && steps[2].index >= 0;
                if (!last || !layerField)
                    throw std::invalid_argument("no field " + path + " in the experiment");
            }
            at = &(*at)[st.key];
        }
    }
    *at = value;
}

// A key of `obj` read as `what` or a SpecError naming it.
struct Reader {
    std::string file;
    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw SpecError((file.empty() ? "" : file + ": ") + where + ": " + what);
    }
    // Refuses a key of object `j` (at `where`, "" at the top) that is not in `known`.
    void onlyKeys(const json& j, const std::string& where,
                  const std::vector<std::string>& known) const {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        for (auto it = j.begin(); it != j.end(); ++it)
            if (std::find(known.begin(), known.end(), it.key()) == known.end())
                fail((where.empty() ? "" : where + ".") + it.key(),
                     "unknown key (known: " + list + "; see docs/sweeps.md)");
    }
    // Key `key` of `j` as a string (`def` when absent); anything else fails naming it.
    std::string text(const json& j, const std::string& key, const std::string& where,
                     const std::string& def) const {
        if (!j.contains(key)) return def;
        if (!j[key].is_string()) fail(where + key, "must be a string, not " + jsonExcerpt(j[key]));
        return j[key].get<std::string>();
    }
    bool flag(const json& j, const std::string& key, const std::string& where, bool def) const {
        if (!j.contains(key)) return def;
        if (!j[key].is_boolean())
            fail(where + key, "must be true or false, not " + jsonExcerpt(j[key]));
        return j[key].get<bool>();
    }
};

// A hash agreeing with json's ==, which compares numbers by value (1 == 1.0).
struct ValueHash {
    size_t operator()(const json& v) const {
        if (v.is_number()) return std::hash<double>()(v.get<double>());
        size_t h = std::hash<int>()(int(v.type()));
        auto mix = [&h](size_t x) { h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
        if (v.is_array())
            for (const json& e : v) mix((*this)(e));
        else if (v.is_object())
            for (auto it = v.begin(); it != v.end(); ++it) {
                mix(std::hash<std::string>()(it.key()));
                mix((*this)(it.value()));
            }
        else
            mix(std::hash<json>()(v));
        return h;
    }
};

std::string resolvePreset(const std::string& ref, const std::string& dir) {
    std::vector<std::string> tried;
    if (!ref.empty() && ref[0] == '/')
        tried.push_back(ref);
    else
        tried.push_back(dir + "/" + ref);
    for (const std::string& d : resourceSearchDirs())
        tried.push_back(d + "/presets/" + ref + ".json");
    std::error_code ec;
    for (const std::string& p : tried)
        if (std::filesystem::exists(p, ec)) return p;  // read (or refused) by the loader
    std::string where;
    for (const std::string& p : tried) where += (where.empty() ? "" : ", ") + p;
    throw std::invalid_argument("no experiment file or preset '" + ref + "' (looked for " + where +
                                ")");
}

// The base experiment's JSON with every data key spelt out (so data paths can be checked).
json fullExperimentJson(const Experiment& e) {
    json j = e.toJson();
    if (e.data.value("source", "") == "synthetic") return j;
    try {
        json data = DataConfig::fromJson(e.data).toJson();
        data.merge_patch(e.data);
        j["data"] = data;
    } catch (const std::exception&) {  // synthetic data: as written
    }
    return j;
}

Objective readObjective(const Reader& r, const json& j, const std::string& where) {
    if (!j.is_object())
        r.fail(where, "must be an object {\"metric\": ..., \"goal\": \"min\"|\"max\"}");
    r.onlyKeys(j, where, {"metric", "goal", "paths"});
    Objective o;
    static const std::vector<std::string> metrics = {"validation.loss",
                                                     "validation.accuracy",
                                                     "validation.missed",
                                                     "train.loss",
                                                     "train.accuracy",
                                                     "train.missed",
                                                     "parameters",
                                                     "samplesPerSecond",
                                                     "trading.net",
                                                     "trading.netPct",
                                                     "trading.sharpe",
                                                     "trading.sharpeAnnual",
                                                     "trading.profitFactor",
                                                     "trading.maxDrawdown",
                                                     "trading.winRate",
                                                     "trading.trades",
                                                     "oos.loss",
                                                     "oos.accuracy",
                                                     "oos.missed"};
    if (!j.contains("metric")) r.fail(where + ".metric", "missing");
    if (!j["metric"].is_string()) r.fail(where + ".metric", "must be a string");
    o.metric = j["metric"].get<std::string>();
    if (std::find(metrics.begin(), metrics.end(), o.metric) == metrics.end()) {
        std::string all;
        for (const auto& m : metrics) all += (all.empty() ? "" : ", ") + m;
        r.fail(where + ".metric", "'" + o.metric + "' is not one of " + all);
    }
    // Default goals: the larger the better for accuracies, speed and trading figures but the
    // drawdown and the trade count.
    const bool larger = o.metric.find("accuracy") != std::string::npos ||
                        o.metric == "samplesPerSecond" ||
                        (o.metric.rfind("trading.", 0) == 0 && o.metric != "trading.maxDrawdown" &&
                         o.metric != "trading.trades");
    const std::string goal = r.text(j, "goal", where + ".", larger ? "max" : "min");
    if (goal != "min" && goal != "max") r.fail(where + ".goal", "must be \"min\" or \"max\"");
    o.minimize = goal == "min";
    o.paths = r.text(j, "paths", where + ".", "");
    if (!o.paths.empty() && o.paths != "mean" && o.paths != "median" && o.paths != "q10" &&
        o.paths != "min" && o.paths != "max")
        r.fail(where + ".paths", "'" + o.paths + "' is not mean, median, q10, min or max");
    return o;
}

int readInt(const Reader& r, const json& j, const std::string& key, const std::string& where,
            int def, int lo, int hi) {
    if (!j.contains(key)) return def;
    const json& v = j[key];
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
        r.fail(where + key,
               "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    return v.get<int>();
}

// A categorical parameter's "values": distinct, preset names or files for "preset".
void readParamValues(const Reader& r, const json& p, const std::string& where,
                     const std::string& type, bool log, SpecParam& sp) {
    ParamDef& d = sp.def;
    if (!p["values"].is_array() || p["values"].empty())
        r.fail(where + ".values", "must be a non-empty array");
    if (!type.empty() && type != "categorical")
        r.fail(where + ".type", "values make a categorical parameter");
    d.kind = ParamKind::Categorical;
    if (p["values"].size() > SweepSpec::kMaxCategoricalValues)
        r.fail(where + ".values", std::to_string(p["values"].size()) + " values, more than " +
                                      std::to_string(SweepSpec::kMaxCategoricalValues));
    if (log) r.fail(where + ".log", "log ranges are for floats");
    for (const json& v : p["values"]) d.choices.push_back(v);
    std::unordered_set<json, ValueHash> seen;
    for (size_t b = 0; b < d.choices.size(); ++b)
        if (!seen.insert(d.choices[b]).second)
            r.fail(where + ".values[" + std::to_string(b) + "]",
                   "repeats " + jsonExcerpt(d.choices[b]));
    if (sp.preset)
        for (size_t a = 0; a < d.choices.size(); ++a)
            if (!d.choices[a].is_string())
                r.fail(where + ".values[" + std::to_string(a) + "]", "a preset name or file");
}

// An int or float parameter's min, max, step and gridPoints.
void readParamRange(const Reader& r, const json& p, const std::string& where, std::string type,
                    bool log, SpecParam& sp) {
    ParamDef& d = sp.def;
    if (sp.preset) r.fail(where, "preset takes values (preset names or files)");
    for (const char* k : {"min", "max"})
        if (!p.contains(k) || !p[k].is_number()) r.fail(where + "." + k, "missing or not a number");
    d.low = p["min"].get<double>();
    d.high = p["max"].get<double>();
    const bool integral = p["min"].is_number_integer() && p["max"].is_number_integer();
    if (type.empty()) type = integral && !log ? "int" : "float";
    if (type == "int") {
        if (!integral) r.fail(where, "an int parameter needs integer min and max");
        if (log) r.fail(where + ".log", "log ranges are for floats");
        d.kind = ParamKind::Int;
        d.step = readInt(r, p, "step", where + ".", 1, 1, 1 << 30);
    } else if (type == "float") {
        d.kind = log ? ParamKind::LogFloat : ParamKind::Float;
        if (p.contains("step")) r.fail(where + ".step", "only int parameters have a step");
    } else {
        r.fail(where + ".type", "'" + type + "' is not int, float or categorical");
    }
    d.gridPoints = readInt(r, p, "gridPoints", where + ".", 5, 1, 1000);
}

SpecParam readParam(const Reader& r, const json& p, size_t i, const SearchSpace& space) {
    const std::string where = "parameters[" + std::to_string(i) + "]";
    if (!p.is_object()) r.fail(where, "must be an object");
    static const std::vector<std::string> keys = {"path", "type",   "min",        "max", "log",
                                                  "step", "values", "gridPoints", "when"};
    for (auto it = p.begin(); it != p.end(); ++it)
        if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
            r.fail(where + "." + it.key(),
                   "unknown key (known: path, type, min, max, log, step, "
                   "values, gridPoints, when)");
    SpecParam sp;
    sp.specPath = where;
    if (!p.contains("path") || !p["path"].is_string() || p["path"].get<std::string>().empty())
        r.fail(where + ".path", "missing (a path into the experiment, e.g. model.layers[1].heads)");
    ParamDef& d = sp.def;
    d.name = p["path"].get<std::string>();
    if (d.name == "training.epochs")
        r.fail(where + ".path",
               "training.epochs is set for every trial by the spec's \"epochs\" key (and "
               "earlyTerminate); it cannot be a parameter");
    sp.preset = d.name == "preset";
    const bool hasValues = p.contains("values");
    const bool hasRange = p.contains("min") || p.contains("max");
    if (hasValues == hasRange) r.fail(where, "give either values or min and max");
    std::string type = r.text(p, "type", where + ".", "");
    const bool log = r.flag(p, "log", where + ".", false);
    if (hasValues)
        readParamValues(r, p, where, type, log, sp);
    else
        readParamRange(r, p, where, type, log, sp);
    if (p.contains("when")) {
        const json& w = p["when"];
        if (!w.is_object() || !w.contains("path") || !w["path"].is_string() || !w.contains("in") ||
            !w["in"].is_array())
            r.fail(where + ".when", "must be {\"path\": PARAMETER, \"in\": [VALUES]}");
        r.onlyKeys(w, where + ".when", {"path", "in"});
        d.conditional = true;
        d.condition.parent = w["path"].get<std::string>();
        for (const json& v : w["in"]) d.condition.values.push_back(v);
    }
    try {
        SearchSpace probe = space;
        probe.add(d);
    } catch (const std::invalid_argument& e) {
        r.fail(where, e.what());
    }
    return sp;
}

// The key in a result's trading figures of a trading.* objective ("trading.net": "netPoints");
// empty for another metric.
std::string tradingFigureKey(const std::string& metric) {
    static const std::map<std::string, std::string> keys = {
        {"trading.net", "netPoints"},
        {"trading.netPct", "netPct"},
        {"trading.sharpe", "sharpe"},
        {"trading.sharpeAnnual", "sharpeAnnual"},
        {"trading.profitFactor", "profitFactor"},
        {"trading.maxDrawdown", "maxDrawdownPoints"},
        {"trading.winRate", "winRate"},
        {"trading.trades", "trades"}};
    const auto k = keys.find(metric);
    return k == keys.end() ? std::string() : k->second;
}

}  // namespace

std::optional<double> Objective::value(const EpochReport& r, bool hasValidation,
                                       int64_t parameters) const {
    if (metric == "parameters") return double(parameters);
    if (metric == "samplesPerSecond") return r.samplesPerSecond;
    if (atEnd()) return std::nullopt;
    const bool val = metric.rfind("validation.", 0) == 0;
    if (val && !hasValidation) return std::nullopt;
    const EpochMetrics& m = val ? r.validation : r.train;
    const std::string what = metric.substr(metric.find('.') + 1);
    if (what == "loss") return m.loss;
    if (!r.taskMetrics) return std::nullopt;
    return what == "accuracy" ? m.accuracyPct : m.missedPct;
}

bool Objective::isEndMetric(const std::string& m) {
    return m.rfind("trading.", 0) == 0 || m.rfind("oos.", 0) == 0;
}

std::optional<double> Objective::resultValue(const json& result) const {
    if (!result.is_object()) return std::nullopt;
    const auto cpcv = result.find("trading");
    if (cpcv != result.end() && cpcv->is_object() && cpcv->contains("pathStatistics"))
        return pathsValue((*cpcv)["pathStatistics"]);
    if (metric.rfind("oos.", 0) == 0) {
        const auto o = result.find("outOfSample");
        if (o == result.end() || !o->is_object()) return std::nullopt;
        const std::string key = metric.substr(4);  // loss, accuracy, missed (one key each)
        const auto v = o->find(key);
        if (v == o->end() || !v->is_number()) return std::nullopt;
        return v->get<double>();
    }
    if (metric.rfind("trading.", 0) != 0) return std::nullopt;
    const auto t = result.find("trading");
    if (t == result.end() || !t->is_object() || !t->contains("strategy")) return std::nullopt;
    const json& f = (*t)["strategy"];
    const std::string key = tradingFigureKey(metric);
    if (key.empty()) return std::nullopt;
    const auto v = f.find(key);
    if (v == f.end()) return std::nullopt;
    if (v->is_null() && key == "profitFactor")  // inf with a trade won, else n/a
        return tradingFigureFromJson(f, "profitFactor") ? std::optional(kInfiniteProfitFactor)
                                                        : std::nullopt;
    if (!v->is_number()) return std::nullopt;
    return v->get<double>();
}

std::optional<double> Objective::pathsValue(const json& statistics) const {
    // oos.*: loss, accuracy, missed (one key each); results stored before that said
    // accuracyPct and missedPct.
    const bool task = metric.rfind("oos.", 0) == 0;
    std::string key = task ? metric.substr(4) : tradingFigureKey(metric);
    const std::string stat = paths.empty() ? "mean" : paths;
    if (key.empty() || !statistics.is_object() || !statistics.contains(stat)) return {};
    const json& figures = statistics[stat];
    if (task && key != "loss" && figures.is_object() && !figures.contains(key)) key += "Pct";
    if (!figures.is_object() || !figures.contains(key)) return std::nullopt;
    const json& v = figures[key];
    return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
}

SweepSpec SweepSpec::load(const std::string& path) {
    json j;
    try {
        j = loadJsonFile(path, kMaxFileBytes);
    } catch (const std::exception& e) {
        throw SpecError(e.what());
    }
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    return fromJson(j, path, dir.empty() ? "/" : dir);
}

SweepSpec SweepSpec::fromJson(const json& j, const std::string& file, const std::string& dir) {
    try {
        return readSpec(j, file, dir);
    } catch (const json::exception& e) {  // a type the checks above missed: still named
        throw SpecError((file.empty() ? "" : file + ": ") + jsonErrorText(e));
    }
}

namespace {

// The parameters, with the models of any "preset" parameter's values.
void readSpecParams(const Reader& r, const json& j, const std::string& dir, SweepSpec& s) {
    if (!j.contains("parameters") || !j["parameters"].is_array() || j["parameters"].empty())
        r.fail("parameters", "missing (an array of parameters)");
    for (size_t i = 0; i < j["parameters"].size(); ++i) {
        SpecParam p = readParam(r, j["parameters"][i], i, s.space);
        if (p.preset) {
            for (size_t k = 0; k < p.def.choices.size(); ++k) {
                const std::string name = p.def.choices[k].get<std::string>();
                try {
                    s.presetModels[name] = Experiment::load(resolvePreset(name, dir)).model;
                } catch (const std::exception& e) {
                    r.fail(p.specPath + ".values[" + std::to_string(k) + "]", e.what());
                }
            }
        }
        s.space.add(p.def);
        s.params.push_back(std::move(p));
    }
    if (s.method == "sobol" && s.space.size() > size_t(SobolSequence::kMaxDimensions))
        r.fail("parameters", "sobol handles at most " +
                                 std::to_string(SobolSequence::kMaxDimensions) + " parameters");
}

// The objective and second objective; a walk-forward trial reports no epochs (its folds train
// one after the other), only its result; out-of-sample figures exist only for a walk-forward.
void readSpecObjectives(const Reader& r, const json& j, bool walkForward, SweepSpec& s) {
    s.objective =
        readObjective(r, j.value("objective", json{{"metric", "validation.loss"}}), "objective");
    if (s.objective.metric == "parameters")
        r.fail("objective.metric", "the objective must be an epoch or result figure");
    if (j.contains("secondObjective"))
        s.second = readObjective(r, j["secondObjective"], "secondObjective");
    for (const auto& [o, where] :
         {std::pair{&s.objective, std::string("objective")},
          std::pair{s.second ? &*s.second : nullptr, std::string("secondObjective")}}) {
        if (!o) continue;
        if (walkForward && (o->perEpoch()))
            r.fail(where + ".metric",
                   "'" + o->metric +
                       "' is an epoch figure, but the experiment's validation.mode is "
                       "walkforward: its trials report only the stitched result (oos.loss, "
                       "oos.accuracy, oos.missed, trading.*)");
        if (!walkForward && o->metric.rfind("oos.", 0) == 0)
            r.fail(where + ".metric", "'" + o->metric +
                                          "' is a stitched out-of-sample figure of a "
                                          "walk-forward, but the experiment's validation.mode "
                                          "is holdout");
    }
}

// earlyTerminate: the ASHA or median pruner and its settings.
void readSpecPruner(const Reader& r, const json& e, SweepSpec& s) {
    if (!e.is_object() || !e.contains("type") || !e["type"].is_string())
        r.fail("earlyTerminate", "must be {\"type\": \"asha\"|\"median\", ...}");
    s.pruner = e["type"].get<std::string>();
    if (s.pruner == "asha") {
        r.onlyKeys(e, "earlyTerminate", {"type", "eta", "minResource", "maxResource"});
        s.asha.eta = readInt(r, e, "eta", "earlyTerminate.", 3, 2, 1000);
        s.asha.minResource = readInt(r, e, "minResource", "earlyTerminate.", 1, 1, 1000000);
        s.asha.maxResource = readInt(r, e, "maxResource", "earlyTerminate.", s.epochs, 1, 1000000);
        if (s.asha.maxResource < s.asha.minResource)
            r.fail("earlyTerminate.maxResource", "must be at least minResource");
        if (s.asha.maxResource > s.epochs)
            r.fail("earlyTerminate.maxResource",
                   "is more than the trials' " + std::to_string(s.epochs) + " epochs");
    } else if (s.pruner == "median") {
        r.onlyKeys(e, "earlyTerminate", {"type", "startupTrials", "warmupEpochs"});
        s.median.nStartup = readInt(r, e, "startupTrials", "earlyTerminate.", 5, 0, 1000000);
        s.median.nWarmup = readInt(r, e, "warmupEpochs", "earlyTerminate.", 0, 0, 1000000);
    } else {
        r.fail("earlyTerminate.type", "'" + s.pruner + "' is not asha or median");
    }
    if (s.objective.atEnd())
        r.fail("earlyTerminate",
               s.pruner + " prunes after each epoch from the objective's epoch values, but " +
                   s.objective.metric +
                   " is known only when a trial ends; remove earlyTerminate or optimise an "
                   "epoch figure");
}

// ensemble: K >= 2 members per trial (ensembleProblem says when not). The base experiment's
// training.ensemble N >= 2 (the window's "Ensemble of N seeds") asks for the same: K = N when
// the spec gives none; a different K, or training.ensemble among the parameters, is refused.
void readSpecEnsemble(const Reader& r, const json& j, bool walkForward, SweepSpec& s) {
    for (const SpecParam& p : s.params)
        if (p.def.name == "training.ensemble")
            r.fail(p.specPath,
                   "training.ensemble cannot be searched (every trial is an ensemble of the "
                   "spec's \"ensemble\": K seeds; give that instead)");
    const json& exp = s.baseExperiment;  // const: no key is added
    const json training = exp.contains("training") ? exp["training"] : json::object();
    const long long n = training.is_object() ? training.value("ensemble", 1LL) : 1;
    const bool given = j.contains("ensemble");
    if (!given && n <= 1) return;
    const json& v = given ? j["ensemble"] : training["ensemble"];
    const long long k = v.is_number_integer() ? v.get<long long>() : 0;  // else refused as 0
    const std::string base = "the base experiment's training.ensemble " + std::to_string(n);
    if (given && n > 1 && k != n)
        r.fail("ensemble", std::to_string(k) + " but " + base + " asks for ensembles of " +
                               std::to_string(n) +
                               " seeds: give the same number or leave one of them out");
    const std::string problem =
        ensembleProblem(k, s.population, s.seedsPerConfig, walkForward,
                        s.baseExperiment["data"].value("source", std::string("file")) == "file");
    if (!problem.empty())
        r.fail("ensemble", given ? problem
                                 : base + " (every trial an ensemble of " + std::to_string(n) +
                                       " seeds): " + problem);
    s.ensemble = int(k);
}

// tpe, runCap, seedsPerConfig, population, ensemble and timeBudgetMinutes.
void readSpecLimits(const Reader& r, const json& j, bool walkForward, SweepSpec& s) {
    if (j.contains("tpe")) {
        const json& t = j["tpe"];
        if (!t.is_object()) r.fail("tpe", "must be an object");
        r.onlyKeys(t, "tpe", {"startupTrials", "candidates", "constantLiar"});
        s.tpe.nStartup = readInt(r, t, "startupTrials", "tpe.", 10, 0, 1000000);
        s.tpe.nCandidates = readInt(r, t, "candidates", "tpe.", 24, 1, 100000);
        s.tpe.constantLiar = r.flag(t, "constantLiar", "tpe.", true);
    }
    s.runCap = readInt(r, j, "runCap", "", 0, 1, 1000000);
    if (s.runCap == 0 && s.method != "grid") r.fail("runCap", "missing (how many trials at most)");
    s.seedsPerConfig = readInt(r, j, "seedsPerConfig", "", 1, 1, 1000);
    s.population = readInt(r, j, "population", "", 1, 1, SweepSpec::kMaxPopulation);
    if (s.population > 1 && walkForward)
        r.fail("population",
               "walk-forward trials are not packed (each trains its folds in "
               "turn); leave population at 1");
    readSpecEnsemble(r, j, walkForward, s);
    if (j.contains("timeBudgetMinutes")) {
        if (!j["timeBudgetMinutes"].is_number() || j["timeBudgetMinutes"].get<double>() <= 0)
            r.fail("timeBudgetMinutes", "must be a positive number");
        s.timeBudgetS = 60.0 * j["timeBudgetMinutes"].get<double>();
    }
}

[[noreturn]] void failAtConfiguration(const std::string& file, const json& config,
                                      const SpecError& e) {
    throw SpecError((file.empty() ? "" : file + ": ") + std::string(e.what()) + " (configuration " +
                    jsonExcerpt(config, 400) + ")");
}

// Every parameter's extreme values make an experiment (the others as a middle configuration,
// its parents set to make it active).
void checkSpecExtremes(const SweepSpec& s) {
    std::vector<double> mid(s.space.size(), 0.5);
    for (size_t i = 0; i < s.params.size(); ++i) {
        const ParamDef& d = s.params[i].def;
        std::vector<json> probes = d.choices;
        if (d.kind != ParamKind::Categorical) {
            ParamDef ends = d;
            ends.gridPoints = 2;
            const std::vector<json> g = ends.gridValues();
            probes = d.kind == ParamKind::Int ? std::vector<json>{d.fromUnit(0.0), d.fromUnit(1.0)}
                                              : std::vector<json>{g.front(), g.back()};
        }
        for (const json& v : probes) {
            json config = s.space.toConfig(mid);
            config[d.name] = v;
            for (const ParamDef* c = &d; c->conditional;) {  // parents set to make it active
                config[c->condition.parent] = c->condition.values.front();
                c = s.space.find(c->condition.parent);
            }
            json fixed = json::object();  // only the active ones, the rest in the middle
            for (const ParamDef& q : s.space.params())
                if (SearchSpace::active(q, fixed))
                    fixed[q.name] = config.contains(q.name) ? config[q.name] : q.fromUnit(0.5);
            config = fixed;
            try {
                s.experimentFor(config);
            } catch (const SpecError& e) {
                failAtConfiguration(s.file, config, e);
            }
        }
    }
}

// The grid's size (capped at 2^40), refused for a grid sweep over 1 000 000 points; a set of
// combinations makes experiments: the whole grid when it is small, else the first 256 Sobol
// points.
long long checkSpecCombinations(const Reader& r, const SweepSpec& s) {
    long long gridSize = 1;
    for (const ParamDef& d : s.space.params())
        gridSize = std::min(1LL << 40,
                            gridSize * (d.kind == ParamKind::Int || d.kind == ParamKind::Categorical
                                            ? std::min(d.count(), 1LL << 20)
                                            : (long long)d.gridPoints));
    if (s.method == "grid" && gridSize > 1000000)
        r.fail("parameters", "the grid has more than 1 000 000 points; use random, sobol or tpe");
    auto sampler = gridSize <= 256 ? makeGridSampler(s.space) : makeSobolSampler(s.space, 0);
    History h;
    for (int n = 0; n < 256; ++n) {
        const auto c = sampler->ask(h, n);
        if (!c) break;
        try {
            s.experimentFor(*c);
        } catch (const SpecError& e) {
            failAtConfiguration(s.file, *c, e);
        }
        TrialRecord t;
        t.number = n;
        t.params = *c;
        h.push_back(t);
    }
    return gridSize;
}

}  // namespace

SweepSpec SweepSpec::readSpec(const json& j, const std::string& file, const std::string& dir) {
    const Reader r{file};
    if (!j.is_object()) r.fail("(top)", "a sweep spec is a JSON object");
    static const std::vector<std::string> keys = {
        "name",       "experiment",        "method",          "seed",
        "parameters", "objective",         "secondObjective", "earlyTerminate",
        "runCap",     "timeBudgetMinutes", "seedsPerConfig",  "epochs",
        "tpe",        "population",        "ensemble"};
    r.onlyKeys(j, "", keys);
    SweepSpec s;
    s.file = file;
    s.source = j;
    s.name = r.text(j, "name", "", "sweep");
    if (!j.contains("experiment") || !j["experiment"].is_string())
        r.fail("experiment", "missing (an experiment file or a preset name)");
    s.experimentRef = j["experiment"].get<std::string>();
    Experiment base;
    try {
        const std::string path = resolvePreset(s.experimentRef, dir);
        base = Experiment::load(path);
        s.baseDir = base.baseDir;
    } catch (const std::exception& e) {
        r.fail("experiment", e.what());
    }
    s.baseExperiment = fullExperimentJson(base);
    s.method = r.text(j, "method", "", "random");
    if (s.method != "grid" && s.method != "random" && s.method != "sobol" && s.method != "tpe")
        r.fail("method", "'" + s.method + "' is not grid, random, sobol or tpe");
    if (j.contains("seed") && (!j["seed"].is_number_unsigned()))
        r.fail("seed", "must be a non-negative integer");
    s.seed = j.value("seed", uint64_t(1));
    readSpecParams(r, j, dir, s);
    const bool walkForward = base.validation.walkForward();
    readSpecObjectives(r, j, walkForward, s);
    for (const auto& [o, where] :
         {std::pair{&s.objective, std::string("objective")},
          std::pair{s.second ? &*s.second : nullptr, std::string("secondObjective")}})
        if (o && !o->paths.empty() && !(base.validation.cpcv() && o->atEnd()))
            r.fail(where + ".paths",
                   "a statistic over CPCV paths needs a cpcv base experiment "
                   "(validation.scheme cpcv) and a trading.* or oos.* metric");
    s.epochs = readInt(r, j, "epochs", "", base.training.epochs, 1, 1000000);
    if (j.contains("earlyTerminate")) readSpecPruner(r, j["earlyTerminate"], s);
    readSpecLimits(r, j, walkForward, s);
    checkSpecExtremes(s);
    const long long gridSize = checkSpecCombinations(r, s);
    if (s.method == "grid" && s.runCap == 0) s.runCap = int(std::min<long long>(gridSize, 1000000));
    return s;
}

namespace {

// The experiment of `config` on `base`; throws std::exception from the first step that fails,
// with `at` naming where.
Experiment buildExperiment(const SweepSpec& s, const json& config, int replicate, std::string& at) {
    json j = s.baseExperiment;
    for (const SpecParam& p : s.params) {
        auto it = config.find(p.def.name);
        if (it == config.end()) continue;
        at = p.specPath + " (" + p.def.name + " = " + jsonExcerpt(*it) + ")";
        if (p.preset)
            j["model"] = s.presetModels.at(it->get<std::string>());
        else
            setPath(j, p.def.name, *it);
    }
    at = "the combination";
    j["training"]["epochs"] = s.epochs;
    j["training"]["seed"] = j["training"]["seed"].get<uint64_t>() + uint64_t(replicate);
    Experiment e = Experiment::fromJson(j, s.baseDir);
    const Shape input = experimentInputShape(e);
    Network::inferShapes(Network::layersFromJson(e.model), input);
    return e;
}

}  // namespace

Experiment SweepSpec::experimentFor(const json& config, int replicate) const {
    std::string at;
    try {
        return buildExperiment(*this, config, replicate, at);
    } catch (const std::exception& e) {
        if (at == "the combination") {
            // A parameter that fails on its own (on the base experiment) is named; otherwise
            // it is the combination.
            for (const SpecParam& p : params) {
                auto it = config.find(p.def.name);
                if (it == config.end() || p.def.conditional) continue;
                std::string alone;
                try {
                    buildExperiment(*this, json{{p.def.name, *it}}, replicate, alone);
                } catch (const std::exception& single) {
                    throw SpecError(p.specPath + " (" + p.def.name + " = " + jsonExcerpt(*it) +
                                    "): " + single.what());
                }
            }
            throw SpecError("the combination " + jsonExcerpt(config, 400) +
                            " makes no valid experiment: " + e.what());
        }
        throw SpecError(at + ": " + e.what());
    }
}

std::string ensembleProblem(long long ensemble, int population, int seedsPerConfig,
                            bool walkForward, bool priceFile) {
    const std::string k = std::to_string(ensemble);
    if (ensemble < 2 || ensemble > SweepSpec::kMaxPopulation)
        return "must be an integer in 2.." + std::to_string(SweepSpec::kMaxPopulation) +
               " (the members of each trial's ensemble; leave it out for trials of one model)";
    // Each trial its own population of K seeds, so not packed; not with seed replicates (they
    // would share members); not walk-forward; kept as an ensemble bundle, which needs prices.
    if (population > 1)
        return "an ensemble trial is its own population of " + k +
               " seeds, so trials are not packed; leave population at 1";
    if (seedsPerConfig > 1)
        return "not with seedsPerConfig > 1 (an ensemble trial already trains " + k +
               " seeds of its configuration)";
    if (walkForward)
        return "not with a walk-forward base experiment (use nnwb-cli walkforward --ensemble)";
    if (!priceFile) return "an ensemble bundle needs a price file (data.source file)";
    return {};
}

std::unique_ptr<Sampler> makeSpecSampler(const SweepSpec& spec) {
    if (spec.method == "grid") return makeGridSampler(spec.space);
    if (spec.method == "sobol") return makeSobolSampler(spec.space, spec.seed);
    if (spec.method == "tpe") return makeTpeSampler(spec.space, spec.seed, spec.tpe);
    return makeRandomSampler(spec.space, spec.seed);
}

}  // namespace nnwb::sweep
