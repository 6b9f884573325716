#include "model/trading/Verdict.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/FigureText.h"

namespace nnwb {

std::string groupedNumber(double v) {
    if (std::isnan(v)) return "n/a";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    if (std::fabs(v) < 100) {
        std::snprintf(buf, sizeof buf, "%.1f", v);
        std::string s = buf;
        if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
        return s == "-0" ? "0" : s;
    }
    // Rounded to nearest, ties to even (as "%.0f" does), then FigureText's grouping.
    if (std::fabs(v) < 9.0e18) return groupedCount(static_cast<int64_t>(std::nearbyint(v)));
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

VerdictFigures verdictFigures(const TradingReport& r) {
    VerdictFigures f;
    f.trades = r.strategy.trades;
    f.netPoints = r.strategy.netPoints;
    f.buyAndHoldPoints = r.buyAndHold.trades > 0 ? r.buyAndHold.netPoints : kNotAvailable;
    f.randomShare = r.randomDraws > 0 ? r.randomNetAtOrAbove : kNotAvailable;
    f.randomDraws = r.randomDraws;
    return f;
}

namespace {

std::string made(double points) {
    return (points < 0 ? "lost " : "made ") + groupedNumber(std::fabs(points));
}

std::string opening(const VerdictFigures& f) {
    if (f.folds > 0)
        return "Out of sample (" + std::to_string(f.folds) + (f.folds == 1 ? " fold" : " folds") +
               ") the strategy ";
    return "Over the evaluated range the strategy ";
}

}  // namespace

std::string tradingVerdict(const VerdictFigures& f) {
    const double trades = std::isfinite(f.trades) ? f.trades : 0;
    if (trades < 1) return opening(f) + "made no trades: nothing to judge.";
    std::string s = opening(f) + made(f.netPoints) + " points after costs over " +
                    groupedNumber(trades) + (trades == 1 ? " trade" : " trades");
    const bool hasHold = std::isfinite(f.buyAndHoldPoints);
    if (hasHold) s += "; buy and hold " + made(f.buyAndHoldPoints);
    const bool hasRandom = f.randomDraws > 0 && std::isfinite(f.randomShare);
    char share[48] = "";
    if (hasRandom)
        std::snprintf(share, sizeof share, "; %.0f %% of random entries did as well",
                      f.randomShare * 100);
    s += share;
    if (trades < kVerdictMinTrades) return s + ": too few trades to judge.";
    if (!(f.netPoints > 0)) return s + ": no evidence of an edge.";
    if (hasHold && f.netPoints <= f.buyAndHoldPoints)
        return s + ": no evidence of an edge over buy and hold.";
    if (!hasRandom) return s + ": no random baseline, so chance cannot be ruled out.";
    if (f.randomShare > kVerdictRandomShare) return s + ": no evidence of an edge over chance.";
    if (std::isfinite(f.deflatedSharpe) && f.deflatedSharpe < kVerdictDeflatedSharpe) {
        char dsr[96];
        std::snprintf(dsr, sizeof dsr,
                      "; deflated Sharpe %.2f: no evidence of an edge after the trials tried.",
                      f.deflatedSharpe);
        return s + dsr;
    }
    if (std::isfinite(f.deflatedSharpe)) {
        char dsr[48];
        std::snprintf(dsr, sizeof dsr, "; deflated Sharpe %.2f", f.deflatedSharpe);
        s += dsr;
    }
    return s + ": evidence of an edge over this period (not proof that it lasts).";
}

}  // namespace nnwb
