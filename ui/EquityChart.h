// The equity curve under the price chart: the cumulative net result (points, all costs in) of
// trading the shown signals, bar by bar on the price chart's bar axis, with each trade's entry
// marked (long ▲, short ▼) and its exit (●), and the zero line. Follows the price chart's
// visible bar range. GUI thread only.
#pragma once

#include <cstddef>

#include <QWidget>

class QCustomPlot;
class QCPGraph;

namespace nnwb {

struct TradingReport;

class EquityChart : public QWidget {
    Q_OBJECT
public:
    explicit EquityChart(QWidget* parent = nullptr);

    // Draws `report`'s equity and trades; null clears the chart.
    void setReport(const TradingReport* report);
    // The visible bar range (indices, as the price chart's x axis).
    void showBars(double from, double to);

    QCustomPlot* plot() const { return plot_; }
    // Points drawn on the curve, and trade entries and exits marked.
    size_t curvePoints() const;
    size_t entryMarks() const;
    size_t exitMarks() const;

private:
    void fitValueRange();

    QCustomPlot* plot_;
    QCPGraph* equity_;
    QCPGraph* longEntries_;
    QCPGraph* shortEntries_;
    QCPGraph* exits_;
};

}  // namespace nnwb
