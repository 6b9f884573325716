#include "ui/SweepList.h"

#include <QHeaderView>

namespace nnwb {

SweepList::SweepList(QWidget* parent) : QTableWidget(0, 4, parent) {
    setObjectName(QStringLiteral("sweepList"));
    setHorizontalHeaderLabels({tr("Id"), tr("Name"), tr("Status"), tr("Created")});
    setSelectionBehavior(SelectRows);
    setSelectionMode(SingleSelection);
    setEditTriggers(NoEditTriggers);
    verticalHeader()->hide();
    horizontalHeader()->setStretchLastSection(true);
    setToolTip(tr("The sweeps of the run store: click one to show it"));
    connect(this, &QTableWidget::itemSelectionChanged, this, [this] {
        if (const qint64 id = selectedId(); id > 0) Q_EMIT reopenRequested(id);
    });
}

void SweepList::setSweeps(const std::vector<SweepRow>& sweeps) {
    const qint64 keep = wanted_ > 0 ? wanted_ : selectedId();
    const QSignalBlocker quiet(this);
    setRowCount(int(sweeps.size()));
    for (int r = 0; r < int(sweeps.size()); ++r) {
        const SweepRow& s = sweeps[size_t(r)];
        auto* id = new QTableWidgetItem(QString::number(s.id));
        id->setData(Qt::UserRole, qint64(s.id));
        setItem(r, 0, id);
        setItem(r, 1, new QTableWidgetItem(QString::fromStdString(s.name)));
        setItem(r, 2, new QTableWidgetItem(QString::fromStdString(s.status)));
        setItem(r, 3, new QTableWidgetItem(QString::fromStdString(s.createdAt)));
    }
    resizeColumnsToContents();
    if (keep > 0) selectId(keep);
}

qint64 SweepList::selectedId() const {
    const auto rows = selectionModel()->selectedRows();
    if (rows.isEmpty() || !item(rows.first().row(), 0)) return 0;
    return item(rows.first().row(), 0)->data(Qt::UserRole).toLongLong();
}

QString SweepList::statusOf(qint64 id) const {
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, 0) && item(r, 0)->data(Qt::UserRole).toLongLong() == id && item(r, 2))
            return item(r, 2)->text();
    return {};
}

void SweepList::selectId(qint64 id) {
    const QSignalBlocker quiet(this);
    wanted_ = id;
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, 0) && item(r, 0)->data(Qt::UserRole).toLongLong() == id) {
            selectRow(r);
            wanted_ = 0;
        }
}

}  // namespace nnwb
