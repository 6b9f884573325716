#include "ui/SeriesChart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/LegendColumns.h"

namespace nnwb {

SeriesChart::SeriesChart(const QString& title, const QString& yLabel, QWidget* parent)
    : QCustomPlot(parent) {
    setMinimumSize(130, 150);  // four side by side fit a 1280 px window
    setAntialiasedElements(QCP::aeAll);
    setNoAntialiasingOnDrag(true);
    plotLayout()->insertRow(0);
    auto* titleElement = new QCPTextElement(this, title, QFont(font().family(), 10, QFont::Bold));
    plotLayout()->addElement(0, 0, titleElement);
    xAxis->setLabel(tr("epoch"));
    yAxis->setLabel(yLabel);
    yLabel_ = yLabel;
    unit_ = yLabel.contains(QLatin1Char('%')) ? QStringLiteral(" %") : QString();
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    xAxis->setTicker(ticker);
    xAxis->grid()->setSubGridVisible(false);
    yAxis->grid()->setSubGridVisible(true);
    xAxis->setRange(0.5, 5.5);
    yAxis->setRange(0, 1);

    addLegendRow();

    createItems();

    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    replotTimer_.setSingleShot(true);
    replotTimer_.setInterval(40);
    connect(&replotTimer_, &QTimer::timeout, this, &SeriesChart::doReplot);
    // Each layout (a resize, another tab) knows the axis rect's height: the label follows it.
    connect(this, &QCustomPlot::afterLayout, this, &SeriesChart::fitYLabel);
    // Dragging or zooming by hand turns autoscale off until the next clear or double click.
    connect(this, &QCustomPlot::mouseWheel, this, [this] { autoscale_ = false; });
    connect(this, &QCustomPlot::mousePress, this, [this] { autoscale_ = false; });
    connect(this, &QCustomPlot::mouseDoubleClick, this, [this] {
        autoscale_ = true;
        scheduleReplot();
    });
}

void SeriesChart::createItems() {
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

    marker_ = new QCPItemStraightLine(this);
    marker_->setPen(QPen(QColor(0x2c, 0xa0, 0x2c), 1.5, Qt::DashLine));
    marker_->setSelectable(false);
    marker_->setVisible(false);
    markerText_ = new QCPItemText(this);
    markerText_->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
    markerText_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    markerText_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    markerText_->setColor(QColor(0x2c, 0xa0, 0x2c));
    markerText_->setBrush(QColor(255, 255, 255, 220));
    markerText_->setPadding(QMargins(3, 1, 3, 1));
    markerText_->setSelectable(false);
    markerText_->setClipToAxisRect(false);  // "best 1" next to the left axis stays whole
    markerText_->setVisible(false);

    placeholder_ = new QCPItemText(this);
    placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
    placeholder_->position->setCoords(0.5, 0.5);
    placeholder_->setPositionAlignment(Qt::AlignCenter);
    placeholder_->setColor(QColor(0x80, 0x80, 0x80));
    placeholder_->setBrush(QColor(255, 255, 255, 230));
    placeholder_->setPadding(QMargins(6, 4, 6, 4));
    placeholder_->setSelectable(false);
    placeholder_->setText(QString());  // QCPItemText starts as "text"
    placeholder_->setVisible(false);
}

void SeriesChart::addLegendRow() {
    putLegendInOwnRow(this, 1);  // under the title, never over the curves
}

QCPGraph* SeriesChart::addSeries(const QString& name, const QColor& colour, bool dashed) {
    QCPGraph* g = addGraph();
    g->setName(name);
    QPen pen(colour, 2);
    if (dashed) pen.setStyle(Qt::DashLine);
    g->setPen(pen);
    const QBrush fill = dashed ? QBrush(Qt::white) : QBrush(colour);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, fill.color(), 6));
    return g;
}

void SeriesChart::setMarker(double epoch, const QString& label) {
    markerEpoch_ = epoch > 0 ? epoch : 0;
    marker_->setVisible(markerEpoch_ > 0);
    markerText_->setVisible(markerEpoch_ > 0);
    marker_->point1->setCoords(markerEpoch_, 0);
    marker_->point2->setCoords(markerEpoch_, 1);
    markerText_->position->setCoords(markerEpoch_, 0.02);
    markerText_->setText(label);
    scheduleReplot();
}

QString SeriesChart::markerLabel() const {
    return markerEpoch_ > 0 ? markerText_->text() : QString();
}

void SeriesChart::setPlaceholder(const QString& text) {
    placeholder_->setText(text);
    scheduleReplot();
}

bool SeriesChart::placeholderShown() const {
    if (placeholder_->text().isEmpty()) return false;
    for (int i = 0; i < graphCount(); ++i)
        if (graph(i)->dataCount() > 0) return false;
    return true;
}

void SeriesChart::clearSeries() {
    for (int i = 0; i < graphCount(); ++i) graph(i)->data()->clear();
    setMarker(0, QString());
    tracer_->setVisible(false);
    readout_->setVisible(false);
    autoscale_ = true;
    // The empty chart's ranges, not the last run's: a new run starts from these.
    xAxis->setRange(0.5, 5.5);
    yAxis->setRange(0, 1);
    scheduleReplot();
}

void SeriesChart::scheduleReplot() {
    if (!replotTimer_.isActive()) replotTimer_.start();
}

void SeriesChart::setAutoscale(bool on) {
    autoscale_ = on;
    scheduleReplot();
}

void SeriesChart::fitLegend() {
    fitLegendColumns(legend, width() - 4);
}

