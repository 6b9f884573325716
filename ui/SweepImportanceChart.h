// Parameter importance of a sweep as horizontal bars (model/sweep/Importance: the fANOVA-style
// ω² of each parameter's main effect, docs/sweeps.md), largest on top; a note while fewer than
// 4 trials are complete. GUI thread only.
#pragma once

#include "app/core/SweepPresenter.h"
#include "ui/Plot.h"

namespace nnwb {

class SweepImportanceChart : public QCustomPlot {
    Q_OBJECT
public:
    explicit SweepImportanceChart(QWidget* parent = nullptr);

    void setSnapshot(const SweepSnapshot& s);
    // The parameters shown, top bar first, and their indexes.
    QStringList parameters() const { return names_; }
    std::vector<double> indexes() const { return values_; }

private:
    QCPBars* bars_;
    QCPTextElement* note_;
    QStringList names_;
    std::vector<double> values_;
};

}  // namespace nnwb
