#include "ui/TradingMonthTable.h"

#include <algorithm>
#include <cmath>

#include <QHeaderView>

#include "model/trading/MonthlyReturns.h"
#include "model/trading/Verdict.h"

namespace nnwb {

TradingMonthTable::TradingMonthTable(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("tradingMonthTable"));
    setColumnCount(13);
    QStringList cols;
    for (const char* m :
         {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"})
        cols << QString::fromLatin1(m);
    cols << tr("year");
    setHorizontalHeaderLabels(cols);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    horizontalHeader()->setMinimumSectionSize(30);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    setTextElideMode(Qt::ElideNone);
    setToolTip(
        tr("Net points after costs per month: the equity at the month's last bar less the "
           "equity at the previous month's last bar"));
}

void TradingMonthTable::setMonths(const MonthlyReturns& m) {
    setRowCount(int(m.years.size()));
    QStringList rows;
    double most = 0;
    for (const auto& y : m.months)
        for (double v : y)
            if (std::isfinite(v)) most = std::max(most, std::fabs(v));
    auto cell = [&](double v, bool shade) {
        auto* item = new QTableWidgetItem(
            std::isfinite(v) ? QString::fromStdString(groupedNumber(v)) : QString());
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (shade && std::isfinite(v) && most > 0) {
            const int a = int(40 + 160 * std::fabs(v) / most);
            item->setBackground(v < 0 ? QColor(214, 39, 40, a) : QColor(44, 160, 44, a));
        }
        return item;
    };
    for (size_t r = 0; r < m.years.size(); ++r) {
        rows << QString::number(m.years[r]);
        for (int c = 0; c < 12; ++c) setItem(int(r), c, cell(m.months[r][size_t(c)], true));
        QTableWidgetItem* total = cell(m.yearTotal[r], false);
        QFont f = total->font();
        f.setBold(true);
        total->setFont(f);
        setItem(int(r), 12, total);
    }
    setVerticalHeaderLabels(rows);
    // As tall as its rows (at least two), so the page has no empty table area.
    const int shown = std::max(2, rowCount());
    setFixedHeight(horizontalHeader()->height() + shown * verticalHeader()->defaultSectionSize() +
                   2 * frameWidth() + 2);
}

}  // namespace nnwb
