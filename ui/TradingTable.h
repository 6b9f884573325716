// The trading figures of the shown signals as a table: one row each for the strategy, a
// buy-and-hold over the same bars and the random-signal baseline with the same trade count
// (model/trading/TradingReport.h; definitions in docs/trading.md). GUI thread only.
#pragma once

#include <QTableWidget>

namespace nnwb {

struct TradingReport;

class TradingTable : public QTableWidget {
    Q_OBJECT
public:
    explicit TradingTable(QWidget* parent = nullptr);
    // Shows `report`'s figures; null empties the rows.
    void setReport(const TradingReport* report);
    // The text of row `row` (0 strategy, 1 buy and hold, 2 random) in column `column`.
    QString cell(int row, int column) const;
};

}  // namespace nnwb
