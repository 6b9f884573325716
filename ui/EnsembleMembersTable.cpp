#include "ui/EnsembleMembersTable.h"

#include <cmath>
#include <optional>

#include <QHeaderView>

#include "app/core/QtText.h"
#include "app/ensemble/EnsembleKeep.h"
#include "app/runs/StoredTrading.h"
#include "model/FigureText.h"
#include "ui/TableRows.h"

namespace nnwb {

EnsembleMembersTable::EnsembleMembersTable(QWidget* parent)
    : QTableWidget(0, kColumnCount, parent) {
    setObjectName(QStringLiteral("runsEnsembleMembers"));
    setHorizontalHeaderLabels({tr("val loss"), tr("accuracy %"), tr("missed %"), tr("trades"),
                               tr("net points"), tr("win rate %")});
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setToolTip(
        tr("The ensemble against its best member (lowest validation loss) and its median member, "
           "as nnwb-cli train --ensemble compares them; the stored runs' best-epoch validation "
           "figures and trading on the validation part"));
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    hide();
}

void EnsembleMembersTable::showEnsemble(const StoredRun* ensemble,
                                        const std::vector<const StoredRun*>& members) {
    std::vector<const StoredRun*> scored;
    std::vector<double> losses;
    for (const StoredRun* m : members)
        if (m->bestValLoss) {
            scored.push_back(m);
            losses.push_back(*m->bestValLoss);
        }
    if (!ensemble || ensemble->ensembleMembers <= 0 || scored.empty()) {
        setRowCount(0);
        hide();
        return;
    }
    const auto [best, median] = bestAndMedianOf(losses);
    setRowCount(3);
    setRow(0, tr("#%1 ensemble of %2").arg(ensemble->id).arg(ensemble->ensembleMembers), *ensemble);
    setRow(1, tr("#%1 best member").arg(scored[best]->id), *scored[best]);
    setRow(2, tr("#%1 median member").arg(scored[median]->id), *scored[median]);
    resizeColumnsToContents();
    setFixedHeight(tableHeightForRows(this, 3));
    show();
}

void EnsembleMembersTable::setRow(int row, const QString& label, const StoredRun& run) {
    setVerticalHeaderItem(row, new QTableWidgetItem(label));
    auto trading = [&](const char* key) { return storedTradingFigure(run.trading, key); };
    const std::optional<double> values[kColumnCount] = {run.bestValLoss,      run.bestValAccuracy,
                                                        run.bestValMissed,    trading("trades"),
                                                        trading("netPoints"), trading("winRate")};
    const int decimals[kColumnCount] = {6, 2, 2, 0, 1, 2};
    for (int c = 0; c < kColumnCount; ++c) {
        // Grouped as every figure of the window ("-2,482.0"; it read "-2482.0").
        const std::optional<double>& v = values[c];
        auto* item =
            new QTableWidgetItem(q(v && !std::isnan(*v) ? groupedFixed(*v, decimals[c])
                                                        : storedTradingText(v, decimals[c])));
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (values[c]) item->setData(Qt::UserRole, *values[c]);
        setItem(row, c, item);
    }
}

}  // namespace nnwb
