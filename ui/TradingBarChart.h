// A small bar chart of the Trading tab (the trade-return distribution, entries by hour and by
// weekday): one bar per labelled value, optionally red below 0 and green above; a title above.
// Shows what it is given; computes nothing. GUI thread only.
#pragma once

#include <vector>

#include <QStringList>
#include <QWidget>

class QCustomPlot;
class QCPBars;

namespace nnwb {

class TradingBarChart : public QWidget {
    Q_OBJECT
public:
    TradingBarChart(const QString& title, const QString& valueLabel, QWidget* parent = nullptr);

    // One bar per value at x = 0, 1, ...; every `labelEvery`-th is labelled. `signColours`
    // colours each bar by the sign of `colourBy` (its own value where empty).
    void setBars(const std::vector<double>& values, const QStringList& labels, int labelEvery = 1,
                 const std::vector<double>& colourBy = {});
    QCustomPlot* plot() const { return plot_; }
    // The value of bar `i` (for tests).
    double value(int i) const;
    int bars() const;

private:
    QCustomPlot* plot_;
    QCPBars* positive_;
    QCPBars* negative_;
};

}  // namespace nnwb
