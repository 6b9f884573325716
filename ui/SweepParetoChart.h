// The Pareto front of a sweep with two objectives: every complete trial as a grey point at
// (objective, second objective), the front's trials joined by a red line (SweepReport's front:
// no other trial beats them in one objective without losing in the other); the legend in a row
// of its own above the plot. GUI thread only.
#pragma once

#include "app/core/SweepPresenter.h"
#include "ui/Plot.h"

namespace nnwb {

class SweepParetoChart : public QCustomPlot {
    Q_OBJECT
public:
    explicit SweepParetoChart(QWidget* parent = nullptr);

    void setSnapshot(const SweepSnapshot& s);
    int frontSize() const { return front_->dataCount(); }

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    QCPGraph* all_;
    QCPGraph* front_;
};

}  // namespace nnwb
