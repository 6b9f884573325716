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
    // The kept ensemble of `members` seeds (not an epoch): its figures on the validation part,
    // the only part it is measured on (the part picker is off until setReport or clear).
    // `dataChanged`: measured on a price file that has changed since training (the caption
    // says so).
    void setKeptEnsemble(const EpochMetrics& validation, int members, bool dataChanged = false);
    void clear();
    QString caption() const;
    QTableWidget* table() const { return table_; }

private:
    void show();
    void setKeptMembers(int members);

    QComboBox* part_;
    QLabel* caption_;
    QTableWidget* table_;
    EpochReport report_;
    bool have_ = false;
    bool hasValidation_ = false;
    int keptMembers_ = 0;  // > 0: report_.validation is the kept ensemble's
    bool keptOnChangedData_ = false;
};

}  // namespace nnwb
