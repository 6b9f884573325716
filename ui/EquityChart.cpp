#include "ui/EquityChart.h"

#include <algorithm>

#include <QVBoxLayout>

#include "model/trading/TradingReport.h"
#include "ui/Plot.h"

namespace nnwb {

namespace {
const QColor kEquity(40, 90, 170);
const QColor kLong(0, 140, 60);
const QColor kShort(200, 40, 40);
const QColor kExit(90, 90, 90);

QCPGraph* marks(QCustomPlot* plot, QCPScatterStyle::ScatterShape shape, const QColor& c,
                const QString& name) {
    QCPGraph* g = plot->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(shape, QPen(c, 1.2), QBrush(c), 7));
    g->setName(name);
    return g;
}

// The equity at bar `bar` (the report's equity is per bar from its first bar).
double equityAt(const TradingEquity& e, size_t bar) {
    if (e.bar.empty()) return 0.0;
    const auto it = std::lower_bound(e.bar.begin(), e.bar.end(), bar);
    if (it == e.bar.end()) return e.points.back();
    return e.points[static_cast<size_t>(it - e.bar.begin())];
}
}  // namespace

EquityChart::EquityChart(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("equityPlot"));
    plot_->setMinimumHeight(70);
    layout->addWidget(plot_);
    plot_->yAxis->setLabel(tr("net, points"));
    plot_->xAxis->setTickLabels(false);
    plot_->axisRect()->setMargins(QMargins(0, 0, 0, 0));
    equity_ = plot_->addGraph();
    equity_->setName(tr("equity"));
    equity_->setPen(QPen(kEquity, 1.5));
    equity_->setLineStyle(QCPGraph::lsStepLeft);
    longEntries_ = marks(plot_, QCPScatterStyle::ssTriangle, kLong, tr("long in"));
    shortEntries_ = marks(plot_, QCPScatterStyle::ssTriangleInverted, kShort, tr("short in"));
    exits_ = marks(plot_, QCPScatterStyle::ssCircle, kExit, tr("exit"));
    auto* zero = new QCPItemStraightLine(plot_);
    zero->point1->setCoords(0, 0);
    zero->point2->setCoords(1, 0);
    zero->setPen(QPen(QColor(150, 150, 150), 1, Qt::DashLine));
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), 7));
    // One row of its own above the curve: inside the plot, the four entries covered the curve
    // of a short pane (1280×720).
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setRowSpacing(0);
    plot_->legend->setColumnSpacing(6);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setBrush(Qt::NoBrush);
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->axisRect()->insetLayout()->simplify();
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    plot_->plotLayout()->setRowSpacing(0);
}

void EquityChart::setReport(const TradingReport* report) {
    QVector<double> x, y, lx, ly, sx, sy, ex, ey;
    if (report) {
        const TradingEquity& e = report->equity;
        for (size_t i = 0; i < e.bar.size(); ++i) {
            x.push_back(static_cast<double>(e.bar[i]));
            y.push_back(e.points[i]);
        }
        for (const Trade& t : report->trades) {
            auto& tx = t.direction > 0 ? lx : sx;
            auto& ty = t.direction > 0 ? ly : sy;
            tx.push_back(static_cast<double>(t.entryBar));
            ty.push_back(equityAt(e, t.entryBar));
            ex.push_back(static_cast<double>(t.exitBar));
            ey.push_back(equityAt(e, t.exitBar));
        }
    }
    equity_->setData(x, y, true);
    longEntries_->setData(lx, ly, true);
    shortEntries_->setData(sx, sy, true);
    exits_->setData(ex, ey, true);
    fitValueRange();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void EquityChart::showBars(double from, double to) {
    plot_->xAxis->setRange(from, to);
    fitValueRange();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void EquityChart::fitValueRange() {
    bool found = false;
    const QCPRange range = equity_->getValueRange(found, QCP::sdBoth, plot_->xAxis->range());
    double lo = found ? std::min(range.lower, 0.0) : -1.0;
    double hi = found ? std::max(range.upper, 0.0) : 1.0;
    const double pad = std::max((hi - lo) * 0.08, 1e-9);
    plot_->yAxis->setRange(lo - pad, hi + pad);
}

size_t EquityChart::curvePoints() const {
    return static_cast<size_t>(equity_->dataCount());
}

size_t EquityChart::entryMarks() const {
    return static_cast<size_t>(longEntries_->dataCount() + shortEntries_->dataCount());
}

size_t EquityChart::exitMarks() const {
    return static_cast<size_t>(exits_->dataCount());
}

}  // namespace nnwb
