#include "model/trading/TradingReportText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "model/data/DateTime.h"
#include "model/trading/MonthlyReturns.h"
#include "model/trading/Underwater.h"
#include "model/trading/Verdict.h"

namespace nnwb {

namespace {

struct FigureName {
    const char* key;
    const char* label;
    double TradingFigures::*member;
};

const FigureName kFigures[] = {
    {"trades", "trades", &TradingFigures::trades},
    {"winRate", "win rate %", &TradingFigures::winRate},
    {"profitFactor", "profit factor", &TradingFigures::profitFactor},
    {"netPoints", "net points", &TradingFigures::netPoints},
    {"netPct", "sum of trade returns, %", &TradingFigures::netPct},
    {"perTradePoints", "per trade points", &TradingFigures::perTradePoints},
    {"perTradePct", "per trade %", &TradingFigures::perTradePct},
    {"maxDrawdownPoints", "max drawdown points", &TradingFigures::maxDrawdownPoints},
    {"maxDrawdownPct", "drawdown of summed trade returns, %", &TradingFigures::maxDrawdownPct},
    {"sharpe", "Sharpe per bar", &TradingFigures::sharpe},
    {"sortino", "Sortino per bar", &TradingFigures::sortino},
    {"sharpeAnnual", "Sharpe annualised", &TradingFigures::sharpeAnnual},
    {"sortinoAnnual", "Sortino annualised", &TradingFigures::sortinoAnnual},
    {"exposure", "exposure %", &TradingFigures::exposure},
};

std::string cell(double v) {
    if (std::isnan(v)) return "n/a";
    if (std::isinf(v)) return "inf";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

}  // namespace

nlohmann::ordered_json tradingFiguresJson(const TradingFigures& f) {
    nlohmann::ordered_json j;
    for (const FigureName& n : kFigures) {
        const double v = f.*n.member;
        if (std::isfinite(v))
            j[n.key] = v;
        else
            j[n.key] = nullptr;
    }
    // The returns' count and shape (for the deflated Sharpe ratio); not in the text table.
    j["returns"] = f.returns;
    j["skewness"] = f.skewness;
    j["kurtosis"] = f.kurtosis;
    return j;
}

std::optional<double> tradingFigureFromJson(const nlohmann::json& series, const std::string& key) {
    if (!series.is_object()) return std::nullopt;
    const auto it = series.find(key);
    if (it == series.end()) return std::nullopt;
    if (it->is_number()) return it->get<double>();
    // A null profit factor with a trade won is infinite (none lost); else there is none.
    if (it->is_null() && key == "profitFactor") {
        const auto won = tradingFigureFromJson(series, "winRate");
        if (won && *won > 0) return std::numeric_limits<double>::infinity();
    }
    return std::nullopt;
}

TradingFigures tradingFiguresFromJson(const nlohmann::json& j) {
    TradingFigures f;
    if (!j.is_object()) return f;
    for (const FigureName& n : kFigures) {
        if (!j.contains(n.key)) continue;
        f.*n.member = tradingFigureFromJson(j, n.key).value_or(kNotAvailable);
    }
    f.returns = j.value("returns", 0.0);
    f.skewness = j.value("skewness", 0.0);
    f.kurtosis = j.value("kurtosis", 0.0);
    return f;
}

std::string tradingSpreadText(const TradingReport& r) {
    if (r.spreadFrom == "file") return "spread from the file";
    char buf[64];
    std::snprintf(buf, sizeof buf, "spread from the setting: %g points", r.spreadPoints);
    return buf;
}

namespace {

// The equity curves at the random band's bars (all bars up to kBandPoints): the underwater value
// at each is the lowest since the previous one, so the deepest fall is kept.
nlohmann::ordered_json tradingCurvesJson(const TradingReport& r) {
    const TradingEquity& e = r.equity;
    const std::vector<double> under = underwaterOf(e.points);
    const std::vector<size_t> at =
        r.randomBand.at.empty() ? bandIndices(e.bar.size()) : r.randomBand.at;
    nlohmann::ordered_json c;
    std::vector<std::string> time;
    std::vector<double> strategy, hold, low, high, deepest;
    size_t from = 0;
    for (size_t k = 0; k < at.size() && at[k] < e.bar.size(); ++k) {
        time.push_back(formatBarTime(e.time[at[k]]));
        strategy.push_back(e.points[at[k]]);
        hold.push_back(at[k] < r.buyAndHoldPoints.size() ? r.buyAndHoldPoints[at[k]] : 0.0);
        double d = 0;
        for (size_t i = from; i <= at[k]; ++i) d = std::min(d, under[i]);
        deepest.push_back(d);
        from = at[k] + 1;
        if (k < r.randomBand.low.size()) {
            low.push_back(r.randomBand.low[k]);
            high.push_back(r.randomBand.high[k]);
        }
    }
    c["time"] = time;
    c["strategy"] = strategy;
    c["buyAndHold"] = hold;
    c["randomLow"] = low;
    c["randomHigh"] = high;
    c["underwater"] = deepest;
    return c;
}

// [{year, month, points, pct}] of every month with a bar (MonthlyReturns.h).
nlohmann::ordered_json monthlyJson(const TradingReport& r) {
    const MonthlyReturns points = monthlyReturns(r.equity.time, r.equity.points);
    const MonthlyReturns pct = monthlyReturns(r.equity.time, r.equity.pct);
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (size_t y = 0; y < points.years.size(); ++y)
        for (size_t m = 0; m < 12; ++m)
            if (std::isfinite(points.months[y][m]))
                list.push_back({{"year", points.years[y]},
                                {"month", m + 1},
                                {"points", points.months[y][m]},
                                {"pct", pct.months[y][m]}});
    return list;
}

}  // namespace

nlohmann::ordered_json tradingReportJson(const TradingReport& r, bool trades) {
    nlohmann::ordered_json j;
    j["range"] = {{"firstBar", r.firstBar},
                  {"lastBar", r.lastBar},
                  {"bars", r.lastBar - r.firstBar + 1},
                  {"barsPerYear", r.barsPerYear}};
    j["point"] = r.point;
    j["spreadFrom"] = r.spreadFrom;
    if (r.spreadFrom != "file") j["spreadPoints"] = r.spreadPoints;
    if (!r.warnings.empty()) j["warnings"] = r.warnings;
    j["strategy"] = tradingFiguresJson(r.strategy);
    j["buyAndHold"] = tradingFiguresJson(r.buyAndHold);
    j["random"] = tradingFiguresJson(r.random);
    j["random"]["draws"] = r.randomDraws;
    if (std::isfinite(r.randomNetAtOrAbove))
        j["random"]["netAtOrAbove"] = r.randomNetAtOrAbove;
    else
        j["random"]["netAtOrAbove"] = nullptr;
    j["verdict"] = tradingVerdict(verdictFigures(r));
    if (trades) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const Trade& t : r.trades)
            list.push_back({{"direction", t.direction > 0 ? "long" : "short"},
                            {"entryTime", formatBarTime(t.entryTime)},
                            {"entryPrice", t.entryPrice},
                            {"exitTime", formatBarTime(t.exitTime)},
                            {"exitPrice", t.exitPrice},
                            {"exitReason", exitReasonName(t.exitReason)},
                            {"bars", t.bars},
                            {"net", t.net},
                            {"netPct", t.netPct}});
        j["trades"] = list;
        j["curves"] = tradingCurvesJson(r);
        j["monthly"] = monthlyJson(r);
    }
    return j;
}

std::string tradingReportText(const TradingReport& r) {
    char line[160];
    std::string out;
    std::snprintf(line, sizeof line, "%-36s %12s %12s %12s\n", "", "strategy", "buy & hold",
                  "random");
    out += line;
    for (const FigureName& n : kFigures) {
        std::snprintf(line, sizeof line, "%-36s %12s %12s %12s\n", n.label,
                      cell(r.strategy.*n.member).c_str(), cell(r.buyAndHold.*n.member).c_str(),
                      cell(r.random.*n.member).c_str());
        out += line;
    }
    char share[32] = "n/a (no strategy trades)";
    if (std::isfinite(r.randomNetAtOrAbove))
        std::snprintf(share, sizeof share, "%.0f%%", r.randomNetAtOrAbove * 100);
    std::snprintf(line, sizeof line,
                  "bars %zu..%zu (%zu), point %g, %s; random: mean of %d draws, %s of them net "
                  ">= the strategy\n",
                  r.firstBar, r.lastBar, r.lastBar - r.firstBar + 1, r.point,
                  tradingSpreadText(r).c_str(), r.randomDraws, share);
    out += line;
    for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
    out += "verdict: " + tradingVerdict(verdictFigures(r)) + "\n";
    return out;
}

}  // namespace nnwb
