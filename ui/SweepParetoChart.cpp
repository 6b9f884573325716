#include "ui/SweepParetoChart.h"

#include "ui/LegendColumns.h"

namespace nnwb {

SweepParetoChart::SweepParetoChart(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("sweepPareto"));
    setMinimumHeight(110);
    all_ = addGraph();
    all_->setLineStyle(QCPGraph::lsNone);
    all_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(160, 160, 160), 6));
    all_->setName(tr("complete trials"));
    front_ = addGraph();
    front_->setPen(QPen(QColor(200, 40, 40), 2));
    front_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(200, 40, 40), 8));
    front_->setName(tr("Pareto front"));
    putLegendInOwnRow(this, 0);  // above the plot: it covered points in the corner
}

void SweepParetoChart::resizeEvent(QResizeEvent* e) {
    fitLegendColumns(legend, width() - 4);
    QCustomPlot::resizeEvent(e);
}

void SweepParetoChart::setSnapshot(const SweepSnapshot& s) {
    all_->data()->clear();
    front_->data()->clear();
    xAxis->setLabel(QString::fromStdString(s.objective));
    yAxis->setLabel(QString::fromStdString(s.secondObjective));
    for (const TrialRow& t : s.trials)
        if (t.state == sweep::TrialState::Complete && t.value && t.secondValue)
            all_->addData(*t.value, *t.secondValue);
    std::vector<std::pair<double, double>> front;
    for (const auto& t : s.report.value("pareto", nlohmann::json::array()))
        if (t["value"].is_number() && t["secondValue"].is_number())
            front.push_back({t["value"].get<double>(), t["secondValue"].get<double>()});
    std::sort(front.begin(), front.end());
    for (const auto& [x, y] : front) front_->addData(x, y);
    rescaleAxes();
    xAxis->scaleRange(1.1);
    yAxis->scaleRange(1.1);
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace nnwb
