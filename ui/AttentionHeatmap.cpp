#include "ui/AttentionHeatmap.h"

#include <algorithm>
#include <cmath>

#include <QToolTip>

namespace nnwb {

QCPColorGradient AttentionHeatmap::gradient() {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
    g.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
    g.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
    g.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
    g.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    return g;
}

QSharedPointer<QCPAxisTicker> AttentionHeatmap::offsetTicker(int units, int maxLabels) {
    QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
    maxLabels = std::max(2, maxLabels);
    int step = 1;
    for (int s : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}) {
        step = s;
        if ((units + s - 1) / s <= maxLabels) break;
    }
    for (int i = 0; i < units; ++i) {
        const int offset = i - (units - 1);
        if (offset % step != 0) continue;
        t->addTick(i, offset == 0 ? QStringLiteral("t") : QStringLiteral("t%1").arg(offset));
    }
    return t;
}

int AttentionHeatmap::labelsAcross(int units, int room, const QFont& font) {
    const QFontMetrics fm(font);
    const int label = fm.horizontalAdvance(QStringLiteral("t-%1").arg(std::max(1, units - 1))) +
                      fm.horizontalAdvance(QLatin1Char('M'));
    return room / std::max(1, label);
}

int AttentionHeatmap::labelsDown(int room, const QFont& font) {
    return room / std::max(1, QFontMetrics(font).height() + 2);
}

double AttentionHeatmap::fillMap(QCPColorMap* map, const float* m, int n, bool rowNormalized) {
    map->data()->setSize(n, n);
    map->data()->setRange(QCPRange(0, std::max(1, n - 1)), QCPRange(0, std::max(1, n - 1)));
    double hi = 0;
    for (int q = 0; q < n; ++q) {
        double rowMax = 0;
        for (int k = 0; k < n; ++k) rowMax = std::max(rowMax, double(m[q * n + k]));
        for (int k = 0; k < n; ++k) {
            double v = m[q * n + k];
            if (rowNormalized) v = rowMax > 0 ? v / rowMax : 0.0;
            map->data()->setCell(k, q, v);
            hi = std::max(hi, v);
        }
    }
    return hi > 0 ? hi : 1.0;
}

QString AttentionHeatmap::queryLabel(bool bars) {
    return bars ? tr("query bar") : tr("query element");
}

QString AttentionHeatmap::keyLabel(bool bars) {
    return bars ? tr("key bar (offset from newest)") : tr("key element (offset from last)");
}

