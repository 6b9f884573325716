// What the search primitives know of one trial of a sweep: its number, state, configuration,
// the objective at each epoch it reported and its final objective. Values are oriented so that
// lower is better (a maximised objective is negated by whoever builds the records). Plain
// value type; copied freely between threads.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnwb::sweep {

enum class TrialState { Queued, Running, Complete, Pruned, Failed };

const char* trialStateName(TrialState s);  // "queued", "running", ...
std::optional<TrialState> trialStateFromName(const std::string& name);

struct TrialRecord {
    int number = 0;
    TrialState state = TrialState::Running;
    nlohmann::json params = nlohmann::json::object();
    std::map<int, double> intermediate;  // epoch (1-based) -> objective, lower is better
    std::optional<double> value;         // the final objective (Complete), lower is better

    // The objective's last reported value and its epoch (none when nothing was reported).
    std::optional<std::pair<int, double>> last() const {
        if (intermediate.empty()) return std::nullopt;
        return *intermediate.rbegin();
    }
};

using History = std::vector<TrialRecord>;

}  // namespace nnwb::sweep
