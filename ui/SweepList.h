// The sweeps of the run store, newest first (id, name, status, created): selecting one shows
// it in the Sweeps tab (reopenRequested); an unfinished one can then be resumed. GUI thread
// only.
#pragma once

#include <vector>

#include <QTableWidget>

#include "app/sweep/SweepStore.h"

namespace nnwb {

class SweepList : public QTableWidget {
    Q_OBJECT
public:
    explicit SweepList(QWidget* parent = nullptr);

    void setSweeps(const std::vector<SweepRow>& sweeps);
    qint64 selectedId() const;
    QString statusOf(qint64 id) const;
    // Selects sweep `id` without reopening it (once listed, when it is not yet).
    void selectId(qint64 id);

Q_SIGNALS:
    void reopenRequested(qint64 id);

private:
    qint64 wanted_ = 0;  // the sweep to select once the list has it
};

}  // namespace nnwb
