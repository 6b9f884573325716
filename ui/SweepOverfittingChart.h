// The probability of backtest overfitting of a sweep (docs/overfitting.md) as the Sweeps tab's
// Overfitting page: a line of figures (PBO, degradation, probability of loss, dominance), the
// histogram of the splits' logits (bins of equal width with 0 on an edge: the bars left of 0
// hold PBO) and the scatter of the winners' in-sample against out-of-sample Sharpe with the
// degradation line. Reads SweepSnapshot::report["overfitting"]. GUI thread only.
#pragma once

#include <vector>

#include <QWidget>

#include "app/core/SweepPresenter.h"
#include "ui/Plot.h"

class QLabel;

namespace nnwb {

class SweepOverfittingChart : public QWidget {
    Q_OBJECT
public:
    explicit SweepOverfittingChart(QWidget* parent = nullptr);

    void setSnapshot(const SweepSnapshot& s);

    QLabel* figures() const { return figures_; }
    QCustomPlot* histogram() const { return histogram_; }
    QCustomPlot* scatter() const { return scatter_; }
    // The histogram: bin k holds the logits in (edge(k), edge(k) + width]; and the scatter's
    // points (one per split).
    const std::vector<double>& binEdges() const { return edges_; }
    const std::vector<double>& binCounts() const { return counts_; }
    int scatterPoints() const;

private:
    QLabel* figures_;
    QCustomPlot* histogram_;
    QCustomPlot* scatter_;
    QCPBars* bars_;
    QCPGraph* winners_;
    QCPGraph* fit_;
    std::vector<double> edges_, counts_;
};

}  // namespace nnwb
