#include "app/engine/CpcvTrialResult.h"

#include <cmath>
#include <map>

#include "app/runs/RunReturns.h"
#include "model/trading/TradingReportText.h"

namespace nnwb {

using nlohmann::json;

namespace {

// Every path's figures by key (n/a: NaN): the strategy's and the task figures.
std::map<std::string, std::vector<double>> figuresByKey(const CpcvEvaluation& e) {
    std::map<std::string, std::vector<double>> out;
    const json keys = tradingFiguresJson(TradingFigures());
    for (const CpcvPathFigures& p : e.paths) {
        const json f = tradingFiguresJson(p.trading);
        for (auto it = keys.begin(); it != keys.end(); ++it) {
            const std::optional<double> v =
                p.traded ? tradingFigureFromJson(f, it.key()) : std::nullopt;
            out[it.key()].push_back(v ? *v : kNotAvailable);
        }
        out["loss"].push_back(p.loss);  // the trial protocol's keys (one per metric)
        out["accuracy"].push_back(p.accuracy);
        out["missed"].push_back(p.missed);
    }
    return out;
}

json number(std::optional<double> v) {
    return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

// The per-bar mean of the paths' % equity; empty unless every path traded over the same bars.
TradingEquity meanEquity(const CpcvEvaluation& e) {
    TradingEquity mean;
    if (e.paths.empty()) return mean;
    for (const CpcvPathFigures& p : e.paths)
        if (!p.traded || p.equity.bar != e.paths.front().equity.bar) return mean;
    mean = e.paths.front().equity;
    for (size_t i = 0; i < mean.pct.size(); ++i) {
        double pct = 0, points = 0;
        for (const CpcvPathFigures& p : e.paths)
            pct += p.equity.pct[i], points += p.equity.points[i];
        mean.pct[i] = pct / double(e.paths.size());
        mean.points[i] = points / double(e.paths.size());
    }
    return mean;
}

}  // namespace

const std::vector<std::string>& cpcvPathStatistics() {
    static const std::vector<std::string> kNames{"mean", "median", "q10", "min", "max"};
    return kNames;
}

std::optional<double> pathStatistic(const PathDistribution& d, const std::string& name) {
    if (d.count == 0) return std::nullopt;
    if (name == "mean") return d.mean;
    if (name == "median") return d.median;
    if (name == "q10") return d.q10;
    if (name == "min") return d.min;
    if (name == "max") return d.max;
    return std::nullopt;
}

json cpcvTrialTrading(const CpcvEvaluation& evaluation, const TradingSettings& settings) {
    bool any = false;
    for (const CpcvPathFigures& p : evaluation.paths) any = any || p.traded;
    if (!any)
        return {{"error", evaluation.tradingError.empty() ? std::string("no paths to trade")
                                                          : evaluation.tradingError}};
    json stats = json::object(), strategy = json::object();
    for (const auto& [key, values] : figuresByKey(evaluation)) {
        const PathDistribution d = describePaths(values);
        for (const std::string& s : cpcvPathStatistics())
            stats[s][key] = number(pathStatistic(d, s));
        if (key != "loss" && key != "accuracy" && key != "missed")
            strategy[key] = number(pathStatistic(d, "mean"));
    }
    json j = {{"part", "cpcvPaths"},
              {"paths", evaluation.paths.size()},
              {"strategy", strategy},
              {"pathStatistics", stats},
              {"settings", settings.toJson()}};
    const TradingEquity mean = meanEquity(evaluation);
    if (!mean.bar.empty()) {
        j["range"] = {{"firstBar", mean.bar.front()},
                      {"lastBar", mean.bar.back()},
                      {"bars", mean.bar.back() - mean.bar.front() + 1}};
        j["returnSeries"] = returnSeriesJson(mean);  // RunStore keeps it apart
    }
    return j;
}

EpochMetrics cpcvTrialOutOfSample(const CpcvResult& result, const CpcvEvaluation& evaluation) {
    EpochMetrics m;
    if (result.paths.empty()) return m;
    m = result.paths.front().metrics;
    const auto mean = [&](const CpcvFigure& f) {
        const PathDistribution d = evaluation.distribution(f);
        return d.count ? d.mean : kNotAvailable;
    };
    m.loss = mean(*cpcvFigure("loss"));
    m.accuracyPct = mean(*cpcvFigure("accuracyPct"));
    m.missedPct = mean(*cpcvFigure("missedPct"));
    return m;
}

}  // namespace nnwb