void SeriesChart::fitYLabel() {
    const QFontMetrics fm(yAxis->labelFont());
    QString label = yLabel_;
    if (fm.horizontalAdvance(label) > axisRect()->height())
        label = unit_.isEmpty() ? QString() : QStringLiteral("(%)");
    // As many ticks as the axes have room for: at 1024x600 the epoch axis of a 90 px plot
    // had "2 4 6 810" and the value axis seven labels in 75 px.
    const int xTicks = std::clamp(axisRect()->width() / 34, 2, 8);
    const int yTicks = std::clamp(axisRect()->height() / 30, 2, 6);
    const bool ticks =
        xAxis->ticker()->tickCount() != xTicks || yAxis->ticker()->tickCount() != yTicks;
    xAxis->ticker()->setTickCount(xTicks);
    yAxis->ticker()->setTickCount(yTicks);
    if (label == yAxis->label() && !ticks) return;
    yAxis->setLabel(label);
    replot(QCustomPlot::rpQueuedReplot);
}

void SeriesChart::resizeEvent(QResizeEvent* e) {
    fitLegend();
    QCustomPlot::resizeEvent(e);
    if (markerEpoch_ > 0) scheduleReplot();  // the label's side follows the plot's size
}

void SeriesChart::doReplot() {
    fitLegend();
    if (autoscale_) {
        bool any = false;
        double lastKey = 0;
        QCPRange y;
        for (int i = 0; i < graphCount(); ++i) {
            QCPGraph* g = graph(i);
            if (!g->visible() || g->dataCount() == 0) continue;
            bool found = false;
            const QCPRange r = g->data()->valueRange(found);
            if (!found) continue;
            if (any)
                y.expand(r);
            else
                y = r;
            lastKey = std::max(lastKey, g->data()->constEnd()[-1].key);
            any = true;
        }
        if (any) {
            xAxis->setRange(0.5, std::max(5.5, lastKey + 0.5));
            double pad = (y.upper - y.lower) * 0.08;
            if (pad <= 0) pad = std::max(1e-3, std::abs(y.upper) * 0.1);
            double lo = y.lower - pad;
            if (y.lower >= 0 && lo < 0) lo = 0;
            yAxis->setRange(lo, y.upper + pad);
        }
    }
    placeholder_->setVisible(placeholderShown());
    placeMarkerText();
    replot(QCustomPlot::rpQueuedReplot);
}

void SeriesChart::placeMarkerText() {
    if (markerEpoch_ <= 0) return;
    const QRect rect = axisRect()->rect();
    const QCPRange y = yAxis->range(), x = xAxis->range();
    if (rect.height() <= 0 || rect.width() <= 0 || y.size() <= 0 || x.size() <= 0) return;
    // The label's box as shares of the plot's height and, in epochs, half its width.
    const QFontMetrics fm(markerText_->font());
    const double tall = (fm.height() + 2.0 + 8.0) / rect.height();  // padding, 2 % inset
    const double halfEpochs =
        (fm.horizontalAdvance(markerText_->text()) / 2.0 + 6.0) * x.size() / rect.width();
    bool top = false, bottom = false;
    for (int i = 0; i < graphCount(); ++i) {
        const QCPGraph* g = graph(i);
        if (!g->visible()) continue;
        // The points under the label and the next on either side (the lines between them).
        for (auto it = g->data()->findBegin(markerEpoch_ - halfEpochs - 1.0);
             it != g->data()->constEnd() && it->key <= markerEpoch_ + halfEpochs + 1.0; ++it) {
            if (!std::isfinite(it->value)) continue;
            const double share = (y.upper - it->value) / y.size();  // 0 at the top, 1 at the bottom
            top = top || share <= tall;
            bottom = bottom || share >= 1.0 - tall;
        }
    }
    // At the top, where the best epoch's low loss leaves room; at the bottom where the curves
    // pass under the top edge there and not the bottom one (it covered them at 1024x600).
    const bool low = top && !bottom;
    markerText_->setPositionAlignment(Qt::AlignHCenter | (low ? Qt::AlignBottom : Qt::AlignTop));
    markerText_->position->setCoords(markerEpoch_, low ? 0.98 : 0.02);
}

bool SeriesChart::markerLabelAtBottom() const {
    return markerEpoch_ > 0 && (markerText_->positionAlignment() & Qt::AlignBottom);
}

void SeriesChart::mouseMoveEvent(QMouseEvent* e) {
    QCustomPlot::mouseMoveEvent(e);
    const double x = xAxis->pixelToCoord(e->position().x());
    const double y = yAxis->pixelToCoord(e->position().y());
    // Snap to the nearest epoch of the visible series nearest to the pointer.
    QCPGraph* best = nullptr;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (int i = 0; i < graphCount(); ++i) {
        QCPGraph* g = graph(i);
        if (!g->visible() || g->dataCount() == 0) continue;
        const auto it = g->data()->findBegin(x - 0.5);
        if (it == g->data()->constEnd()) continue;
        const double d = std::abs(it->value - y);
        if (d < bestDistance) bestDistance = d, best = g;
    }
    if (!best) return;
    tracer_->setGraph(best);
    tracer_->setGraphKey(std::round(x));
    tracer_->updatePosition();
    const double key = tracer_->position->key();
    const double value = tracer_->position->value();
    readout_->setText(tr("%1 · epoch %2\n%3%4")
                          .arg(best->name())
                          .arg(key, 0, 'f', 0)
                          .arg(value, 0, 'g', 5)
                          .arg(unit_));
    tracer_->setVisible(true);
    readout_->setVisible(true);
    replot(QCustomPlot::rpQueuedReplot);
}

void SeriesChart::leaveEvent(QEvent* e) {
    QCustomPlot::leaveEvent(e);
    tracer_->setVisible(false);
    readout_->setVisible(false);
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace nnwb
