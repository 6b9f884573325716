// The Trading tab's confusion matrices of a walk-forward: the stitched out-of-sample matrix (all
// folds' test windows) first, then each fold's test window, side by side; rows the actual class
// (none, buy, sell), columns the predicted signal, counts shaded by their share of the row.
// GUI thread only.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include <QString>
#include <QWidget>

class QTableWidget;

namespace nnwb {

class FlowLayout;

using ConfusionCounts = std::array<std::array<int64_t, 3>, 3>;

class FoldConfusions : public QWidget {
    Q_OBJECT
public:
    explicit FoldConfusions(QWidget* parent = nullptr);
    // Titled matrices, in order ("stitched out of sample", "fold 1/6", ...); empty clears.
    void setMatrices(const std::vector<std::pair<QString, ConfusionCounts>>& matrices);
    int matrices() const { return static_cast<int>(tables_.size()); }
    QTableWidget* table(int i) const { return tables_.at(size_t(i)); }

private:
    FlowLayout* row_;
    std::vector<QWidget*> boxes_;
    std::vector<QTableWidget*> tables_;
};

}  // namespace nnwb
