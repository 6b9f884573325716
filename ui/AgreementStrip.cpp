#include "ui/AgreementStrip.h"

namespace nnwb {

AgreementStrip::AgreementStrip(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("priceChartAgreement"));
    // 36 px (its bars 32 px): at 56 the candles above it plotted in 136 px at 1280x720.
    setFixedHeight(36);
    xAxis->setVisible(false);
    yAxis->setRange(0.0, 1.0);
    yAxis->setTickLabelFont(QFont(font().family(), 7));
    yAxis->setLabel(tr("agree"));
    yAxis->setLabelFont(QFont(font().family(), 7));
    QSharedPointer<QCPAxisTickerFixed> ticks(new QCPAxisTickerFixed);
    ticks->setTickStep(0.5);
    yAxis->setTicker(ticks);
    axisRect()->setAutoMargins(QCP::msLeft);
    axisRect()->setMargins(QMargins(0, 2, 10, 2));
    bars_ = new QCPBars(xAxis, yAxis);
    bars_->setWidth(1.0);
    bars_->setPen(Qt::NoPen);
    bars_->setBrush(QColor(123, 31, 162, 150));
    setToolTip(
        tr("The ensemble's agreement per bar: the share of its members voting for its "
           "signal. Where it is low the members disagree: trust the model less there "
           "(trading.minAgreement)."));
    setVisible(false);
}

void AgreementStrip::setAgreement(size_t firstBar, std::vector<float> agreement) {
    first_ = firstBar;
    agreement_ = std::move(agreement);
    QVector<double> keys, values;
    keys.reserve(int(agreement_.size()));
    values.reserve(int(agreement_.size()));
    for (size_t k = 0; k < agreement_.size(); ++k) {
        keys.push_back(double(first_ + k));
        values.push_back(double(agreement_[k]));
    }
    bars_->setData(keys, values, true);
    setVisible(!agreement_.empty());
    replot(QCustomPlot::rpQueuedReplot);
}

double AgreementStrip::belowShare(float share) const {
    if (agreement_.empty()) return 0.0;
    size_t below = 0;
    for (float a : agreement_) below += a < share ? 1 : 0;
    return double(below) / double(agreement_.size());
}

void AgreementStrip::followRange(const QCPRange& range) {
    xAxis->setRange(range);
    if (isVisible()) replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace nnwb
