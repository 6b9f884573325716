#include "ui/FoldTradingTable.h"

#include <cmath>

#include <QHeaderView>

#include "model/trading/TradingReport.h"
#include "model/trading/Verdict.h"

namespace nnwb {

namespace {
QString foldFigure(double v, int decimals) {
    if (std::isnan(v)) return QStringLiteral("n/a");
    if (std::isinf(v)) return QStringLiteral("inf");
    return QString::number(v, 'f', decimals);
}
}  // namespace

FoldTradingTable::FoldTradingTable(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("foldTradingTable"));
    setColumnCount(7);
    setHorizontalHeaderLabels({tr("fold"), tr("test period"), tr("trades"), tr("net points"),
                               tr("profit factor"), tr("Sharpe annualised"),
                               tr("max drawdown points")});
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    verticalHeader()->setVisible(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    setMinimumHeight(150);
    setToolTip(
        tr("Each fold's part of the stitched out-of-sample series: the trades its model "
           "signalled in its test window and the equity over that window"));
}

void FoldTradingTable::setFolds(const QStringList& names, const QStringList& periods,
                                const std::vector<TradingFigures>& figures) {
    setRowCount(int(figures.size()));
    for (size_t k = 0; k < figures.size(); ++k) {
        const TradingFigures& f = figures[k];
        const QStringList cells = {int(k) < names.size() ? names[int(k)] : QString(),
                                   int(k) < periods.size() ? periods[int(k)] : QString(),
                                   QString::number(qint64(f.trades)),
                                   QString::fromStdString(groupedNumber(f.netPoints)),
                                   foldFigure(f.profitFactor, 2),
                                   foldFigure(f.sharpeAnnual, 2),
                                   QString::fromStdString(groupedNumber(f.maxDrawdownPoints))};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c >= 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            setItem(int(k), c, item);
        }
    }
}

}  // namespace nnwb
