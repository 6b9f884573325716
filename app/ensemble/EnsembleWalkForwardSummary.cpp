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

std::string ensembleWalkForwardText(const json& s) {
    std::string out = "\nthe ensemble against its members, out of sample (stitched folds):\n";
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-28s %9s %8s %8s %7s %7s %11s %8s %6s\n", "", "loss", "acc %",
                  "miss %", "signals", "trades", "net points", "win %", "PF");
    out += buf;
    auto row = [&](const std::string& label, const json& f) {
        const json& t = f.value("trading", json());
        const bool traded = t.is_object() && t.contains("trades");
        auto num = [&](const char* k, const char* fmt) {
            char b[32] = "-";
            if (traded && t[k].is_number()) std::snprintf(b, sizeof b, fmt, t[k].get<double>());
            return std::string(b);
        };
        auto task = [&](const char* k, const char* fmt) {
            char b[32] = "-";
            if (f.contains(k) && f[k].is_number())
                std::snprintf(b, sizeof b, fmt, f[k].get<double>());
            return std::string(b);
        };
        // An accuracy of fewer than kMinSignalsForAccuracy signals reads n/a (FigureText.h).
        const bool few = f.contains("signals") && f["signals"].is_number() &&
                         !accuracyShown(size_t(f["signals"].get<double>()));
        std::snprintf(buf, sizeof buf, "%-28s %9s %8s %8s %7s %7s %11s %8s %6s\n", label.c_str(),
                      task("loss", "%.6f").c_str(), few ? "n/a" : task("accuracy", "%.2f").c_str(),
                      task("missed", "%.2f").c_str(), task("signals", "%.0f").c_str(),
                      num("trades", "%.0f").c_str(), num("netPoints", "%.0f").c_str(),
                      num("winRate", "%.2f").c_str(), num("profitFactor", "%.2f").c_str());
        out += buf;
    };
    row("ensemble of " + s["members"].dump(), s["ensemble"]);
    for (const json& a : s["byAgreement"]) {
        std::snprintf(buf, sizeof buf, "  minAgreement %.2f", a["minAgreement"].get<double>());
        row(buf, {{"trading", a["trading"]}});
    }
    if (s.contains("singleSeed")) {
        row("single seed (member 1)", s["singleSeed"]);
        row("median of the members", s["medianOfMembers"]);
        row("best member " + s["bestMember"]["member"].dump() + " (by loss)", s["bestMember"]);
        row("buy & hold", {{"trading", s["ensemble"].value("buyAndHold", json())}});
        row("random (mean)", {{"trading", s["ensemble"].value("random", json())}});
    }
    return out;
}

}  // namespace nnwb
