#include "ui/ComparisonChart.h"

#include <cmath>

namespace nnwb {

ComparisonChart::ComparisonChart(const QString& title, const QString& yLabel, QWidget* parent)
    : SeriesChart(title, yLabel, parent) {
    setInteractions(interactions() | QCP::iSelectLegend);
    legend->setSelectableParts(QCPLegend::spItems);
    connect(this, &QCustomPlot::legendClick, this,
            [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
                auto* plottable = qobject_cast<QCPPlottableLegendItem*>(item);
                if (!plottable) return;
                for (size_t i = 0; i < series_.size(); ++i) {
                    if (series_[i].train != plottable->plottable()) continue;
                    setRunVisible(static_cast<int>(i), !series_[i].visible);
                    Q_EMIT runToggled(static_cast<int>(i), series_[i].visible);
                }
                legend->setSelectedParts(QCPLegend::spNone);
            });
}

void ComparisonChart::setRuns(const QStringList& names, const std::vector<QColor>& colours) {
    clearGraphs();
    series_.clear();
    for (int i = 0; i < names.size(); ++i) {
        const QColor c = colours.at(size_t(i));
        Series s;
        s.train = addSeries(names[i], c);
        s.validation = addSeries(tr("%1 (validation)").arg(names[i]), c, true);
        s.validation->removeFromLegend();
        s.best = addGraph();
        s.best->setLineStyle(QCPGraph::lsNone);
        s.best->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, c, c.lighter(130), 13));
        s.best->setPen(QPen(c, 2));
        s.best->setName(tr("%1 (best epoch)").arg(names[i]));
        s.best->removeFromLegend();
        series_.push_back(s);
    }
    clearSeries();
}

void ComparisonChart::addPoint(int run, double epoch, double train, double validation,
                               bool hasValidation) {
    if (run < 0 || run >= runCount()) return;
    series_[size_t(run)].train->addData(epoch, train);
    if (hasValidation) series_[size_t(run)].validation->addData(epoch, validation);
    if (int(epoch) == series_[size_t(run)].bestEpoch) placeBest(run);
    scheduleReplot();
}

void ComparisonChart::setBestEpoch(int run, int epoch) {
    if (run < 0 || run >= runCount()) return;
    series_[size_t(run)].bestEpoch = epoch;
    placeBest(run);
    scheduleReplot();
}

void ComparisonChart::placeBest(int run) {
    Series& s = series_[size_t(run)];
    s.best->data()->clear();
    if (s.bestEpoch <= 0) return;
    QCPGraph* on = s.validation->dataCount() > 0 ? s.validation : s.train;
    const auto it = on->data()->findBegin(s.bestEpoch, false);
    if (it == on->data()->constEnd() || it->key != s.bestEpoch || std::isnan(it->value)) return;
    s.best->addData(it->key, it->value);
}

void ComparisonChart::clearRun(int run) {
    if (run < 0 || run >= runCount()) return;
    series_[size_t(run)].train->data()->clear();
    series_[size_t(run)].validation->data()->clear();
    series_[size_t(run)].best->data()->clear();
    series_[size_t(run)].bestEpoch = 0;
    scheduleReplot();
}

void ComparisonChart::setRunThin(int run) {
    if (run < 0 || run >= runCount()) return;
    Series& s = series_[size_t(run)];
    s.thin = true;
    for (QCPGraph* g : {s.train, s.validation}) {
        QPen pen = g->pen();
        QColor c = pen.color();
        c.setAlpha(110);
        pen.setColor(c);
        pen.setWidthF(1.0);
        g->setPen(pen);
        g->removeFromLegend();
    }
    s.best->setVisible(false);
    scheduleReplot();
}

void ComparisonChart::setRunVisible(int run, bool visible) {
    if (run < 0 || run >= runCount()) return;
    series_[size_t(run)].visible = visible;
    applyVisibility(run);
}

void ComparisonChart::setPartsVisible(bool training, bool validation) {
    showTraining_ = training;
    showValidation_ = validation;
    for (int i = 0; i < runCount(); ++i) applyVisibility(i);
}

void ComparisonChart::applyVisibility(int run) {
    Series& s = series_[size_t(run)];
    s.train->setVisible(s.visible && showTraining_);
    s.validation->setVisible(s.visible && showValidation_);
    s.best->setVisible(s.visible);
    // A hidden run stays in the legend, greyed, so that it can be shown again.
    if (QCPAbstractLegendItem* item = legend->itemWithPlottable(s.train))
        item->setTextColor(s.visible ? Qt::black : QColor(0xa0, 0xa0, 0xa0));
    scheduleReplot();
}

}  // namespace nnwb
