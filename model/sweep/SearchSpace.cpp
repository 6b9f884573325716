#include "model/sweep/SearchSpace.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nnwb::sweep {

long long ParamDef::count() const {
    if (kind == ParamKind::Categorical) return static_cast<long long>(choices.size());
    if (kind == ParamKind::Int) return static_cast<long long>(std::floor((high - low) / step)) + 1;
    return 0;
}

nlohmann::json ParamDef::fromUnit(double u) const {
    u = std::min(std::max(u, 0.0), std::nextafter(1.0, 0.0));
    switch (kind) {
        case ParamKind::Int: {
            const long long i = std::min(count() - 1, static_cast<long long>(u * count()));
            return static_cast<long long>(low) + step * i;
        }
        case ParamKind::Float:
            return low + u * (high - low);
        case ParamKind::LogFloat:
            return std::exp(std::log(low) + u * (std::log(high) - std::log(low)));
        case ParamKind::Categorical: {
            const long long i = std::min(count() - 1, static_cast<long long>(u * count()));
            return choices[size_t(i)];
        }
    }
    return nullptr;
}

std::vector<nlohmann::json> ParamDef::gridValues() const {
    std::vector<nlohmann::json> out;
    if (kind == ParamKind::Categorical) return choices;
    if (kind == ParamKind::Int) {
        for (long long i = 0; i < count(); ++i)
            out.push_back(static_cast<long long>(low) + step * i);
        return out;
    }
    const int n = std::max(1, gridPoints);
    for (int i = 0; i < n; ++i) {
        const double t = n == 1 ? 0.5 : double(i) / (n - 1);
        out.push_back(kind == ParamKind::Float
                          ? low + t * (high - low)
                          : std::exp(std::log(low) + t * (std::log(high) - std::log(low))));
    }
    return out;
}

bool ParamDef::admits(const nlohmann::json& v) const {
    switch (kind) {
        case ParamKind::Int: {
            if (!v.is_number_integer()) return false;
            const long long x = v.get<long long>();
            return x >= low && x <= high && (x - static_cast<long long>(low)) % step == 0;
        }
        case ParamKind::Float:
        case ParamKind::LogFloat: {
            if (!v.is_number()) return false;
            const double x = v.get<double>();
            return x >= low * (1 - 1e-12) - 1e-300 && x <= high * (1 + 1e-12) + 1e-300;
        }
        case ParamKind::Categorical:
            return std::find(choices.begin(), choices.end(), v) != choices.end();
    }
    return false;
}

const ParamDef* SearchSpace::find(const std::string& name) const {
    for (const ParamDef& p : params_)
        if (p.name == name) return &p;
    return nullptr;
}

void SearchSpace::add(ParamDef def) {
    auto bad = [&](const std::string& why) {
        throw std::invalid_argument("parameter " + def.name + ": " + why);
    };
    if (def.name.empty()) throw std::invalid_argument("a parameter needs a name");
    if (find(def.name)) bad("declared twice");
    switch (def.kind) {
        case ParamKind::Int:
            if (def.low != std::floor(def.low) || def.high != std::floor(def.high))
                bad("an int range needs integer bounds");
            if (def.step < 1) bad("step must be at least 1");
            [[fallthrough]];
        case ParamKind::Float:
            if (!std::isfinite(def.low) || !std::isfinite(def.high) || def.low > def.high)
                bad("the range is empty (min > max)");
            break;
        case ParamKind::LogFloat:
            if (!(def.low > 0) || !std::isfinite(def.high) || def.low > def.high)
                bad("a log range needs 0 < min <= max");
            break;
        case ParamKind::Categorical:
            if (def.choices.empty()) bad("no values to choose from");
            break;
    }
    if (def.gridPoints < 1) bad("gridPoints must be at least 1");
    if (def.conditional) {
        const ParamDef* parent = find(def.condition.parent);
        if (!parent)
            bad("its condition names " + def.condition.parent +
                ", which is not a parameter declared before it");
        if (def.condition.values.empty()) bad("its condition lists no values");
        for (const nlohmann::json& v : def.condition.values)
            if (!parent->admits(v))
                bad("its condition's value " + v.dump() + " is not one " + parent->name +
                    " can take");
    }
    params_.push_back(std::move(def));
}

bool SearchSpace::active(const ParamDef& def, const nlohmann::json& config) {
    if (!def.conditional) return true;
    auto it = config.find(def.condition.parent);
    if (it == config.end()) return false;  // the parent is itself inactive
    const auto& vs = def.condition.values;
    return std::find(vs.begin(), vs.end(), *it) != vs.end();
}

nlohmann::json SearchSpace::toConfig(const std::vector<double>& u) const {
    if (u.size() != params_.size())
        throw std::invalid_argument("a point of " + std::to_string(u.size()) + " coordinates for " +
                                    std::to_string(params_.size()) + " parameters");
    nlohmann::json config = nlohmann::json::object();
    for (size_t i = 0; i < params_.size(); ++i)
        if (active(params_[i], config)) config[params_[i].name] = params_[i].fromUnit(u[i]);
    return config;
}

bool SearchSpace::valid(const nlohmann::json& config) const {
    if (!config.is_object()) return false;
    nlohmann::json seen = nlohmann::json::object();
    size_t n = 0;
    for (const ParamDef& p : params_) {
        if (!active(p, seen)) continue;
        auto it = config.find(p.name);
        if (it == config.end() || !p.admits(*it)) return false;
        seen[p.name] = *it;
        ++n;
    }
    return n == config.size();
}

}  // namespace nnwb::sweep
