#include "app/engine/CpcvFigures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/FigureText.h"
#include "model/trading/TradingEvaluation.h"

namespace nnwb {

namespace {

double ifTraded(const CpcvPathFigures& p, double TradingFigures::*figure) {
    return p.traded ? p.trading.*figure : kNotAvailable;
}

std::string number(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

}  // namespace

const std::vector<CpcvFigure>& cpcvFigures() {
    static const std::vector<CpcvFigure> kFigures{
        {"loss", "loss", [](const CpcvPathFigures& p) { return p.loss; }},
        {"accuracyPct", "accuracy %", [](const CpcvPathFigures& p) { return p.accuracy; }},
        {"missedPct", "missed %", [](const CpcvPathFigures& p) { return p.missed; }},
        {"trades", "trades",
         [](const CpcvPathFigures& p) { return ifTraded(p, &TradingFigures::trades); }},
        {"netPoints", "net points",
         [](const CpcvPathFigures& p) { return ifTraded(p, &TradingFigures::netPoints); }},
        {"sharpe", "Sharpe (per bar)",
         [](const CpcvPathFigures& p) { return ifTraded(p, &TradingFigures::sharpe); }},
        {"sharpeAnnual", "Sharpe (annual)",
         [](const CpcvPathFigures& p) { return ifTraded(p, &TradingFigures::sharpeAnnual); }},
        {"maxDrawdownPoints", "max drawdown points",
         [](const CpcvPathFigures& p) { return ifTraded(p, &TradingFigures::maxDrawdownPoints); }},
    };
    return kFigures;
}

const CpcvFigure* cpcvFigure(const std::string& key) {
    for (const CpcvFigure& f : cpcvFigures())
        if (key == f.key) return &f;
    return nullptr;
}

std::vector<double> CpcvEvaluation::values(const CpcvFigure& figure) const {
    std::vector<double> v;
    for (const CpcvPathFigures& p : paths) v.push_back(figure.of(p));
    return v;
}

PathDistribution CpcvEvaluation::distribution(const CpcvFigure& figure) const {
    return describePaths(values(figure));
}

CpcvEvaluation evaluateCpcvPaths(const CpcvResult& result, const BarSeries& bars,
                                 const TradingSettings& trading) {
    CpcvEvaluation out;
    for (const CpcvPath& path : result.paths) {
        CpcvPathFigures f;
        f.loss = path.metrics.loss;
        f.accuracy =
            accuracyShown(path.metrics.signalCount) ? path.metrics.accuracyPct : kNotAvailable;
        f.missed = path.metrics.missedPct;
        try {
            TradingReport report = evaluateTrading(bars, path.outOfSample, trading);
            f.trading = report.strategy;
            f.equity = std::move(report.equity);
            f.traded = true;
        } catch (const TradingInputError& e) {
            out.tradingError = e.what();
        }
        out.paths.push_back(std::move(f));
    }
    return out;
}

std::string cpcvVerdict(const CpcvEvaluation& evaluation) {
    const size_t n = evaluation.paths.size();
    if (n == 0) return {};
    size_t traded = 0, winning = 0, losing = 0;
    for (const CpcvPathFigures& p : evaluation.paths) {
        if (!p.traded || !(p.trading.trades > 0)) continue;
        ++traded;
        winning += p.trading.netPoints > 0;
        losing += p.trading.netPoints < 0;
    }
    const std::string of = std::to_string(n) + (n == 1 ? " path" : " paths");
    if (traded == 0) return "No path traded (" + of + "): the distribution has no trading figures.";
    const PathDistribution s = evaluation.distribution(*cpcvFigure("sharpe"));
    const std::string range = "Sharpe per bar " + number(s.min) + " .. " + number(s.max) +
                              ", median " + number(s.median) + ", lower decile " + number(s.q10);
    if (winning == 0)
        return (losing == n ? "All " + of + " lose money" : "No path of " + of + " makes money") +
               " (" + range +
               "): no choice of training groups gives the model an edge after costs.";
    if (winning == n)
        return "All " + of + " make money (" + range + "): " +
               (s.count == n && s.q10 > 0
                    ? "the edge does not depend on which groups trained the model."
                    : "yet the lower decile of the Sharpe ratio is not above zero.");
    return std::to_string(winning) + " of " + of + (winning == 1 ? " makes" : " make") +
           " money (" + range +
           "): whether the model pays depends on which groups trained it; no dependable edge.";
}

}  // namespace nnwb
