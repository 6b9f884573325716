#include "ui/TradingTable.h"

#include <cmath>

#include <QHeaderView>

#include "model/FigureText.h"
#include "model/trading/TradingReport.h"

namespace nnwb {

namespace {
QString number(double v, int decimals) {
    if (std::isnan(v)) return QStringLiteral("n/a");  // a figure that does not exist
    if (std::isinf(v)) return QStringLiteral("∞");
    return QString::fromStdString(groupedFixed(v, decimals));  // "-17,796.0", as elsewhere
}

// A trade count is whole: the random baseline's mean is over draws of the strategy's count.
QStringList rowTexts(const TradingFigures& f) {
    return {number(std::round(f.trades), 0),
            number(f.winRate, 1),
            f.trades > 0 ? number(f.profitFactor, 2) : QStringLiteral("n/a"),
            number(f.netPoints, 1),
            number(f.netPct, 2),
            number(f.perTradePoints, 1),
            number(f.maxDrawdownPoints, 1),
            number(f.sharpeAnnual, 2),
            number(f.sortinoAnnual, 2),
            number(f.exposure, 1)};
}
}  // namespace

TradingTable::TradingTable(QWidget* parent) : QTableWidget(3, 10, parent) {
    setObjectName(QStringLiteral("tradingTable"));
    setHorizontalHeaderLabels({tr("Trades"), tr("Win %"), tr("Profit factor"), tr("Net pts"),
                               tr("Sum of trade returns %"), tr("Per trade pts"), tr("Max DD pts"),
                               tr("Sharpe (yr)"), tr("Sortino (yr)"), tr("Exposure %")});
    setVerticalHeaderLabels({tr("Strategy"), tr("Buy and hold"), tr("Random")});
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setToolTip(
        tr("Trading the shown signals under the experiment's trading rules and costs "
           "(Trading Rules…). Random: the mean over random trade sets with the "
           "strategy's trade count and holding times. Rules and definitions: "
           "docs/trading.md."));
    setReport(nullptr);
}

void TradingTable::setReport(const TradingReport* report) {
    const TradingFigures* rows[3] = {nullptr, nullptr, nullptr};
    if (report) {
        rows[0] = &report->strategy;
        rows[1] = &report->buyAndHold;
        rows[2] = &report->random;
    }
    for (int r = 0; r < 3; ++r) {
        const QStringList texts = rows[r] ? rowTexts(*rows[r]) : QStringList();
        for (int c = 0; c < columnCount(); ++c) {
            auto* item = new QTableWidgetItem(c < texts.size() ? texts[c] : QStringLiteral("–"));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            setItem(r, c, item);
        }
    }
}

QString TradingTable::cell(int row, int column) const {
    const QTableWidgetItem* i = item(row, column);
    return i ? i->text() : QString();
}

}  // namespace nnwb
