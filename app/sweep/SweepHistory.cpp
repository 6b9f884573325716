#include "app/sweep/SweepHistory.h"

#include <map>

namespace nnwb {

using sweep::TrialRecord;
using sweep::TrialState;

std::optional<double> bestOfEpochs(const TrialRow& t, const sweep::Objective& o) {
    std::optional<double> best;
    for (const auto& [e, v] : t.epochs)
        if (!best || o.oriented(v) < o.oriented(*best)) best = v;
    return best;
}

std::optional<double> trialObjective(const TrialRow& t, const sweep::Objective& o) {
    return o.atEnd() ? t.value : bestOfEpochs(t, o);
}

sweep::History trialHistory(const std::vector<TrialRow>& rows, const sweep::SweepSpec& spec) {
    sweep::History h;
    for (const TrialRow& t : rows) {
        TrialRecord r;
        r.number = t.number;
        r.state = t.state;
        r.params = t.params;
        for (const auto& [e, v] : t.epochs) r.intermediate[e] = spec.objective.oriented(v);
        if (t.state == TrialState::Complete)
            if (auto b = trialObjective(t, spec.objective)) r.value = spec.objective.oriented(*b);
        h.push_back(std::move(r));
    }
    return h;
}

sweep::History configHistory(const std::vector<TrialRow>& rows, const sweep::SweepSpec& spec) {
    std::map<int, std::vector<const TrialRow*>> byConfig;
    for (const TrialRow& t : rows) byConfig[t.config].push_back(&t);
    sweep::History h;
    for (const auto& [config, group] : byConfig) {
        TrialRecord r;
        r.number = config;
        r.params = group.front()->params;
        int complete = 0, failed = 0;
        bool pruned = false, open = false;
        double sum = 0.0;
        std::map<int, std::pair<double, int>> epochs;
        for (const TrialRow* t : group) {
            for (const auto& [e, v] : t->epochs) {
                epochs[e].first += spec.objective.oriented(v);
                epochs[e].second += 1;
            }
            switch (t->state) {
                case TrialState::Complete:
                    if (auto b = trialObjective(*t, spec.objective)) {
                        ++complete;
                        sum += spec.objective.oriented(*b);
                    } else {
                        ++failed;
                    }
                    break;
                case TrialState::Pruned:
                    pruned = true;
                    break;
                case TrialState::Failed:
                    ++failed;
                    break;
                default:
                    open = true;
            }
        }
        for (const auto& [e, sc] : epochs) r.intermediate[e] = sc.first / sc.second;
        if (open)
            r.state = TrialState::Running;
        else if (pruned)
            r.state = TrialState::Pruned;
        else if (complete == 0)
            r.state = TrialState::Failed;
        else {
            r.state = TrialState::Complete;
            r.value = sum / complete;
        }
        h.push_back(std::move(r));
    }
    return h;
}

}  // namespace nnwb
