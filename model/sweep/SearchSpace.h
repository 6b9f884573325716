// The parameters a sweep searches: each an int, float, log-float or categorical range, possibly
// active only when an earlier parameter has one of given values. A configuration is a JSON
// object {name: value} holding only the active parameters. Samplers map points of the unit cube
// to configurations through toConfig. Plain value type; read from any thread once built.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnwb::sweep {

enum class ParamKind { Int, Float, LogFloat, Categorical };

// Active only while parameter `parent` (declared earlier) is active and equals one of `values`.
struct ParamCondition {
    std::string parent;
    std::vector<nlohmann::json> values;
};

struct ParamDef {
    std::string name;  // the parameter's path into the experiment ("training.batchSize")
    ParamKind kind = ParamKind::Float;
    double low = 0.0, high = 1.0;         // Int, Float, LogFloat (inclusive; LogFloat low > 0)
    int step = 1;                         // Int: values low, low + step, ... <= high
    std::vector<nlohmann::json> choices;  // Categorical
    int gridPoints = 5;                   // Float/LogFloat points of a grid (ends included)
    bool conditional = false;
    ParamCondition condition;

    // Number of distinct values of an Int (from low by step) or Categorical; 0 for floats.
    long long count() const;
    // The value at unit coordinate u in [0, 1): Int low + step * floor(u * count), Float
    // low + u (high - low), LogFloat exp(log low + u (log high - log low)), Categorical
    // choices[floor(u * count)].
    nlohmann::json fromUnit(double u) const;
    // The grid of this parameter: every Int / Categorical value; gridPoints Float values spaced
    // evenly (LogFloat: evenly in log space), both ends included.
    std::vector<nlohmann::json> gridValues() const;
    // Whether `value` is one this parameter can take.
    bool admits(const nlohmann::json& value) const;
};

class SearchSpace {
public:
    // Throws std::invalid_argument naming the parameter: duplicate names, empty or inverted
    // ranges, a condition on an unknown or later parameter.
    void add(ParamDef def);
    const std::vector<ParamDef>& params() const { return params_; }
    size_t size() const { return params_.size(); }
    const ParamDef* find(const std::string& name) const;
    // Whether `def` is active in the (partial) configuration `config`, whose earlier parameters
    // are set.
    static bool active(const ParamDef& def, const nlohmann::json& config);
    // The configuration of unit point u (one coordinate per parameter, in order); inactive
    // parameters are left out.
    nlohmann::json toConfig(const std::vector<double>& u) const;
    // Whether `config` holds exactly the active parameters, each with a value it admits.
    bool valid(const nlohmann::json& config) const;

private:
    std::vector<ParamDef> params_;
};

}  // namespace nnwb::sweep
