// The summary table of a comparison: one row per run (name in its colour, device, status,
// epochs, then the figures of ComparisonSummary) with the best value of each column in bold
// on a green background. GUI thread only.
#pragma once

#include <vector>

#include <QTableWidget>

#include "app/compare/RunRecord.h"

namespace nnwb {

class ComparisonSummaryTable : public QTableWidget {
    Q_OBJECT
public:
    explicit ComparisonSummaryTable(QWidget* parent = nullptr);

    void setRecords(const std::vector<RunRecord>& runs, const std::vector<QColor>& colours);
    // Whether the cell of `run` and summary column `column` is marked best.
    bool isMarkedBest(int run, int column) const;
    static constexpr int kFirstFigureColumn = 4;  // run, device, status, epochs come first
};

}  // namespace nnwb
