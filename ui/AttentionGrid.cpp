#include "ui/AttentionGrid.h"

#include <algorithm>
#include <cmath>

#include "ui/AttentionHeatmap.h"

namespace nnwb {

AttentionGrid::AttentionGrid(QWidget* parent) : QCustomPlot(parent) {
    setMinimumSize(160, 150);
    clearScores();
}

void AttentionGrid::clearScores() {
    clearPlottables();
    plotLayout()->clear();
    maps_.clear();
    replot(QCustomPlot::rpQueuedReplot);
}

void AttentionGrid::setScores(const AttentionScores& s) {
    clearScores();
    const int n = s.units;
    if (n <= 0 || s.heads <= 0 ||
        s.values.size() < static_cast<size_t>(s.heads) * n * n)
        return;
    const int cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(s.heads))));
    double hi = 0;
    for (float v : s.values) hi = std::max(hi, static_cast<double>(v));
    auto* scale = new QCPColorScale(this);
    scale->setType(QCPAxis::atRight);
    scale->axis()->setLabel(tr("score"));
    scale->setBarWidth(10);
    scale->setGradient(AttentionHeatmap::gradient());
    scale->setDataRange(QCPRange(0, hi > 0 ? hi : 1));
    auto* group = new QCPMarginGroup(this);
    const QFont small(font().family(), 8);
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
            a->setTicker(AttentionHeatmap::offsetTicker(n));
            a->setTickLabelFont(small);
            a->grid()->setVisible(false);
            a->setRange(-0.5, n - 0.5);
        }
        y->setRangeReversed(true);
        auto* map = new QCPColorMap(x, y);
        map->setInterpolate(false);
        map->setTightBoundary(true);
        map->data()->setSize(n, n);
        map->data()->setRange(QCPRange(0, std::max(1, n - 1)), QCPRange(0, std::max(1, n - 1)));
        const float* m = s.values.data() + static_cast<size_t>(h) * n * n;
        for (int q = 0; q < n; ++q)
            for (int k = 0; k < n; ++k) map->data()->setCell(k, q, m[q * n + k]);
        map->setColorScale(scale);
        map->setGradient(AttentionHeatmap::gradient());
        map->setDataRange(QCPRange(0, hi > 0 ? hi : 1));
        maps_.push_back(map);
    }
    const int rows = (s.heads + cols - 1) / cols;
    plotLayout()->addElement(0, cols, scale);
    if (rows > 1) {
        // let the scale span every row: take it into its own column cell and stretch
        scale->setMaximumSize(60, QWIDGETSIZE_MAX);
    }
    plotLayout()->setColumnStretchFactor(cols, 0.01);
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace nnwb
