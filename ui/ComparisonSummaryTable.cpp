#include "ui/ComparisonSummaryTable.h"

#include <cmath>

#include <QHeaderView>

#include "app/compare/ComparisonSummary.h"
#include "model/FigureText.h"

namespace nnwb {

namespace {
const QColor kBest(0xd4, 0xf0, 0xd0);

// As the CLI writes them (formatSummaryCell; trading figures grouped: "-17,796.0").
QString cellText(const SummaryRow& row, int column) {
    return QString::fromStdString(formatSummaryCell(row, column));
}
}  // namespace

ComparisonSummaryTable::ComparisonSummaryTable(QWidget* parent) : QTableWidget(parent) {
    QStringList headers{tr("run"), tr("device"), tr("status"), tr("epochs")};
    // Two-line headers ("best val" over "missed %") keep the columns narrow.
    for (int c = 0; c < kSummaryColumns; ++c)
        headers << QString::fromUtf8(summaryColumnInfo(c).header)
                       .replace(QStringLiteral("val "), QStringLiteral("val\n"));
    setColumnCount(headers.size());
    setHorizontalHeaderLabels(headers);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(false);
    setToolTip(
        tr("Validation figures; the best value of each column is in bold on green. An accuracy "
           "comes with the signals it is a share of: n/a below %1 signals.")
            .arg(kMinSignalsForAccuracy));
    setObjectName(QStringLiteral("comparisonSummary"));
}

void ComparisonSummaryTable::setRecords(const std::vector<RunRecord>& runs,
                                        const std::vector<QColor>& colours) {
    const std::vector<SummaryRow> rows = summarize(runs);
    // Columns sized to their contents once, after the fill: sized as each item is set, every
    // setItem measured its whole column again (quadratic in the runs, and this runs after
    // every epoch of every run; the GUI monkey found the window frozen for seconds).
    QHeaderView* header = horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    setRowCount(static_cast<int>(rows.size()));
    QFont bold = font();
    bold.setBold(true);
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const SummaryRow& row = rows[size_t(r)];
        auto* name = new QTableWidgetItem(QString::fromStdString(row.label));
        name->setForeground(colours.at(size_t(r)));
        name->setFont(bold);
        setItem(r, 0, name);
        auto* device = new QTableWidgetItem(
            QString::fromStdString(row.deviceName.empty() ? row.deviceId : row.deviceName));
        device->setToolTip(QString::fromStdString(row.deviceId));
        setItem(r, 1, device);
        auto* status = new QTableWidgetItem(QString::fromStdString(row.status));
        status->setToolTip(QString::fromStdString(runs[size_t(r)].error));
        if (runs[size_t(r)].status == RunStatus::Failed) status->setForeground(QColor(0xb0, 0, 0));
        setItem(r, 2, status);
        auto* epochs = new QTableWidgetItem(QString::fromStdString(groupedCount(row.epochs)));
        epochs->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        setItem(r, 3, epochs);
        for (int c = 0; c < kSummaryColumns; ++c) {
            auto* item = new QTableWidgetItem(cellText(row, c));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (row.best[size_t(c)]) {
                item->setFont(bold);
                item->setBackground(kBest);
                item->setData(Qt::UserRole, true);
                item->setToolTip(tr("best of this column"));
            }
            setItem(r, kFirstFigureColumn + c, item);
        }
    }
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
}

bool ComparisonSummaryTable::isMarkedBest(int run, int column) const {
    const QTableWidgetItem* i = item(run, kFirstFigureColumn + column);
    return i && i->data(Qt::UserRole).toBool();
}

}  // namespace nnwb
