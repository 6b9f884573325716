#include "model/trading/FoldTrading.h"

#include <algorithm>

#include "model/trading/TradingEvaluation.h"

namespace nnwb {

std::vector<TradingFigures> foldTradingFigures(const TradingReport& r,
                                               const std::vector<FoldBars>& folds) {
    std::vector<TradingFigures> out;
    const TradingEquity& e = r.equity;
    for (const FoldBars& f : folds) {
        std::vector<Trade> trades;
        for (const Trade& t : r.trades)
            if (t.signalBar >= f.first && t.signalBar <= f.last) trades.push_back(t);
        const size_t from =
            size_t(std::lower_bound(e.bar.begin(), e.bar.end(), f.first) - e.bar.begin());
        const size_t to =
            size_t(std::upper_bound(e.bar.begin(), e.bar.end(), f.last) - e.bar.begin());
        TradingEquity part;
        const double points0 = from > 0 && from <= to ? e.points[from - 1] : 0.0;
        const double pct0 = from > 0 && from <= to ? e.pct[from - 1] : 0.0;
        for (size_t i = from; i < to; ++i) {
            part.bar.push_back(e.bar[i]);
            part.time.push_back(e.time[i]);
            part.position.push_back(e.position[i]);
            part.points.push_back(e.points[i] - points0);
            part.pct.push_back(e.pct[i] - pct0);
        }
        out.push_back(tradingFigures(trades, part, r.barsPerYear));
    }
    return out;
}

}  // namespace nnwb
