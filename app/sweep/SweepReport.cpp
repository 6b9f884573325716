#include "app/sweep/SweepReport.h"

#include <algorithm>
#include <cstdio>

#include "app/sweep/SweepHistory.h"
#include "app/sweep/SweepReadModel.h"
#include "model/sweep/Importance.h"
#include "model/sweep/Pareto.h"

namespace nnwb {

using sweep::TrialState;

namespace {

nlohmann::json opt(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json trialJson(const TrialRow& t) {
    nlohmann::json j = {{"number", t.number},
                        {"config", t.config},
                        {"replicate", t.replicate},
                        {"state", sweep::trialStateName(t.state)},
                        {"params", t.params},
                        {"run", t.runId ? nlohmann::json(t.runId) : nullptr},
                        {"attempts", t.attempts},
                        {"slot", t.slot},
                        {"epochs", t.epochsDone},
                        {"value", opt(t.value)},
                        {"secondValue", opt(t.secondValue)},
                        {"prunedAt", t.prunedAt ? nlohmann::json(*t.prunedAt) : nullptr}};
    if (!t.error.empty()) j["error"] = t.error;
    return j;
}

std::string csvField(std::string s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string number(const std::optional<double>& v) {
    if (!v) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", *v);
    return buf;
}

}  // namespace

nlohmann::json sweepReport(const SweepRow& s, const sweep::SweepSpec& spec,
                           const std::vector<TrialRow>& trials) {
    nlohmann::json j = {
        {"id", s.id},
        {"name", s.name},
        {"status", s.status},
        {"createdAt", s.createdAt},
        {"endedAt", s.endedAt.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.endedAt)},
        {"method", spec.method},
        {"pruner", spec.pruner},
        {"runCap", spec.runCap},
        {"objective",
         {{"metric", spec.objective.metric}, {"goal", spec.objective.minimize ? "min" : "max"}}}};
    if (spec.second)
        j["secondObjective"] = {{"metric", spec.second->metric},
                                {"goal", spec.second->minimize ? "min" : "max"}};
    nlohmann::json counts = nlohmann::json::object();
    for (const char* st : {"queued", "running", "complete", "pruned", "failed"}) counts[st] = 0;
    for (const TrialRow& t : trials)
        counts[sweep::trialStateName(t.state)] =
            counts[sweep::trialStateName(t.state)].get<int>() + 1;
    j["counts"] = counts;
    std::vector<const TrialRow*> done;
    for (const TrialRow& t : trials)
        if (t.state == TrialState::Complete && t.value) done.push_back(&t);
    std::stable_sort(done.begin(), done.end(), [&](const TrialRow* a, const TrialRow* b) {
        return spec.objective.oriented(*a->value) < spec.objective.oriented(*b->value);
    });
    j["leaderboard"] = nlohmann::json::array();
    for (const TrialRow* t : done) j["leaderboard"].push_back(trialJson(*t));
    j["best"] = done.empty() ? nlohmann::json(nullptr) : trialJson(*done.front());
    if (spec.second) {
        std::vector<std::pair<double, double>> pts;
        std::vector<const TrialRow*> who;
        for (const TrialRow* t : done)
            if (t->secondValue) {
                pts.push_back(
                    {spec.objective.oriented(*t->value), spec.second->oriented(*t->secondValue)});
                who.push_back(t);
            }
        j["pareto"] = nlohmann::json::array();
        for (size_t i : sweep::paretoFront(pts)) j["pareto"].push_back(trialJson(*who[i]));
    }
    j["importance"] = nlohmann::json::array();
    for (const auto& p : sweep::parameterImportance(spec.space, configHistory(trials, spec)))
        j["importance"].push_back({{"parameter", p.name}, {"index", p.index}, {"bins", p.bins}});
    j["trials"] = nlohmann::json::array();
    for (const TrialRow& t : trials) j["trials"].push_back(trialJson(t));
    return j;
}

std::string sweepReportText(const nlohmann::json& r, size_t top) {
    std::string out;
    char buf[512];
    auto line = [&](const std::string& s) { out += s + "\n"; };
    std::snprintf(buf, sizeof buf, "sweep %lld \"%s\": %s, method %s, pruner %s",
                  (long long)r["id"].get<int64_t>(), r["name"].get<std::string>().c_str(),
                  r["status"].get<std::string>().c_str(), r["method"].get<std::string>().c_str(),
                  r["pruner"].get<std::string>().c_str());
    line(buf);
    const auto& c = r["counts"];
    std::snprintf(buf, sizeof buf,
                  "trials: %d complete, %d pruned, %d failed, %d running, %d queued (cap %d)",
                  c["complete"].get<int>(), c["pruned"].get<int>(), c["failed"].get<int>(),
                  c["running"].get<int>(), c["queued"].get<int>(), r["runCap"].get<int>());
    line(buf);
    const std::string metric = r["objective"]["metric"].get<std::string>() + " (" +
                               r["objective"]["goal"].get<std::string>() + ")";
    line("objective: " + metric);
    if (!r["best"].is_null())
        line("best: trial " + std::to_string(r["best"]["number"].get<int>()) + "  " +
             (r["best"]["value"].is_number()
                  ? sweepValueText(r["best"]["value"].get<double>())  // as the leaderboard's
                  : r["best"]["value"].dump()) +
             "  " + r["best"]["params"].dump());
    line("");
    line("leaderboard:");
    line("  rank  trial  run     value         epochs  params");
    size_t rank = 0;
    for (const auto& t : r["leaderboard"]) {
        if (++rank > top) break;
        std::snprintf(buf, sizeof buf, "  %4zu  %5d  %-6s  %-12s  %6d  %s", rank,
                      t["number"].get<int>(), t["run"].is_null() ? "-" : t["run"].dump().c_str(),
                      sweepValueText(t["value"].get<double>()).c_str(), t["epochs"].get<int>(),
                      t["params"].dump().c_str());
        line(buf);
    }
    if (r.contains("pareto")) {
        line("");
        line("Pareto front (" + metric + " and " +
             r["secondObjective"]["metric"].get<std::string>() + "):");
        for (const auto& t : r["pareto"]) {
            std::snprintf(buf, sizeof buf, "  trial %-5d  %-12s  %-12s  %s", t["number"].get<int>(),
                          sweepValueText(t["value"].get<double>()).c_str(),
                          sweepValueText(t["secondValue"].get<double>()).c_str(),
                          t["params"].dump().c_str());
            line(buf);
        }
    }
    if (!r["importance"].empty()) {
        line("");
        line("parameter importance (omega squared of a one-way ANOVA over bins; docs/sweeps.md):");
        for (const auto& p : r["importance"]) {
            std::snprintf(buf, sizeof buf, "  %-40s  %.3f",
                          p["parameter"].get<std::string>().c_str(), p["index"].get<double>());
            line(buf);
        }
    }
    return out;
}

std::string sweepCsv(const sweep::SweepSpec& spec, const std::vector<TrialRow>& trials) {
    std::string out =
        "number,config,replicate,state,run,attempts,slot,epochs,value,second_value,pruned_at,error";
    for (const auto& p : spec.params) out += "," + csvField(p.def.name);
    out += "\n";
    for (const TrialRow& t : trials) {
        out += std::to_string(t.number) + "," + std::to_string(t.config) + "," +
               std::to_string(t.replicate) + "," + sweep::trialStateName(t.state) + "," +
               (t.runId ? std::to_string(t.runId) : "") + "," + std::to_string(t.attempts) + "," +
               csvField(t.slot) + "," + std::to_string(t.epochsDone) + "," + number(t.value) + "," +
               number(t.secondValue) + "," + (t.prunedAt ? std::to_string(*t.prunedAt) : "") + "," +
               csvField(t.error);
        for (const auto& p : spec.params) {
            auto it = t.params.find(p.def.name);
            out += "," + (it == t.params.end()
                              ? std::string()
                              : csvField(it->is_string() ? it->get<std::string>() : it->dump()));
        }
        out += "\n";
    }
    return out;
}

}  // namespace nnwb
