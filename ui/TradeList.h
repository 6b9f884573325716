// The Trading tab's trade list: one row per trade (number, direction, entry and exit time,
// bars held, exit reason, net points, net % of the entry price), sortable by any column (numbers
// as numbers); a click on a row asks to show that trade on the price chart. GUI thread only.
#pragma once

#include <cstddef>
#include <vector>

#include <QTableWidget>

namespace nnwb {

struct Trade;

class TradeList : public QTableWidget {
    Q_OBJECT
public:
    enum Column { Number, Direction, Entry, Exit, Bars, Reason, NetPoints, NetPct, Columns };
    explicit TradeList(QWidget* parent = nullptr);
    void setTrades(const std::vector<Trade>& trades);
    // The trade number (1-based, in time order) shown in row `row`.
    int tradeNumberAt(int row) const;

Q_SIGNALS:
    // A row was clicked: the trade's entry and exit bars.
    void tradeClicked(qulonglong entryBar, qulonglong exitBar);
};

}  // namespace nnwb
