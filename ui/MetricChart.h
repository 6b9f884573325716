// One per-epoch metric chart of a single run: a training and a validation series (see
// SeriesChart for the legend, hover read-out, autoscale and coalesced redraws). GUI thread
// only.
#pragma once

#include "ui/SeriesChart.h"

namespace nnwb {

class MetricChart : public SeriesChart {
    Q_OBJECT
public:
    MetricChart(const QString& title, const QString& yLabel, QWidget* parent = nullptr);

    void addPoint(double epoch, double train, double validation, bool hasValidation);
    void clearPoints() { clearSeries(); }
    int pointCount() const;
    QCPGraph* trainGraph() const { return train_; }
    QCPGraph* validationGraph() const { return validation_; }

private:
    QCPGraph* train_;
    QCPGraph* validation_;
};

}  // namespace nnwb
