// The Trading tab's two stacked charts on one bar axis (labelled with the bars' dates): the
// strategy's equity with buy and hold's and the random draws' 5–95 % band (points after costs),
// and under it the underwater chart (the equity's fall from its running peak,
// model/trading/Underwater.h); a walk-forward's fold boundaries as vertical lines in both.
// Shows what it is given; computes nothing. GUI thread only.
#pragma once

#include <cstddef>
#include <vector>

#include <QWidget>

class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
class QCPAbstractItem;

namespace nnwb {

struct TradingReport;

class TradingCurves : public QWidget {
    Q_OBJECT
public:
    explicit TradingCurves(QWidget* parent = nullptr);

    // Draws `report` (null clears) with a boundary line before each of `foldStarts` (bars).
    void setReport(const TradingReport* report, const std::vector<size_t>& foldStarts = {});

    QCustomPlot* plot() const { return plot_; }
    // Points of each curve, and the fold lines drawn (for tests).
    int equityPoints() const;
    int buyAndHoldPoints() const;
    int bandPoints() const;
    int underwaterPoints() const;
    int foldLines() const { return static_cast<int>(foldItems_.size()); }
    // The lowest underwater value drawn (minus the maximum drawdown).
    double deepestUnderwater() const;

private:
    QCustomPlot* plot_;
    QCPAxisRect* lower_;
    QCPGraph *equity_, *hold_, *bandLow_, *bandHigh_, *underwater_;
    std::vector<QCPAbstractItem*> foldItems_;
};

}  // namespace nnwb
