// The paths of a combinatorial purged cross-validation in the Walk-Forward tab (validation
// scheme cpcv, docs/walkforward-cpcv.md): the verdict line of what the paths say, the path
// table (the split each group came from, loss, accuracy, missed, trades, net points, Sharpe per
// bar and annual, maximum drawdown), a histogram of the paths' values of the figure chosen
// beside it (Sharpe per bar at first) and that figure's distribution. Shows what the
// WalkForwardPresenter's outcome holds; hidden unless the plan on show is cpcv. GUI thread only.
#pragma once

#include <QWidget>

class QComboBox;
class QCPBars;
class QCustomPlot;
class QLabel;
class QTableWidget;

namespace nnwb {

class WalkForwardPresenter;

class CpcvView : public QWidget {
    Q_OBJECT
public:
    explicit CpcvView(WalkForwardPresenter* presenter, QWidget* parent = nullptr);

    QTableWidget* pathTable() const { return table_; }
    QLabel* verdictLabel() const { return verdict_; }
    QLabel* distributionLabel() const { return distribution_; }
    QComboBox* figurePicker() const { return figure_; }
    QCustomPlot* histogram() const { return plot_; }
    // The histogram's bars: paths per bin, in order (what is drawn).
    std::vector<double> histogramCounts() const;

private:
    void refresh();
    void drawHistogram();

    WalkForwardPresenter* presenter_;
    QLabel* verdict_;
    QTableWidget* table_;
    QComboBox* figure_;
    QCustomPlot* plot_;
    QCPBars* bars_;
    QLabel* distribution_;
};

}  // namespace nnwb
