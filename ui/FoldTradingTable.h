// The Trading tab's per-fold table of a walk-forward: a row per fold with its test period and
// the trading figures of its part of the stitched series (model/trading/FoldTrading.h): trades,
// net points, profit factor, annualised Sharpe, maximum drawdown in points. GUI thread only.
#pragma once

#include <vector>

#include <QStringList>
#include <QTableWidget>

namespace nnwb {

struct TradingFigures;

class FoldTradingTable : public QTableWidget {
    Q_OBJECT
public:
    explicit FoldTradingTable(QWidget* parent = nullptr);
    // One row per fold: `names[k]` ("3/6"), `periods[k]` ("2019-01-02 .. 2019-06-28") and
    // `figures[k]`.
    void setFolds(const QStringList& names, const QStringList& periods,
                  const std::vector<TradingFigures>& figures);
};

}  // namespace nnwb
