#include "ui/LearningRateChart.h"

namespace nnwb {

LearningRateChart::LearningRateChart(QWidget* parent)
    : SeriesChart(tr("Learning rate"), tr("rate per epoch"), parent) {
    rate_ = addSeries(tr("learning rate"), QColor(0x75, 0x50, 0xa8));
    yAxis->setNumberFormat(QStringLiteral("gb"));
    yAxis->setNumberPrecision(3);
}

void LearningRateChart::addPoint(double epoch, double rate) {
    rate_->addData(epoch, rate);
    scheduleReplot();
}

}  // namespace nnwb
