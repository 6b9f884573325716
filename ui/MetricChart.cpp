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

int MetricChart::pointCount() const {
    return train_->dataCount();
}

}  // namespace nnwb
