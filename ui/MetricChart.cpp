#include "ui/MetricChart.h"

#include <cmath>

namespace nnwb {

namespace {
const QColor kTrain(0x1f, 0x77, 0xb4);
const QColor kValidation(0xe4, 0x6c, 0x0a);
}  // namespace

MetricChart::MetricChart(const QString& title, const QString& yLabel, QWidget* parent)
    : QCustomPlot(parent) {
    setMinimumSize(150, 150);
    setAntialiasedElements(QCP::aeAll);
    setNoAntialiasingOnDrag(true);
    plotLayout()->insertRow(0);
    auto* titleElement = new QCPTextElement(this, title, QFont(font().family(), 10, QFont::Bold));
    plotLayout()->addElement(0, 0, titleElement);
    xAxis->setLabel(tr("epoch"));
    yAxis->setLabel(yLabel);
    unit_ = yLabel.contains(QLatin1Char('%')) ? QStringLiteral(" %") : QString();
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    xAxis->setTicker(ticker);
    xAxis->grid()->setSubGridVisible(false);
    yAxis->grid()->setSubGridVisible(true);
    xAxis->setRange(0.5, 5.5);
    yAxis->setRange(0, 1);

    train_ = addGraph();
    train_->setName(tr("train"));
    train_->setPen(QPen(kTrain, 2));
    train_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kTrain, kTrain, 5));
    validation_ = addGraph();
    validation_->setName(tr("validation"));
    validation_->setPen(QPen(kValidation, 2));
    validation_->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, kValidation, kValidation, 5));

    // The legend sits in its own row under the title, never over the curves.
    legend->setVisible(true);
    legend->setBrush(Qt::NoBrush);
    legend->setBorderPen(Qt::NoPen);
    QFont lf = font();
    lf.setPointSizeF(lf.pointSizeF() * 0.9);
    legend->setFont(lf);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setMargins(QMargins(2, 0, 2, 0));
    plotLayout()->insertRow(1);
    plotLayout()->addElement(1, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);
    plotLayout()->setRowSpacing(0);

    tracer_ = new QCPItemTracer(this);
    tracer_->setStyle(QCPItemTracer::tsCircle);
    tracer_->setSize(9);
    tracer_->setPen(QPen(Qt::black, 1.5));
    tracer_->setInterpolating(false);
    tracer_->setVisible(false);
    readout_ = new QCPItemText(this);
    readout_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    readout_->position->setParentAnchor(tracer_->position);
    readout_->position->setCoords(8, -6);
    readout_->setPadding(QMargins(4, 2, 4, 2));
    readout_->setBrush(QColor(255, 255, 255, 230));
    readout_->setPen(QPen(QColor(0x99, 0x99, 0x99)));
    readout_->setVisible(false);

    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    replotTimer_.setSingleShot(true);
    replotTimer_.setInterval(40);
    connect(&replotTimer_, &QTimer::timeout, this, &MetricChart::doReplot);
    // Dragging or zooming by hand turns autoscale off until the next clear or double click.
    connect(this, &QCustomPlot::mouseWheel, this, [this] { autoscale_ = false; });
    connect(this, &QCustomPlot::mousePress, this, [this] { autoscale_ = false; });
    connect(this, &QCustomPlot::mouseDoubleClick, this, [this] {
        autoscale_ = true;
        scheduleReplot();
    });
}

void MetricChart::addPoint(double epoch, double train, double validation, bool hasValidation) {
    train_->addData(epoch, train);
    if (hasValidation) validation_->addData(epoch, validation);
    scheduleReplot();
}

void MetricChart::clearPoints() {
    train_->data()->clear();
    validation_->data()->clear();
    tracer_->setVisible(false);
    readout_->setVisible(false);
    autoscale_ = true;
    scheduleReplot();
}

int MetricChart::pointCount() const { return train_->dataCount(); }

void MetricChart::scheduleReplot() {
    if (!replotTimer_.isActive()) replotTimer_.start();
}

void MetricChart::setAutoscale(bool on) {
    autoscale_ = on;
    scheduleReplot();
}

void MetricChart::doReplot() {
    if (autoscale_ && train_->dataCount() > 0) {
        const double last = train_->data()->constEnd()[-1].key;
        xAxis->setRange(0.5, std::max(5.5, last + 0.5));
        bool found = false;
        QCPRange y = train_->data()->valueRange(found);
        bool foundV = false;
        const QCPRange yv = validation_->data()->valueRange(foundV);
        if (foundV) y.expand(yv);
        double pad = (y.upper - y.lower) * 0.08;
        if (pad <= 0) pad = std::max(1e-3, std::abs(y.upper) * 0.1);
        double lo = y.lower - pad;
        if (y.lower >= 0 && lo < 0) lo = 0;
        yAxis->setRange(lo, y.upper + pad);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void MetricChart::mouseMoveEvent(QMouseEvent* e) {
    QCustomPlot::mouseMoveEvent(e);
    if (train_->dataCount() == 0) return;
    const double x = xAxis->pixelToCoord(e->position().x());
    const double y = yAxis->pixelToCoord(e->position().y());
    // Snap to the nearest epoch of the graph nearer to the pointer.
    QCPGraph* g = train_;
    if (validation_->dataCount() > 0) {
        const auto ti = train_->data()->findBegin(x - 0.5);
        const auto vi = validation_->data()->findBegin(x - 0.5);
        if (ti != train_->data()->constEnd() && vi != validation_->data()->constEnd() &&
            std::abs(vi->value - y) < std::abs(ti->value - y))
            g = validation_;
    }
    tracer_->setGraph(g);
    tracer_->setGraphKey(std::round(x));
    tracer_->updatePosition();
    const double key = tracer_->position->key();
    const double value = tracer_->position->value();
    readout_->setText(tr("%1 · epoch %2\n%3%4")
                          .arg(g->name())
                          .arg(key, 0, 'f', 0)
                          .arg(value, 0, 'g', 5)
                          .arg(unit_));
    tracer_->setVisible(true);
    readout_->setVisible(true);
    replot(QCustomPlot::rpQueuedReplot);
}

void MetricChart::leaveEvent(QEvent* e) {
    QCustomPlot::leaveEvent(e);
    tracer_->setVisible(false);
    readout_->setVisible(false);
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace nnwb
