#include "app/sweep/SweepDeflatedSharpe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "model/trading/DeflatedSharpe.h"

namespace nnwb {

namespace {

struct DsrTrial {
    const TrialRow* row = nullptr;
    const nlohmann::json* strategy = nullptr;
    double barsPerYear = 0;
};

double dsrFigure(const nlohmann::json& f, const char* key) {
    const auto it = f.find(key);
    return it != f.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

nlohmann::json sweepDeflatedSharpe(const std::vector<TrialRow>& trials,
                                   const std::map<int64_t, nlohmann::json>& tradingOfRun) {
    std::vector<DsrTrial> traded;
    for (const TrialRow& t : trials) {
        if (t.state != sweep::TrialState::Complete && t.state != sweep::TrialState::Pruned)
            continue;
        const auto it = tradingOfRun.find(t.runId);
        if (t.runId == 0 || it == tradingOfRun.end() || !it->second.is_object() ||
            !it->second.contains("strategy") || !it->second["strategy"].is_object())
            continue;
        DsrTrial d;
        d.row = &t;
        d.strategy = &it->second["strategy"];
        if (it->second.contains("range") && it->second["range"].is_object())
            d.barsPerYear = dsrFigure(it->second["range"], "barsPerYear");
        traded.push_back(d);
    }
    if (traded.empty()) return nullptr;
    std::vector<double> sharpes;
    size_t best = 0;
    for (size_t i = 0; i < traded.size(); ++i) {
        sharpes.push_back(dsrFigure(*traded[i].strategy, "sharpe"));
        if (sharpes[i] > sharpes[best]) best = i;
    }
    const nlohmann::json& f = *traded[best].strategy;
    const double returns = dsrFigure(f, "returns"), skew = dsrFigure(f, "skewness"),
                 kurt = dsrFigure(f, "kurtosis");
    const DeflatedSharpe d = deflatedSharpe(sharpes, returns, skew, kurt);
    const double annual = std::sqrt(std::max(traded[best].barsPerYear, 0.0));
    nlohmann::json j = {{"trials", d.trials},
                        {"bestTrial", traded[best].row->number},
                        {"run", traded[best].row->runId},
                        {"sharpe", d.sharpe},
                        {"sharpeAnnual", dsrFigure(f, "sharpeAnnual")},
                        {"returns", returns},
                        {"skewness", skew},
                        {"kurtosis", kurt},
                        {"variance", d.variance},
                        {"expectedMaxSharpe", d.expectedMax},
                        {"expectedMaxSharpeAnnual", d.expectedMax * annual}};
    j["probability"] = std::isfinite(d.probability) ? nlohmann::json(d.probability) : nullptr;
    char buf[400];
    if (std::isfinite(d.probability))
        std::snprintf(buf, sizeof buf,
                      "DSR %.3f: the probability that trial %d's Sharpe is real skill rather than "
                      "the luck of taking the best of %zu trials (0.95 or more: significant at "
                      "the 5%% level)",
                      d.probability, traded[best].row->number, d.trials);
    else
        std::snprintf(buf, sizeof buf,
                      "DSR undefined: trial %d has too few returns (%.0f) or returns too skewed "
                      "for the formula",
                      traded[best].row->number, returns);
    j["meaning"] = buf;
    return j;
}

std::string sweepDeflatedSharpeText(const nlohmann::json& j) {
    if (j.is_null()) return "";
    char buf[512];
    std::string out = "deflated Sharpe ratio (Bailey & Lopez de Prado 2014; docs/sweeps.md):\n";
    std::snprintf(buf, sizeof buf,
                  "  best Sharpe %.4g per bar (%.3g annualised), trial %d, over %.0f returns "
                  "(skewness %.3g, kurtosis %.3g)\n",
                  j["sharpe"].get<double>(), j["sharpeAnnual"].get<double>(),
                  j["bestTrial"].get<int>(), j["returns"].get<double>(),
                  j["skewness"].get<double>(), j["kurtosis"].get<double>());
    out += buf;
    std::snprintf(buf, sizeof buf,
                  "  %d trials traded, variance of their Sharpe %.3g; expected maximum Sharpe "
                  "without skill %.4g per bar (%.3g annualised)\n",
                  j["trials"].get<int>(), j["variance"].get<double>(),
                  j["expectedMaxSharpe"].get<double>(), j["expectedMaxSharpeAnnual"].get<double>());
    out += buf;
    out += "  " + j["meaning"].get<std::string>() + "\n";
    return out;
}

}  // namespace nnwb
