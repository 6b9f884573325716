// The ensemble walk-forward's summary (EnsembleWalkForward.h): the ensemble's stitched series
// against a single seed (member 1), the members' medians and the best member, with the
// ensemble traded at several agreement thresholds.
#include <algorithm>
#include <cstdio>

#include "app/ensemble/EnsembleWalkForward.h"
#include "model/FigureText.h"
#include "model/trading/TradingEvaluation.h"

namespace nnwb {

namespace {

using json = nlohmann::json;

// Task and trading figures of a stitched series (trading null when it cannot be traded).
json figures(const WalkForwardResult& w, const BarSeries& bars, const TradingSettings& settings) {
    const EpochMetrics& m = w.stitched;
    json j = {{"samples", m.samples},  {"loss", m.loss},           {"accuracy", m.accuracyPct},
              {"missed", m.missedPct}, {"signals", m.signalCount}, {"patterns", m.patterns},
              {"trading", nullptr}};
    if (w.outOfSample.empty()) return j;
    try {
        const TradingReport t = evaluateTrading(bars, w.outOfSample, settings);
        auto f = [](const TradingFigures& x) {
            return json{{"trades", x.trades},    {"netPoints", x.netPoints},
                        {"winRate", x.winRate},  {"profitFactor", x.profitFactor},
                        {"sharpe", x.sharpe},    {"maxDrawdownPoints", x.maxDrawdownPoints},
                        {"exposure", x.exposure}};
        };
        j["trading"] = f(t.strategy);
        j["buyAndHold"] = f(t.buyAndHold);
        j["random"] = f(t.random);
    } catch (const TradingInputError& e) {
        j["trading"] = {{"error", e.what()}};
    }
    return j;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Each figure's median over the members (trading figures of the members that traded).
json medians(const std::vector<json>& members) {
    json out;
    for (const char* k : {"loss", "accuracy", "missed", "signals"}) {
        std::vector<double> v;
        for (const json& m : members) v.push_back(m[k].get<double>());
        out[k] = median(v);
    }
    json trading;
    for (const char* k : {"trades", "netPoints", "winRate", "profitFactor", "sharpe"}) {
        std::vector<double> v;
        for (const json& m : members)
            if (m["trading"].is_object() && m["trading"].contains(k))
                v.push_back(m["trading"][k].get<double>());
        if (!v.empty()) trading[k] = median(v);
    }
    out["trading"] = trading.is_null() ? json(nullptr) : trading;
    return out;
}

}  // namespace

const std::vector<double>& ensembleAgreementGrid() {
    static const std::vector<double> grid = {0.5, 0.75, 0.9, 1.0};
    return grid;
}

json ensembleWalkForwardJson(const EnsembleWalkForwardResult& r, const BarSeries& bars,
                             const TradingSettings& settings) {
    json j;
    const SignalSeries& s = r.ensemble.outOfSample;
    double sum = 0;
    for (size_t k = 0; k < s.size(); ++k) sum += s.agreementAt(k);
    j["members"] = r.members.size();
    j["meanAgreement"] = s.empty() ? json(nullptr) : json(sum / double(s.size()));
    j["minAgreement"] = settings.minAgreement;
    j["ensemble"] = figures(r.ensemble, bars, settings);
    json by = json::array();
    for (double a : ensembleAgreementGrid()) {
        TradingSettings t = settings;
        t.minAgreement = a;
        by.push_back({{"minAgreement", a}, {"trading", figures(r.ensemble, bars, t)["trading"]}});
    }
    j["byAgreement"] = by;
    std::vector<json> members;
    size_t best = 0;
    for (size_t m = 0; m < r.members.size(); ++m) {
        json f = figures(r.members[m], bars, settings);
        f["member"] = m + 1;
        f["seed"] = r.memberExperiments.at(m).training.seed;
        members.push_back(f);
        if (f["loss"].get<double>() < members[best]["loss"].get<double>()) best = m;
    }
    if (members.empty()) return j;
    j["singleSeed"] = members.front();
    j["medianOfMembers"] = medians(members);
    j["bestMember"] = members[best];
    j["memberFigures"] = members;
    return j;
}

const std::vector<std::string>& ensembleSummaryColumns() {
    static const std::vector<std::string> columns = {
        "", "loss", "acc %", "miss %", "signals", "trades", "net points", "win %", "PF"};
    return columns;
}

namespace {

// One row: the task figures of `f` (loss, accuracy, missed, signals) and its trading.
EnsembleSummaryRow summaryRow(const std::string& label, const json& f) {
    const json& t = f.value("trading", json());
    const bool traded = t.is_object() && t.contains("trades");
    auto cell = [](const json& from, bool has, const char* k, const char* fmt) {
        char b[32] = "-";
        if (has && from.contains(k) && from[k].is_number())
            std::snprintf(b, sizeof b, fmt, from[k].get<double>());
        return std::string(b);
    };
    // An accuracy of fewer than kMinSignalsForAccuracy signals reads n/a (FigureText.h).
    const bool few = f.contains("signals") && f["signals"].is_number() &&
                     !accuracyShown(size_t(f["signals"].get<double>()));
    return {label,
            {cell(f, true, "loss", "%.6f"), few ? "n/a" : cell(f, true, "accuracy", "%.2f"),
             cell(f, true, "missed", "%.2f"), cell(f, true, "signals", "%.0f"),
             cell(t, traded, "trades", "%.0f"), cell(t, traded, "netPoints", "%.0f"),
             cell(t, traded, "winRate", "%.2f"), cell(t, traded, "profitFactor", "%.2f")}};
}

}  // namespace

std::vector<EnsembleSummaryRow> ensembleWalkForwardRows(const json& s) {
    std::vector<EnsembleSummaryRow> rows;
    rows.push_back(summaryRow("ensemble of " + s["members"].dump(), s["ensemble"]));
    char buf[64];
    for (const json& a : s["byAgreement"]) {
        std::snprintf(buf, sizeof buf, "  minAgreement %.2f", a["minAgreement"].get<double>());
        rows.push_back(summaryRow(buf, {{"trading", a["trading"]}}));
    }
    if (!s.contains("singleSeed")) return rows;
    rows.push_back(summaryRow("single seed (member 1)", s["singleSeed"]));
    rows.push_back(summaryRow("median of the members", s["medianOfMembers"]));
    rows.push_back(summaryRow("best member " + s["bestMember"]["member"].dump() + " (by loss)",
                              s["bestMember"]));
    rows.push_back(
        summaryRow("buy & hold", {{"trading", s["ensemble"].value("buyAndHold", json())}}));
    rows.push_back(
        summaryRow("random (mean)", {{"trading", s["ensemble"].value("random", json())}}));
    return rows;
}

std::string ensembleWalkForwardText(const json& s) {
    std::string out = "\nthe ensemble against its members, out of sample (stitched folds):\n";
    char buf[256];
    auto line = [&](const std::string& label, const std::vector<std::string>& c) {
        std::snprintf(buf, sizeof buf, "%-28s %9s %8s %8s %7s %7s %11s %8s %6s\n", label.c_str(),
                      c[0].c_str(), c[1].c_str(), c[2].c_str(), c[3].c_str(), c[4].c_str(),
                      c[5].c_str(), c[6].c_str(), c[7].c_str());
        out += buf;
    };
    const std::vector<std::string>& titles = ensembleSummaryColumns();
    line(titles[0], {titles.begin() + 1, titles.end()});
    for (const EnsembleSummaryRow& r : ensembleWalkForwardRows(s)) line(r.label, r.cells);
    return out;
}

}  // namespace nnwb
