#include "ui/SweepCurvesChart.h"

#include "ui/LegendColumns.h"

namespace nnwb {

SweepCurvesChart::SweepCurvesChart(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("sweepCurves"));
    xAxis->setLabel(tr("epoch"));
    setMinimumHeight(110);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    auto epochs = QSharedPointer<QCPAxisTickerFixed>::create();
    epochs->setTickStep(1.0);
    epochs->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    xAxis->setTicker(epochs);
    putLegendInOwnRow(this, 0);  // above the curves: which colour is which trial
}

void SweepCurvesChart::resizeEvent(QResizeEvent* e) {
    fitLegendColumns(legend, width() - 4);
    QCustomPlot::resizeEvent(e);
}

QCPGraph* SweepCurvesChart::curve(int number) const {
    const auto it = curves_.find(number);
    return it == curves_.end() ? nullptr : it->second;
}

void SweepCurvesChart::setSnapshot(const SweepSnapshot& s) {
    clearGraphs();
    curves_.clear();
    yAxis->setLabel(QString::fromStdString(s.objective));
    int colour = 0;
    bool namedPruned = false, namedFailed = false;
    for (const TrialRow& t : s.trials) {
        if (t.epochs.empty()) continue;
        QCPGraph* g = addGraph();
        const bool grey =
            t.state == sweep::TrialState::Pruned || t.state == sweep::TrialState::Failed;
        QPen pen(grey ? prunedColour() : QColor::fromHsv((colour++ * 47) % 360, 200, 200),
                 grey ? 1.0 : 1.8);
        if (t.state == sweep::TrialState::Failed) pen.setStyle(Qt::DashLine);
        g->setPen(pen);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
        g->setName(tr("trial %1").arg(t.number));
        // The legend names the coloured trials (a dozen at most) and says once what grey and
        // dashed grey mean.
        if (grey) {
            const bool failed = t.state == sweep::TrialState::Failed;
            bool& named = failed ? namedFailed : namedPruned;
            if (named) g->removeFromLegend();
            g->setName(failed ? tr("failed") : tr("pruned"));
            named = true;
            g->setLayer(QStringLiteral("background"));
        } else if (colour > kLegendTrials) {
            g->removeFromLegend();
        }
        for (const auto& [epoch, value] : t.epochs) g->addData(epoch, value);
        curves_[t.number] = g;
    }
    rescaleAxes();
    yAxis->scaleRange(1.1, yAxis->range().center());  // the extreme points whole, not cut
    xAxis->setRange(0.5, std::max(2.0, xAxis->range().upper + 0.5));
    fitLegendColumns(legend, width() - 4);
    replot(QCustomPlot::rpQueuedReplot);
}

void SweepCurvesChart::setFilter(const std::set<int>& numbers, bool all) {
    for (const auto& [n, g] : curves_) g->setVisible(all || numbers.count(n) > 0);
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace nnwb
