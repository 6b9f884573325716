// The learning curves of a sweep's trials: the objective after each epoch, one line per
// trial (a colour each; pruned trials grey, failed ones dashed grey), only the trials of the
// current filter; a legend above them names the coloured trials (the first kLegendTrials) and
// says what grey and dashed grey mean. QCustomPlot, as the comparison charts. GUI thread only.
#pragma once

#include <set>

#include "app/core/SweepPresenter.h"
#include "ui/Plot.h"

namespace nnwb {

class SweepCurvesChart : public QCustomPlot {
    Q_OBJECT
public:
    explicit SweepCurvesChart(QWidget* parent = nullptr);

    void setSnapshot(const SweepSnapshot& s);
    void setFilter(const std::set<int>& numbers, bool all);
    // The curve of trial `number` (null when it has none).
    QCPGraph* curve(int number) const;
    static QColor prunedColour() { return QColor(175, 175, 175); }
    static constexpr int kLegendTrials = 12;

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    std::map<int, QCPGraph*> curves_;
};

}  // namespace nnwb
