// The 3×3 confusion matrix of the last epoch (rows: actual none/buy/sell, columns: predicted)
// for the validation or the training part, with row shares shaded. GUI thread only.
#pragma once

#include <QWidget>

#include "model/Trainer.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace nnwb {

class ConfusionTable : public QWidget {
    Q_OBJECT
public:
    explicit ConfusionTable(QWidget* parent = nullptr);

    void setReport(const EpochReport& report, bool hasValidation);
    void clear();
    QTableWidget* table() const { return table_; }

private:
    void show();

    QComboBox* part_;
    QLabel* caption_;
    QTableWidget* table_;
    EpochReport report_;
    bool have_ = false;
    bool hasValidation_ = false;
};

}  // namespace nnwb
