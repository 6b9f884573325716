#include "ui/AttentionGrid.h"

#include <algorithm>
#include <cmath>

#include "ui/AttentionHeatmap.h"

namespace nnwb {

AttentionGrid::AttentionGrid(QWidget* parent) : QCustomPlot(parent) {
    setMinimumSize(160, 150);
    // Each layout gives the maps' room exactly: labels thinned to an estimate are redrawn.
    connect(this, &QCustomPlot::afterLayout, this, [this] {
        if (updateTickers()) replot(QCustomPlot::rpQueuedReplot);
    });
    clearScores();
}

void AttentionGrid::clearScores() {
    units_ = tickUnits_ = 0;  // new maps get their tickers
    clearPlottables();
    plotLayout()->clear();
    maps_.clear();
    replot(QCustomPlot::rpQueuedReplot);
}

void AttentionGrid::setScores(const AttentionScores& s, const HeatmapStyle& style) {
    clearScores();
    const int n = s.units;
    if (n <= 0 || s.heads <= 0 || s.values.size() < static_cast<size_t>(s.heads) * n * n) return;
    const int cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(s.heads))));
    auto* scale = new QCPColorScale(this);
    scale->setType(QCPAxis::atRight);
    scale->axis()->setLabel(style.rowNormalized ? tr("score ÷ row max") : tr("score"));
    scale->setBarWidth(10);
    scale->setGradient(AttentionHeatmap::gradient());
    auto* group = new QCPMarginGroup(this);
    const QFont small(font().family(), 8);
    double hi = 0;
    for (int h = 0; h < s.heads; ++h) {
        auto* rect = new QCPAxisRect(this, true);
        plotLayout()->addElement(h / cols, h % cols, rect);
        rect->setMarginGroup(QCP::msLeft | QCP::msRight | QCP::msTop | QCP::msBottom, group);
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        QCPAxis* top = rect->axis(QCPAxis::atTop);
        top->setVisible(true);
        top->setTicks(false);
        top->setTickLabels(false);
        top->setBasePen(Qt::NoPen);
        top->setLabel(tr("head %1").arg(h + 1));
        top->setLabelFont(QFont(font().family(), 9, QFont::Bold));
        top->setLabelPadding(2);
        for (QCPAxis* a : {x, y}) {
            a->setTickLabelFont(small);
            a->grid()->setVisible(false);
            a->setRange(-0.5, n - 0.5);
        }
        y->setRangeReversed(true);
        auto* map = new QCPColorMap(x, y);
        map->setInterpolate(false);
        map->setTightBoundary(true);
        hi = std::max(hi, AttentionHeatmap::fillMap(map, s.values.data() + size_t(h) * n * n, n,
                                                    style.rowNormalized));
        map->setColorScale(scale);
        map->setGradient(AttentionHeatmap::gradient());
        maps_.push_back(map);
    }
    for (QCPColorMap* map : maps_) map->setDataRange(QCPRange(0, hi));
    scale->setDataRange(QCPRange(0, hi));
    units_ = n;
    cols_ = cols;
    rows_ = (s.heads + cols - 1) / cols;
    updateTickers();
    plotLayout()->addElement(0, cols, scale);
    if (rows_ > 1) {
        // let the scale span every row: take it into its own column cell and stretch
        scale->setMaximumSize(60, QWIDGETSIZE_MAX);
    }
    plotLayout()->setColumnStretchFactor(cols, 0.01);
    replot(QCustomPlot::rpQueuedReplot);
}

bool AttentionGrid::updateTickers(QSize grow) {
    if (units_ <= 0 || maps_.isEmpty()) return false;
    // A small map's room as the last layout left it (before the first one: its share of the
    // widget less about the room of its axes and the scale).
    QCPAxis* key = maps_.front()->keyAxis();
    const QRect r = key->axisRect()->rect();
    const int w = r.width() > 0 ? std::max(1, r.width() + grow.width() / cols_)
                                : std::max(1, (width() - 70) / cols_ - 40);
    const int h = r.height() > 0 ? std::max(1, r.height() + grow.height() / rows_)
                                 : std::max(1, height() / rows_ - 50);
    const int across = AttentionHeatmap::labelsAcross(units_, w, key->tickLabelFont());
    const int down = AttentionHeatmap::labelsDown(h, maps_.front()->valueAxis()->tickLabelFont());
    if (units_ == tickUnits_ && across == across_ && down == down_) return false;
    tickUnits_ = units_;
    across_ = across;
    down_ = down;
    for (QCPColorMap* map : maps_) {
        map->keyAxis()->setTicker(AttentionHeatmap::offsetTicker(units_, across));
        map->valueAxis()->setTicker(AttentionHeatmap::offsetTicker(units_, down));
    }
    return true;
}

void AttentionGrid::resizeEvent(QResizeEvent* e) {
    // The labels are thinned to the new size before QCustomPlot lays the plot out at it and
    // replots (before, they were thinned after that replot, which drew the old size's labels:
    // they overlapped once the pane got narrower); the next layout corrects the estimate.
    const bool laidOut = e->oldSize().isValid();
    updateTickers(laidOut ? e->size() - e->oldSize() : QSize(0, 0));
    QCustomPlot::resizeEvent(e);
}

}  // namespace nnwb
