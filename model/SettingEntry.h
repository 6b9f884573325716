// The builder of a settings-table entry (TrainingSettings, ValidationSettings,
// trading/TradingSettings): a SettingSpec's fields by name, then the entry's read and write
// access to its field of the config struct. One builder for every table, so that each table's
// file only lists its entries. Pure data and functions; any thread.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/SettingSpec.h"

namespace nnwb {

// How an entry reads and writes its value in a Config.
template <class Config>
struct SettingAccess {
    std::function<nlohmann::json(const Config&)> get;
    std::function<void(Config&, const nlohmann::json&)> set;  // a checked value
};

// A Config member as the setting's value.
template <class Config, class T>
SettingAccess<Config> fieldAccess(T Config::*m) {
    return {[m](const Config& c) { return nlohmann::json(c.*m); },
            [m](Config& c, const nlohmann::json& v) { v.get_to(c.*m); }};
}
// A member of a Config member (config.optimizer.beta1).
template <class Config, class S, class T>
SettingAccess<Config> fieldAccess(S Config::*s, T S::*m) {
    return {[s, m](const Config& c) { return nlohmann::json(c.*s.*m); },
            [s, m](Config& c, const nlohmann::json& v) { v.get_to(c.*s.*m); }};
}

// Builds one entry of type Setting (members spec, get, set) for a Config.
template <class Setting, class Config>
class SettingEntry {
public:
    using Kind = SettingSpec::Kind;
    SettingEntry(Kind kind, std::string key, std::string name, std::string label,
                 std::string help) {
        s().kind = kind;
        s().key = std::move(key);
        s().name = std::move(name);
        s().label = std::move(label);
        s().help = std::move(help);
    }
    SettingEntry& range(double lo, double hi, bool loExcluded = false) {
        s().min = lo;
        s().max = hi;
        s().minExcluded = loExcluded;
        return *this;
    }
    SettingEntry& spin(int decimals, double step) {
        s().decimals = decimals;
        s().step = step;
        return *this;
    }
    SettingEntry& choices(std::vector<std::string> values, std::vector<std::string> labels) {
        s().choices = std::move(values);
        s().choiceLabels = std::move(labels);
        return *this;
    }
    SettingEntry& unit(std::string u) { return s().unit = std::move(u), *this; }
    SettingEntry& minimumText(std::string t) { return s().minimumText = std::move(t), *this; }
    SettingEntry& flag(std::string f) { return s().flag = std::move(f), *this; }
    SettingEntry& scale(double formScale) { return s().formScale = formScale, *this; }
    SettingEntry& when(std::string key, std::vector<std::string> values) {
        s().enabledBy = std::move(key);
        s().enabledFor = std::move(values);
        return *this;
    }
    SettingEntry& onlyWhenApplies() { return s().onlyWhenApplies = true, *this; }
    SettingEntry& omittedWhenDefault() { return s().omittedWhenDefault = true, *this; }
    SettingEntry& flagParser(std::function<void(const std::string&, nlohmann::json&)> f) {
        return s().applyFlag = std::move(f), *this;
    }
    SettingEntry& to(SettingAccess<Config> access) {
        t_.get = std::move(access.get);
        t_.set = std::move(access.set);
        return *this;
    }
    // The finished entry in form box `group`, its default read from a default Config.
    Setting done(const std::string& group) {
        s().group = group;
        s().defaultValue = t_.get(Config());
        return t_;
    }

private:
    SettingSpec& s() { return t_.spec; }
    Setting t_;
};

}  // namespace nnwb
