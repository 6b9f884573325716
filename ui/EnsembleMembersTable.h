// The Runs tab's comparison of a selected ensemble run with its best and its median member run
// (rows) by validation loss, accuracy, missed, trades, net points and win rate (columns), the
// figures of the stored runs (those `nnwb-cli runs show ID --json` prints); best and median
// chosen as the CLI's `train --ensemble` chooses them (bestAndMedianOf). GUI thread only.
#pragma once

#include <vector>

#include <QTableWidget>

#include "app/runs/StoredRun.h"

namespace nnwb {

class EnsembleMembersTable : public QTableWidget {
    Q_OBJECT
public:
    enum Column { kLoss, kAccuracy, kMissed, kTrades, kNetPoints, kWinRate, kColumnCount };
    explicit EnsembleMembersTable(QWidget* parent = nullptr);

    // Shows `ensemble` against its best and median member among `members` (its member runs);
    // hidden when `ensemble` is null, is no ensemble, or has no member run with a validation
    // loss. Each cell's Qt::UserRole holds the stored figure (none: invalid, the text "n/a").
    void showEnsemble(const StoredRun* ensemble, const std::vector<const StoredRun*>& members);

private:
    void setRow(int row, const QString& label, const StoredRun& run);
};

}  // namespace nnwb
