#include "ui/TradingMonthTable.h"

#include <algorithm>
#include <cmath>

#include <QFontMetrics>
#include <QHeaderView>
#include <QScrollBar>

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
    // No column narrower than its widest figure (the bold year total too): stretched to the
    // tab's width at 1024x600 the year's "-8,480" lost its minus and read as a gain.
    int widest = 30;
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 0; c < columnCount(); ++c)
            if (const QTableWidgetItem* i = item(r, c))
                widest =
                    std::max(widest, QFontMetrics(i->font()).horizontalAdvance(i->text()) + 10);
    horizontalHeader()->setMinimumSectionSize(widest);
    const bool scrolls =
        verticalHeader()->sizeHint().width() + columnCount() * widest + 2 * frameWidth() > width();
    // As tall as its rows (at least two), so the page has no empty table area; a scroll bar
    // under them where the columns are wider than the table.
    const int shown = std::max(2, rowCount());
    setFixedHeight(horizontalHeader()->height() + shown * verticalHeader()->defaultSectionSize() +
                   2 * frameWidth() + 2 +
                   (scrolls ? horizontalScrollBar()->sizeHint().height() : 0));
}

bool TradingMonthTable::figuresFit() const {
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 0; c < columnCount(); ++c)
            if (const QTableWidgetItem* i = item(r, c))
                if (QFontMetrics(i->font()).horizontalAdvance(i->text()) + 4 > columnWidth(c))
                    return false;
    return true;
}

}  // namespace nnwb
