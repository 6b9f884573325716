// One per-epoch metric chart (QCustomPlot): a training and a validation series with legend,
// axis labels with units, a hover read-out (QCPItemTracer + label) and autoscale. Redraws are
// coalesced by a single-shot timer (PlotJuggler's habit) so drawing never follows the data
// rate. GUI thread only.
#pragma once

#include <QTimer>

#include "ui/Plot.h"

namespace nnwb {

class MetricChart : public QCustomPlot {
    Q_OBJECT
public:
    MetricChart(const QString& title, const QString& yLabel, QWidget* parent = nullptr);

    void addPoint(double epoch, double train, double validation, bool hasValidation);
    void clearPoints();
    int pointCount() const;
    QCPGraph* trainGraph() const { return train_; }
    QCPGraph* validationGraph() const { return validation_; }
    // Asks for one redraw soon; many calls within the interval draw once.
    void scheduleReplot();
    void setAutoscale(bool on);

protected:
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    void doReplot();

    QCPGraph* train_;
    QCPGraph* validation_;
    QCPItemTracer* tracer_;
    QCPItemText* readout_;
    QTimer replotTimer_;
    bool autoscale_ = true;
    QString unit_;
};

}  // namespace nnwb
