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

QSharedPointer<QCPAxisTicker> AttentionHeatmap::offsetTicker(int units) {
    QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
    const int step = units <= 12 ? 1 : units <= 24 ? 2 : units <= 60 ? 5 : 10;
    for (int i = 0; i < units; ++i) {
        const int offset = i - (units - 1);
        if (offset % step != 0) continue;
        t->addTick(i, offset == 0 ? QStringLiteral("t") : QStringLiteral("t%1").arg(offset));
    }
    return t;
}

AttentionHeatmap::AttentionHeatmap(QWidget* parent) : QCustomPlot(parent) {
    setMinimumSize(160, 150);
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, QString(), QFont(font().family(), 10, QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    xAxis->setLabel(tr("key bar (offset from newest)"));
    yAxis->setLabel(tr("query bar"));
    yAxis->setRangeReversed(true);
    xAxis->grid()->setVisible(false);
    yAxis->grid()->setVisible(false);
    map_ = new QCPColorMap(xAxis, yAxis);
    map_->setInterpolate(false);
    map_->setTightBoundary(true);
    scale_ = new QCPColorScale(this);
    plotLayout()->addElement(1, 1, scale_);
    scale_->setType(QCPAxis::atRight);
    scale_->axis()->setLabel(tr("score"));
    scale_->setBarWidth(12);
    map_->setColorScale(scale_);
    map_->setGradient(gradient());
    auto* group = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    scale_->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    clearScores();
}

void AttentionHeatmap::clearScores() {
    units_ = 0;
    map_->data()->clear();
    map_->setVisible(false);
    title_->setText(tr("Score matrix"));
    replot(QCustomPlot::rpQueuedReplot);
}

void AttentionHeatmap::setScores(const AttentionScores& s, int head, const QString& title) {
    if (s.units <= 0 || head < 0 || head >= s.heads ||
        s.values.size() < static_cast<size_t>(s.heads) * s.units * s.units) {
        clearScores();
        return;
    }
    units_ = s.units;
    const int n = s.units;
    map_->data()->setSize(n, n);
    map_->data()->setRange(QCPRange(0, std::max(1, n - 1)), QCPRange(0, std::max(1, n - 1)));
    const float* m = s.values.data() + static_cast<size_t>(head) * n * n;
    double hi = 0;
    for (int q = 0; q < n; ++q)
        for (int k = 0; k < n; ++k) {
            const double v = m[q * n + k];
            map_->data()->setCell(k, q, v);
            hi = std::max(hi, v);
        }
    map_->setVisible(true);
    map_->setDataRange(QCPRange(0, hi > 0 ? hi : 1));
    xAxis->setTicker(offsetTicker(n));
    yAxis->setTicker(offsetTicker(n));
    xAxis->setRange(-0.5, n - 0.5);
    yAxis->setRange(-0.5, n - 0.5);
    title_->setText(title);
    replot(QCustomPlot::rpQueuedReplot);
}

double AttentionHeatmap::cellValue(int query, int key) const {
    if (query < 0 || key < 0 || query >= units_ || key >= units_) return 0.0;
    return map_->data()->cell(key, query);
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
    QToolTip::showText(e->globalPosition().toPoint(),
                       tr("query %1 → key %2: %3").arg(off(q), off(k)).arg(cellValue(q, k), 0,
                                                                           'f', 4),
                       this);
}

}  // namespace nnwb
