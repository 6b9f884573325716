// The learning rate of each epoch of a run (what its schedule set), one series next to the
// metric charts; marks the best epoch like they do. GUI thread only.
#pragma once

#include "ui/SeriesChart.h"

namespace nnwb {

class LearningRateChart : public SeriesChart {
    Q_OBJECT
public:
    explicit LearningRateChart(QWidget* parent = nullptr);
    void addPoint(double epoch, double rate);
    void clearPoints() { clearSeries(); }
    QCPGraph* rateGraph() const { return rate_; }

private:
    QCPGraph* rate_;
};

}  // namespace nnwb
