// The Sweeps tab's live table of trials: number, state, current epoch, objective, pruned at,
// then one column per parameter and the run; sortable, filtered to a set of trial numbers (the
// parallel coordinates' brushes), the selection kept across updates. GUI thread only.
#pragma once

#include <set>

#include <QTableWidget>

#include "app/core/SweepPresenter.h"

namespace nnwb {

class SweepTrialsTable : public QTableWidget {
    Q_OBJECT
public:
    explicit SweepTrialsTable(QWidget* parent = nullptr);

    void setSnapshot(const SweepSnapshot& s);
    // Shows only these trials (all when `all`).
    void setFilter(const std::set<int>& numbers, bool all);
    int shownRows() const;
    // The trial and run of the selected row (0 / -1 when none or it has no run yet).
    int selectedTrial() const;
    qint64 selectedRun() const;
    qint64 runOfRow(int row) const;
    void selectTrial(int number);

Q_SIGNALS:
    void openRunRequested(qint64 runId);
};

}  // namespace nnwb
