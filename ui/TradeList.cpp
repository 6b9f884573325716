#include "ui/TradeList.h"

#include <QHeaderView>

#include "model/FigureText.h"
#include "model/data/DateTime.h"
#include "model/trading/TradingReport.h"

namespace nnwb {

namespace {

constexpr int kEntryBarRole = Qt::UserRole + 1;
constexpr int kExitBarRole = Qt::UserRole + 2;

QString grouped(int64_t n) {
    return QString::fromStdString(groupedCount(n));
}

// Sorts by its number, not its text (grouped text would sort "1,000" before "999").
class TradeNumberItem : public QTableWidgetItem {
public:
    TradeNumberItem(const QString& text, double value) : QTableWidgetItem(text) {
        setData(Qt::UserRole, value);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

}  // namespace

TradeList::TradeList(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("tradeList"));
    setColumnCount(Columns);
    setHorizontalHeaderLabels({tr("#"), tr("direction"), tr("entry"), tr("exit"), tr("bars"),
                               tr("exit reason"), tr("net points"), tr("net, % of entry price")});
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    horizontalHeader()->setSortIndicator(Number, Qt::AscendingOrder);
    verticalHeader()->setVisible(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setMinimumHeight(180);
    setToolTip(tr("Click a trade to show it on the price chart; click a column title to sort"));
    connect(this, &QTableWidget::cellClicked, this, [this](int row, int) {
        const QTableWidgetItem* n = item(row, Number);
        if (n)
            Q_EMIT tradeClicked(n->data(kEntryBarRole).toULongLong(),
                                n->data(kExitBarRole).toULongLong());
    });
}

void TradeList::setTrades(const std::vector<Trade>& trades) {
    setSortingEnabled(false);
    clearContents();
    setRowCount(int(trades.size()));
    for (size_t i = 0; i < trades.size(); ++i) {
        const Trade& t = trades[i];
        const int r = int(i);
        auto* n = new TradeNumberItem(grouped(int64_t(i) + 1), double(i + 1));
        n->setData(kEntryBarRole, qulonglong(t.entryBar));
        n->setData(kExitBarRole, qulonglong(t.exitBar));
        setItem(r, Number, n);
        setItem(r, Direction, new QTableWidgetItem(t.direction > 0 ? tr("long") : tr("short")));
        setItem(r, Entry, new QTableWidgetItem(QString::fromStdString(formatBarTime(t.entryTime))));
        setItem(r, Exit, new QTableWidgetItem(QString::fromStdString(formatBarTime(t.exitTime))));
        setItem(r, Bars, new TradeNumberItem(grouped(int64_t(t.bars)), double(t.bars)));
        setItem(r, Reason, new QTableWidgetItem(QString::fromLatin1(exitReasonName(t.exitReason))));
        setItem(r, NetPoints,
                new TradeNumberItem(QString::fromStdString(groupedFixed(t.net, 1)), t.net));
        setItem(r, NetPct, new TradeNumberItem(QString::number(t.netPct, 'f', 4), t.netPct));
        const QColor c = t.net < 0 ? QColor(200, 40, 40) : QColor(0, 130, 60);
        item(r, NetPoints)->setForeground(c);
        item(r, NetPct)->setForeground(c);
    }
    setSortingEnabled(true);
}

int TradeList::tradeNumberAt(int row) const {
    const QTableWidgetItem* n = item(row, Number);
    return n ? int(n->data(Qt::UserRole).toDouble()) : 0;
}

}  // namespace nnwb
