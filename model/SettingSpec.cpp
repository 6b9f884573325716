#include "model/SettingSpec.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace nnwb {

namespace {

using Kind = SettingSpec::Kind;

std::string num(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
}

std::string integerText(double x) {
    return x >= 9e18 ? std::string("…") : std::to_string(static_cast<long long>(x));
}

std::string joined(const std::vector<std::string>& items, const char* sep) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::vector<std::string> splitKey(const std::string& key) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', start)) {
        parts.push_back(key.substr(start, dot - start));
        start = dot + 1;
    }
    parts.push_back(key.substr(start));
    return parts;
}

void fail(const std::string& path, const std::string& problem) {
    throw std::invalid_argument(path + ": " + problem);
}

void checkNumber(const SettingSpec& s, const std::string& path, const nlohmann::json& v) {
    if (s.kind == Kind::Int) {
        if (!v.is_number_integer()) fail(path, "must be an integer, got " + v.dump());
        const double x = v.is_number_unsigned() ? double(v.get<unsigned long long>())
                                                : double(v.get<long long>());
        if (x < s.min || x > s.max) fail(path, v.dump() + " is outside " + s.rangeText());
        return;
    }
    if (!v.is_number()) fail(path, "must be a number, got " + v.dump());
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < s.min || x > s.max || (s.minExcluded && x == s.min))
        fail(path, v.dump() + " is outside " + s.rangeText());
}

void checkList(const SettingSpec& s, const std::string& path, const nlohmann::json& v) {
    if (!v.is_array()) fail(path, "must be a list of numbers, got " + v.dump());
    for (size_t i = 0; i < v.size(); ++i) {
        const auto& w = v[i];
        if (!w.is_number() || !std::isfinite(w.get<double>()) || w.get<double>() < s.min ||
            w.get<double>() > s.max)
            fail(path + "[" + std::to_string(i) + "]",
                 w.dump() + " is not a number in " + s.rangeText());
    }
}

nlohmann::json flagValueByKind(const SettingSpec& s, const std::string& v) {
    const std::string& flag = s.flag;
    switch (s.kind) {
        case Kind::Bool:
            if (v == "on" || v == "true" || v == "1") return true;
            if (v == "off" || v == "false" || v == "0") return false;
            throw std::invalid_argument(flag + ": '" + v + "' is not on or off");
        case Kind::Int: {
            char* end = nullptr;
            errno = 0;
            const long long x = std::strtoll(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0' || errno != 0)
                throw std::invalid_argument(flag + ": '" + v + "' is not an integer");
            return x;
        }
        case Kind::Real: {
            double x = 0;
            if (!parseSettingNumber(v, x))
                throw std::invalid_argument(flag + ": '" + v + "' is not a number");
            return x;
        }
        case Kind::RealList: {
            nlohmann::json list = nlohmann::json::array();
            size_t start = 0;
            while (start <= v.size()) {
                const size_t comma = std::min(v.find(',', start), v.size());
                const std::string part = v.substr(start, comma - start);
                double x = 0;
                if (!parseSettingNumber(part, x))
                    throw std::invalid_argument(flag + ": '" + part + "' is not a number");
                list.push_back(x);
                start = comma + 1;
            }
            return list;
        }
        case Kind::Choice:
        case Kind::Text:
            break;
    }
    return v;
}

}  // namespace

bool parseSettingNumber(const std::string& text, double& out) {
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(x)) return false;
    out = x;
    return true;
}

void SettingSpec::check(const std::string& section, const nlohmann::json& v) const {
    const std::string p = path(section);
    switch (kind) {
        case Kind::Int:
        case Kind::Real:
            checkNumber(*this, p, v);
            return;
        case Kind::Bool:
            if (!v.is_boolean()) fail(p, "must be true or false, got " + v.dump());
            return;
        case Kind::Choice:
            if (!v.is_string())
                fail(p, "must be one of " + joined(choices, ", ") + ", got " + v.dump());
            for (const std::string& c : choices)
                if (c == v.get<std::string>()) return;
            fail(p, "'" + v.get<std::string>() + "' is not one of " + joined(choices, ", "));
            return;
        case Kind::Text:
            if (!v.is_string()) fail(p, "must be a string, got " + v.dump());
            return;
        case Kind::RealList:
            checkList(*this, p, v);
            return;
    }
}

std::string SettingSpec::rangeText() const {
    switch (kind) {
        case Kind::Int:
            return max >= 9e18 ? integerText(min) + "…"
                               : integerText(min) + ".." + integerText(max);
        case Kind::Real:
        case Kind::RealList:
            return std::string(minExcluded ? "(" : "[") + num(min) + ", " + num(max) + "]";
        case Kind::Bool:
            return "on | off";
        case Kind::Choice:
            return joined(choices, " | ");
        case Kind::Text:
            return "";
    }
    return "";
}

const nlohmann::json* findSetting(const nlohmann::json& section, const SettingSpec& spec,
                                  const std::string& sectionName) {
    const nlohmann::json* at = &section;
    std::string path = sectionName;
    for (const std::string& part : splitKey(spec.key)) {
        if (!at->is_object()) fail(path, "must be an object");
        const auto it = at->find(part);
        if (it == at->end()) return nullptr;
        at = &*it;
        path += "." + part;
    }
    return at;
}

void putSetting(nlohmann::json& section, const SettingSpec& spec, nlohmann::json v) {
    nlohmann::json* at = &section;
    const std::vector<std::string> parts = splitKey(spec.key);
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        nlohmann::json& next = (*at)[parts[i]];
        if (!next.is_object()) next = nlohmann::json::object();
        at = &next;
    }
    (*at)[parts.back()] = std::move(v);
}

void eraseSetting(nlohmann::json& section, const SettingSpec& spec) {
    nlohmann::json* at = &section;
    const std::vector<std::string> parts = splitKey(spec.key);
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        if (!at->is_object() || !at->contains(parts[i])) return;
        at = &(*at)[parts[i]];
    }
    if (at->is_object()) at->erase(parts.back());
}

bool settingApplies(const SettingSpec& spec, const nlohmann::json& section,
                    const std::vector<SettingSpec>& table) {
    if (spec.enabledBy.empty()) return true;
    const SettingSpec* by = nullptr;
    for (const SettingSpec& s : table)
        if (s.key == spec.enabledBy) by = &s;
    if (!by) throw std::logic_error(spec.key + ": no setting '" + spec.enabledBy + "'");
    const nlohmann::json* v = section.is_object() ? findSetting(section, *by, "") : nullptr;
    const std::string value = v ? v->dump() : by->defaultValue.dump();
    for (const std::string& f : spec.enabledFor)
        if (f == value) return true;
    return false;
}

void applySettingFlag(const SettingSpec& spec, const std::string& value, nlohmann::json& section,
                      const std::string& sectionName) {
    if (spec.applyFlag) {
        spec.applyFlag(value, section);
    } else {
        nlohmann::json v = flagValueByKind(spec, value);
        try {
            spec.check(sectionName, v);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(spec.flag + ": " + e.what());
        }
        putSetting(section, spec, std::move(v));
    }
}

const SettingSpec* findSettingByFlag(const std::vector<SettingSpec>& specs,
                                     const std::string& flag) {
    for (const SettingSpec& s : specs)
        if (!s.flag.empty() && s.flag == flag) return &s;
    return nullptr;
}

}  // namespace nnwb
