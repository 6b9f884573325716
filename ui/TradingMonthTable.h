// The Trading tab's monthly returns heatmap: a year per row, January..December and the year's
// total as columns, each cell the equity's change over that month in points after costs
// (model/trading/MonthlyReturns.h), shaded green for a gain and red for a loss in proportion to
// the largest month; empty where the range has no bar. GUI thread only.
#pragma once

#include <QTableWidget>

namespace nnwb {

struct MonthlyReturns;

class TradingMonthTable : public QTableWidget {
    Q_OBJECT
public:
    explicit TradingMonthTable(QWidget* parent = nullptr);
    void setMonths(const MonthlyReturns& m);
    // Every cell's figure is whole in its column (none cut at the tab's width).
    bool figuresFit() const;
};

}  // namespace nnwb
