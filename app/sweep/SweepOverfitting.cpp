#include "app/sweep/SweepOverfitting.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "model/data/DateTime.h"
#include "model/overfitting/Cscv.h"

namespace nnwb {

namespace {

nlohmann::json finiteOrNull(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nullptr;
}

std::string num(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

// The return at each of `times` (ascending) from a series sorted by time.
std::vector<double> returnsAt(const ReturnSeries& s, const std::vector<int64_t>& times) {
    std::vector<size_t> order(s.time.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return s.time[a] < s.time[b]; });
    std::vector<double> out;
    out.reserve(times.size());
    size_t k = 0;
    for (int64_t t : times) {
        while (s.time[order[k]] < t) ++k;  // every time is in the series
        out.push_back(s.pct[order[k]]);
    }
    return out;
}

std::string figure(const nlohmann::json& v, const char* format) {
    if (!v.is_number()) return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v.get<double>());
    return buf;
}

}  // namespace

SweepReturnsMatrix sweepReturnsMatrix(const std::vector<TrialRow>& trials,
                                      const std::map<int64_t, ReturnSeries>& returnsOfRun) {
    std::vector<std::pair<int, const ReturnSeries*>> with;
    for (const TrialRow& t : trials) {
        if (t.state != sweep::TrialState::Complete && t.state != sweep::TrialState::Pruned)
            continue;
        const auto it = returnsOfRun.find(t.runId);
        if (t.runId != 0 && it != returnsOfRun.end()) with.emplace_back(t.number, &it->second);
    }
    std::sort(with.begin(), with.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    SweepReturnsMatrix m;
    if (with.empty()) return m;
    std::vector<int64_t> common = with.front().second->time;
    std::sort(common.begin(), common.end());
    common.erase(std::unique(common.begin(), common.end()), common.end());
    for (const auto& [number, series] : with) {
        std::vector<int64_t> times = series->time, both;
        std::sort(times.begin(), times.end());
        std::set_intersection(common.begin(), common.end(), times.begin(), times.end(),
                              std::back_inserter(both));
        common = std::move(both);
    }
    m.time = common;
    for (const auto& [number, series] : with) {
        m.trials.push_back(number);
        m.returns.push_back(returnsAt(*series, common));
    }
    return m;
}

std::string sweepReturnsCsv(const SweepReturnsMatrix& m) {
    std::string out = "time";
    for (int t : m.trials) out += "," + std::to_string(t);
    out += "\n";
    for (size_t i = 0; i < m.time.size(); ++i) {
        out += formatBarTime(m.time[i]);
        for (const std::vector<double>& column : m.returns) out += "," + num(column[i]);
        out += "\n";
    }
    return out;
}

nlohmann::json sweepOverfitting(const SweepReturnsMatrix& m, int blocks) {
    if (m.trials.empty()) return nullptr;
    CscvResult r;
    try {
        r = cscv(m.returns, blocks);
    } catch (const CscvError& e) {
        return {{"refused", e.what()},
                {"trials", m.trials.size()},
                {"bars", m.time.size()},
                {"blocks", blocks}};
    }
    nlohmann::json perSplit = {{"winner", nlohmann::json::array()},
                               {"inSample", nlohmann::json::array()},
                               {"outOfSample", nlohmann::json::array()},
                               {"logit", nlohmann::json::array()}};
    for (const CscvSplit& s : r.splits) {
        perSplit["winner"].push_back(m.trials[s.winner]);
        perSplit["inSample"].push_back(s.inSample);
        perSplit["outOfSample"].push_back(s.outOfSample);
        perSplit["logit"].push_back(s.logit);
    }
    const CscvDominance& d = r.dominance;
    nlohmann::json j = {{"method", "CSCV"},
                        {"statistic", "sharpe"},
                        {"blocks", r.blocks},
                        {"trials", r.trials},
                        {"trialNumbers", m.trials},
                        {"bars", r.bars},
                        {"firstBar", formatBarTime(m.time.front())},
                        {"lastBar", formatBarTime(m.time.back())},
                        {"barsPerBlock", r.minBlockBars},
                        {"splits", r.splits.size()},
                        {"pbo", r.pbo},
                        {"degradation",
                         {{"slope", finiteOrNull(r.slope)},
                          {"intercept", finiteOrNull(r.intercept)},
                          {"rSquared", finiteOrNull(r.rSquared)}}},
                        {"probabilityOfLoss", r.probabilityOfLoss},
                        {"dominance",
                         {{"firstOrder", d.firstOrder},
                          {"firstOrderGap", d.firstOrderGap},
                          {"secondOrder", d.secondOrder},
                          {"secondOrderMin", d.secondOrderMin},
                          {"area", d.area}}},
                        {"perSplit", std::move(perSplit)}};
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "PBO %.3f: in %.1f %% of the %zu splits the trial best in sample ranked at or "
                  "below the median trial out of sample (0.5 or more: picking the best trial is "
                  "no better than picking one at random)",
                  r.pbo, 100.0 * r.pbo, r.splits.size());
    j["meaning"] = buf;
    return j;
}

std::string sweepOverfittingText(const nlohmann::json& j) {
    if (j.is_null()) return "";
    std::string out =
        "probability of backtest overfitting (CSCV, Bailey et al. 2016; docs/overfitting.md):\n";
    char buf[512];
    if (j.contains("refused")) {
        std::snprintf(buf, sizeof buf, "  not computed: %s\n",
                      j["refused"].get<std::string>().c_str());
        return out + buf;
    }
    std::snprintf(buf, sizeof buf,
                  "  %zu trials' returns on the %zu bars they share (%s .. %s), S = %d blocks of "
                  "%zu+ bars, %zu splits; statistic: Sharpe per bar\n",
                  j["trials"].get<size_t>(), j["bars"].get<size_t>(),
                  j["firstBar"].get<std::string>().c_str(), j["lastBar"].get<std::string>().c_str(),
                  j["blocks"].get<int>(), j["barsPerBlock"].get<size_t>(),
                  j["splits"].get<size_t>());
    out += buf;
    out += "  " + j["meaning"].get<std::string>() + "\n";
    const nlohmann::json& g = j["degradation"];
    const bool falls = g["slope"].is_number() && g["slope"].get<double>() < 0;
    out += "  degradation: out-of-sample Sharpe = " + figure(g["intercept"], "%.4g") +
           (falls ? " - " + figure(-g["slope"].get<double>(), "%.4g")
                  : " + " + figure(g["slope"], "%.4g")) +
           " x in-sample Sharpe (R² " + figure(g["rSquared"], "%.3f") + ")\n";
    std::snprintf(buf, sizeof buf,
                  "  probability of loss %.3f (the winner's out-of-sample Sharpe below 0)\n",
                  j["probabilityOfLoss"].get<double>());
    out += buf;
    const nlohmann::json& d = j["dominance"];
    std::snprintf(buf, sizeof buf,
                  "  stochastic dominance of the winners over all trials out of sample: first "
                  "order %s (largest gap %.3f), second order %s (lowest SD2 %.4g), area %.4g\n",
                  d["firstOrder"].get<bool>() ? "holds" : "does not hold",
                  d["firstOrderGap"].get<double>(),
                  d["secondOrder"].get<bool>() ? "holds" : "does not hold",
                  d["secondOrderMin"].get<double>(), d["area"].get<double>());
    out += buf;
    return out;
}

}  // namespace nnwb
