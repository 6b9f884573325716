// The figures of a series of trades and its equity (TradingEvaluation.h: tradingFigures).
#include <algorithm>
#include <cmath>
#include <limits>

#include "model/trading/TradingEvaluation.h"

namespace nnwb {

const char* exitReasonName(ExitReason r) {
    switch (r) {
        case ExitReason::Opposite:
            return "opposite";
        case ExitReason::Time:
            return "time";
        case ExitReason::Stop:
            return "stop";
        case ExitReason::Take:
            return "take";
        case ExitReason::End:
            return "end";
    }
    return "end";
}

namespace {

double maxDrawdown(const std::vector<double>& equity) {
    double peak = 0, worst = 0;
    for (double e : equity) {
        peak = std::max(peak, e);
        worst = std::max(worst, peak - e);
    }
    return worst;
}

// Sharpe and Sortino of the per-bar returns of the % equity. A deviation within rounding of
// zero (1e-10 of the largest equity or return: what differencing the cumulative % equity
// leaves of a constant return) counts as none.
void ratios(const std::vector<double>& pct, TradingFigures& f) {
    const size_t n = pct.size() < 2 ? 0 : pct.size() - 1;
    f.returns = double(n);
    if (n < 2) return;
    double sum = 0;
    for (size_t i = 1; i < pct.size(); ++i) sum += pct[i] - pct[i - 1];
    const double mean = sum / double(n);
    double sq = 0, down = 0;
    for (size_t i = 1; i < pct.size(); ++i) {
        const double r = pct[i] - pct[i - 1];
        sq += (r - mean) * (r - mean);
        down += std::min(r, 0.0) * std::min(r, 0.0);
    }
    double scale = 0;
    for (size_t i = 0; i < pct.size(); ++i) {
        scale = std::max(scale, std::fabs(pct[i]));
        if (i > 0) scale = std::max(scale, std::fabs(pct[i] - pct[i - 1]));
    }
    if (std::sqrt(sq / double(n)) <= 1e-10 * scale) return;  // no deviation
    const double sd = std::sqrt(sq / double(n - 1));
    const double dd = std::sqrt(down / double(n));
    if (sd > 0) f.sharpe = mean / sd;
    if (dd > 0) f.sortino = mean / dd;
    // Skewness and (non-excess) kurtosis from the central moments.
    double m3 = 0, m4 = 0;
    for (size_t i = 1; i < pct.size(); ++i) {
        const double d = pct[i] - pct[i - 1] - mean;
        m3 += d * d * d;
        m4 += d * d * d * d;
    }
    const double m2 = sq / double(n);
    if (m2 > 0) {
        f.skewness = (m3 / double(n)) / std::pow(m2, 1.5);
        f.kurtosis = (m4 / double(n)) / (m2 * m2);
    }
}

}  // namespace

double profitFactorOf(double won, double lost) {
    if (lost > 0) return won / lost;
    return won > 0 ? std::numeric_limits<double>::infinity() : kNotAvailable;
}

TradingFigures tradingFigures(const std::vector<Trade>& trades, const TradingEquity& equity,
                              double barsPerYear) {
    TradingFigures f;
    f.trades = double(trades.size());
    double won = 0, lost = 0, wins = 0, held = 0;
    for (const Trade& t : trades) {
        f.netPoints += t.net;
        f.netPct += t.netPct;
        held += double(t.bars);
        if (t.net > 0) ++wins, won += t.net;
        if (t.net < 0) lost -= t.net;
    }
    f.profitFactor = profitFactorOf(won, lost);
    f.maxDrawdownPoints = maxDrawdown(equity.points);
    f.maxDrawdownPct = maxDrawdown(equity.pct);
    ratios(equity.pct, f);
    const double annual = std::sqrt(std::max(barsPerYear, 0.0));
    f.sharpeAnnual = f.sharpe * annual;
    f.sortinoAnnual = f.sortino * annual;
    if (!trades.empty()) {
        f.winRate = wins / f.trades * 100;
        f.perTradePoints = f.netPoints / f.trades;
        f.perTradePct = f.netPct / f.trades;
    } else {  // figures of trades that do not exist: n/a
        for (double TradingFigures::*m :
             {&TradingFigures::winRate, &TradingFigures::perTradePoints,
              &TradingFigures::perTradePct, &TradingFigures::sharpe, &TradingFigures::sortino,
              &TradingFigures::sharpeAnnual, &TradingFigures::sortinoAnnual})
            f.*m = kNotAvailable;
    }
    if (!equity.bar.empty()) f.exposure = held / double(equity.bar.size()) * 100;
    return f;
}

}  // namespace nnwb
