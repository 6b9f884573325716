#include "ui/MetricChart.h"

namespace nnwb {

MetricChart::MetricChart(const QString& title, const QString& yLabel, QWidget* parent)
    : SeriesChart(title, yLabel, parent) {
    train_ = addSeries(tr("train"), QColor(0x1f, 0x77, 0xb4));
    validation_ = addSeries(tr("validation"), QColor(0xe4, 0x6c, 0x0a));
}

void MetricChart::addPoint(double epoch, double train, double validation, bool hasValidation) {
    train_->addData(epoch, train);
    if (hasValidation) validation_->addData(epoch, validation);
    scheduleReplot();
}

QCPGraph* MetricChart::thinGraph(const QCPGraph* like) {
    QCPGraph* g = addGraph();
    QColor colour = like->pen().color();
    colour.setAlpha(110);
    g->setPen(QPen(colour, 1.0));
    g->removeFromLegend();
    return g;
}

void MetricChart::addMemberPoint(int member, double epoch, double train, double validation,
                                 bool hasValidation) {
    if (member < 0) return;
    while (memberCount() <= member) members_.push_back({thinGraph(train_), thinGraph(validation_)});
    const Member& m = members_[size_t(member)];
    m.train->addData(epoch, train);
    if (hasValidation) m.validation->addData(epoch, validation);
    scheduleReplot();
}

void MetricChart::clearPoints() {
    for (const Member& m : members_) {
        removeGraph(m.train);
        removeGraph(m.validation);
    }
    members_.clear();
    clearSeries();
}

int MetricChart::pointCount() const {
    return train_->dataCount();
}

}  // namespace nnwb
