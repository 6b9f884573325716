// The base of the per-epoch charts (QCustomPlot): a title, "epoch" on x with integer ticks, a
// legend in its own row under the title (in as many columns as fit, so that no entry is cut on
// a small screen), a y-axis label that shrinks to its unit when the plot is too short for it
// (it ran into the legend at 720 px), a hover read-out that snaps to the nearest point of
// the nearest visible series, autoscale over the visible series and redraws coalesced by a
// single-shot timer (PlotJuggler's habit). MetricChart and ComparisonChart add the series.
// GUI thread only.
#pragma once

#include <QTimer>

#include "ui/Plot.h"

namespace nnwb {

class SeriesChart : public QCustomPlot {
    Q_OBJECT
public:
    SeriesChart(const QString& title, const QString& yLabel, QWidget* parent = nullptr);

    // Asks for one redraw soon; many calls within the interval draw once.
    void scheduleReplot();
    void setAutoscale(bool on);
    // A dashed vertical line at `epoch` with `label` at its top (the best epoch); epoch <= 0
    // removes it.
    void setMarker(double epoch, const QString& label);
    double markerEpoch() const { return markerEpoch_; }
    QString markerLabel() const;
    // The label sits at the plot's top unless the curves pass there near the marker and not at
    // the bottom: then at the bottom (after the next redraw).
    bool markerLabelAtBottom() const;
    // A grey note in the middle of the plot while no series has a point (e.g. "Add runs and
    // train them to compare their curves"); empty: none.
    void setPlaceholder(const QString& text);
    bool placeholderShown() const;
    // Lays the legend out in as many columns as its entries' whole text fits (one at least).
    void fitLegend();
    // The y-axis label: the full one where the axis is tall enough for it, else its unit
    // ("(%)") or nothing (the title names the quantity).
    void fitYLabel();

protected:
    // A graph drawn with `colour`, solid or dashed, with point markers.
    QCPGraph* addSeries(const QString& name, const QColor& colour, bool dashed = false);
    // Empties every graph and hides the read-out.
    void clearSeries();
    void resizeEvent(QResizeEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    // The hover tracer and readout, the best-epoch marker, the placeholder text
    void createItems();
    // The legend in a row of its own under the title
    void addLegendRow();
    void doReplot();
    // Puts the marker's label at the top or the bottom of the plot, where no curve runs.
    void placeMarkerText();

    QCPItemTracer* tracer_;
    QCPItemText* readout_;
    QCPItemStraightLine* marker_;
    QCPItemText* markerText_;
    QCPItemText* placeholder_;
    double markerEpoch_ = 0;
    QTimer replotTimer_;
    bool autoscale_ = true;
    QString unit_;
    QString yLabel_;
};

}  // namespace nnwb