AttentionHeatmap::AttentionHeatmap(QWidget* parent) : QCustomPlot(parent) {
    setMinimumSize(160, 150);
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, QString(), QFont(font().family(), 10, QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    yAxis->setRangeReversed(true);
    xAxis->grid()->setVisible(false);
    yAxis->grid()->setVisible(false);
    map_ = new QCPColorMap(xAxis, yAxis);
    map_->setInterpolate(false);
    map_->setTightBoundary(true);
    scale_ = new QCPColorScale(this);
    plotLayout()->addElement(1, 1, scale_);
    scale_->setType(QCPAxis::atRight);
    scale_->setBarWidth(12);
    map_->setColorScale(scale_);
    map_->setGradient(gradient());
    auto* group = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    scale_->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    // Each layout gives the matrix's room exactly: labels thinned to an estimate are redrawn.
    connect(this, &QCustomPlot::afterLayout, this, [this] {
        if (updateTickers()) replot(QCustomPlot::rpQueuedReplot);
    });
    clearScores();
}

void AttentionHeatmap::clearScores() {
    units_ = 0;
    matrix_.clear();
    map_->data()->clear();
    map_->setVisible(false);
    if (title_) title_->setText(tr("Score matrix"));
    render();
}

void AttentionHeatmap::setScores(const AttentionScores& s, int head, const QString& title) {
    if (s.units <= 0 || head < 0 || head >= s.heads ||
        s.values.size() < static_cast<size_t>(s.heads) * s.units * s.units) {
        clearScores();
        return;
    }
    units_ = s.units;
    const size_t n = static_cast<size_t>(s.units);
    const auto first = s.values.begin() + static_cast<std::ptrdiff_t>(size_t(head) * n * n);
    matrix_.assign(first, first + static_cast<std::ptrdiff_t>(n * n));
    if (title_) title_->setText(title);
    render();
}

void AttentionHeatmap::removeTitle() {
    if (!title_) return;
    plotLayout()->remove(title_);  // deletes it
    plotLayout()->simplify();      // and its empty row
    title_ = nullptr;
    replot(QCustomPlot::rpQueuedReplot);
}

void AttentionHeatmap::setStyle(const HeatmapStyle& style) {
    style_ = style;
    render();
}

void AttentionHeatmap::render() {
    xAxis->setLabel(keyLabel(style_.elementsAreBars));
    yAxis->setLabel(queryLabel(style_.elementsAreBars));
    scale_->axis()->setLabel(style_.rowNormalized ? tr("score ÷ row max") : tr("score"));
    if (units_ > 0) {
        const int n = units_;
        map_->setVisible(true);
        map_->setDataRange(QCPRange(0, fillMap(map_, matrix_.data(), n, style_.rowNormalized)));
        xAxis->setRange(-0.5, n - 0.5);
        yAxis->setRange(-0.5, n - 0.5);
        updateTickers();
    }
    replot(QCustomPlot::rpQueuedReplot);
}

bool AttentionHeatmap::updateTickers(QSize grow) {
    if (units_ <= 0) return false;
    // The matrix's room as the last layout left it (before the first one: the widget less
    // about the room of the axes and the colour scale).
    const QRect r = axisRect()->rect();
    const int w =
        r.width() > 0 ? std::max(1, r.width() + grow.width()) : std::max(1, width() - 120);
    const int h =
        r.height() > 0 ? std::max(1, r.height() + grow.height()) : std::max(1, height() - 90);
    const int across = labelsAcross(units_, w, xAxis->tickLabelFont());
    const int down = labelsDown(h, yAxis->tickLabelFont());
    if (units_ == tickUnits_ && across == across_ && down == down_) return false;
    tickUnits_ = units_;
    across_ = across;
    down_ = down;
    xAxis->setTicker(offsetTicker(units_, across));
    yAxis->setTicker(offsetTicker(units_, down));
    return true;
}

void AttentionHeatmap::resizeEvent(QResizeEvent* e) {
    // The labels are thinned to the new size before QCustomPlot lays the plot out at it and
    // replots (before, they were thinned after that replot, which drew the old size's labels:
    // they overlapped once the pane got narrower); the next layout corrects the estimate.
    const bool laidOut = e->oldSize().isValid();
    updateTickers(laidOut ? e->size() - e->oldSize() : QSize(0, 0));
    QCustomPlot::resizeEvent(e);
}

double AttentionHeatmap::cellValue(int query, int key) const {
    if (query < 0 || key < 0 || query >= units_ || key >= units_) return 0.0;
    return matrix_[size_t(query) * size_t(units_) + size_t(key)];
}

void AttentionHeatmap::mouseMoveEvent(QMouseEvent* e) {
    QCustomPlot::mouseMoveEvent(e);
    if (units_ <= 0) return;
    const int k = static_cast<int>(std::lround(xAxis->pixelToCoord(e->position().x())));
    const int q = static_cast<int>(std::lround(yAxis->pixelToCoord(e->position().y())));
    if (k < 0 || q < 0 || k >= units_ || q >= units_) {
        QToolTip::hideText();
        return;
    }
    auto off = [this](int i) {
        const int o = i - (units_ - 1);
        return o == 0 ? QStringLiteral("t") : QStringLiteral("t%1").arg(o);
    };
    QToolTip::showText(
        e->globalPosition().toPoint(),
        tr("query %1 → key %2: %3").arg(off(q), off(k)).arg(cellValue(q, k), 0, 'f', 4), this);
}

}  // namespace nnwb
