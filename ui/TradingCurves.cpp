#include "ui/TradingCurves.h"

#include <algorithm>
#include <memory>

#include <QVBoxLayout>

#include "model/data/DateTime.h"
#include "model/trading/TradingReport.h"
#include "model/trading/Underwater.h"
#include "ui/Plot.h"

namespace nnwb {

namespace {

// Bar-index ticks labelled with the date of the bar (the equity's bars and times).
class BarDateTicker : public QCPAxisTicker {
public:
    std::vector<size_t> bar;
    std::vector<int64_t> time;

protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        if (bar.empty() || tick < 0) return {};
        const auto it = std::lower_bound(bar.begin(), bar.end(), static_cast<size_t>(tick));
        if (it == bar.end()) return {};
        return QString::fromStdString(formatBarTime(time[size_t(it - bar.begin())]).substr(0, 10));
    }
};

QCPGraph* curveGraph(QCustomPlot* p, QCPAxisRect* r, const QColor& c, const QString& name,
                     double w) {
    QCPGraph* g = p->addGraph(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
    g->setPen(QPen(c, w));
    g->setName(name);
    return g;
}

}  // namespace

TradingCurves::TradingCurves(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("tradingCurvesPlot"));
    plot_->setMinimumHeight(380);
    // Points grouped on the value axes ("-15,000", not "-15000"), as every figure of the tab,
    // whatever the system's locale (QCustomPlot's C locale omits the separator).
    QLocale grouped(QLocale::English, QLocale::UnitedStates);
    grouped.setNumberOptions(QLocale::DefaultNumberOptions);
    plot_->setLocale(grouped);
    layout->addWidget(plot_);
    QCPAxisRect* upper = plot_->axisRect();
    lower_ = new QCPAxisRect(plot_);
    plot_->plotLayout()->addElement(1, 0, lower_);
    plot_->plotLayout()->setRowStretchFactor(0, 2.2);
    plot_->plotLayout()->setRowStretchFactor(1, 1);  // the legend's row goes above both
    auto* group = new QCPMarginGroup(plot_);
    upper->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    lower_->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    upper->axis(QCPAxis::atLeft)->setLabel(tr("equity, points"));
    lower_->axis(QCPAxis::atLeft)->setLabel(tr("drawdown"));
    auto ticker = QSharedPointer<BarDateTicker>::create();
    ticker->setTickCount(6);
    upper->axis(QCPAxis::atBottom)->setTicker(ticker);
    lower_->axis(QCPAxis::atBottom)->setTicker(ticker);
    connect(upper->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
            lower_->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::setRange));
    bandLow_ = curveGraph(plot_, upper, QColor(150, 150, 150), tr("random 5 %"), 0.8);
    bandHigh_ = curveGraph(plot_, upper, QColor(150, 150, 150), tr("random draws, 5–95 %"), 0.8);
    bandHigh_->setChannelFillGraph(bandLow_);
    bandHigh_->setBrush(QColor(150, 150, 150, 60));
    hold_ = curveGraph(plot_, upper, QColor(230, 140, 20), tr("buy and hold"), 1.2);
    equity_ = curveGraph(plot_, upper, QColor(40, 90, 170), tr("strategy"), 1.6);
    underwater_ = curveGraph(plot_, lower_, QColor(200, 40, 40), tr("underwater"), 1.0);
    underwater_->setBrush(QColor(200, 40, 40, 70));
    plot_->legend->setVisible(true);
    plot_->legend->removeItem(plot_->legend->itemWithPlottable(bandLow_));
    plot_->legend->setFont(QFont(font().family(), 8));
    // A row of its own above the curves (inside the plot it covered them).
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setBrush(Qt::NoBrush);
    upper->insetLayout()->take(plot_->legend);
    upper->insetLayout()->simplify();
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    // No wheel zoom: in the scrolling tab the wheel scrolls the page (the price chart zooms).
    plot_->setInteractions({});
    // The underwater chart is short (a third of the plot): about three labels, not six in
    // 65 px (a tick count of 2 gives steps of 5,000 or 10,000 on 12,500 or 20,000 points).
    lower_->axis(QCPAxis::atLeft)->ticker()->setTickCount(2);
}

void TradingCurves::setReport(const TradingReport* report, const std::vector<size_t>& foldStarts) {
    for (QCPAbstractItem* item : foldItems_) plot_->removeItem(item);
    foldItems_.clear();
    QVector<double> x, y, hx, hy, bx, lo, hi, under;
    auto ticker = plot_->axisRect()->axis(QCPAxis::atBottom)->ticker().dynamicCast<BarDateTicker>();
    ticker->bar.clear();
    ticker->time.clear();
    if (report) {
        const TradingEquity& e = report->equity;
        ticker->bar = e.bar;
        ticker->time = e.time;
        const std::vector<double> uw = underwaterOf(e.points);
        for (size_t i = 0; i < e.bar.size(); ++i) {
            x.push_back(double(e.bar[i]));
            y.push_back(e.points[i]);
            under.push_back(uw[i]);
            if (i < report->buyAndHoldPoints.size()) {
                hx.push_back(double(e.bar[i]));
                hy.push_back(report->buyAndHoldPoints[i]);
            }
        }
        const EquityBand& b = report->randomBand;
        for (size_t k = 0; k < b.at.size(); ++k) {
            if (b.at[k] >= e.bar.size()) break;
            bx.push_back(double(e.bar[b.at[k]]));
            lo.push_back(b.low[k]);
            hi.push_back(b.high[k]);
        }
        for (size_t s : foldStarts)
            for (QCPAxisRect* r : {plot_->axisRect(), lower_}) {
                auto* l = new QCPItemStraightLine(plot_);
                l->setClipAxisRect(r);
                for (QCPItemPosition* p : {l->point1, l->point2})
                    p->setAxes(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
                l->point1->setCoords(double(s) - 0.5, 0);
                l->point2->setCoords(double(s) - 0.5, 1);
                l->setPen(QPen(QColor(244, 140, 0), 1, Qt::DashLine));
                l->setSelectable(false);
                foldItems_.push_back(l);
            }
    }
    equity_->setData(x, y, true);
    hold_->setData(hx, hy, true);
    bandLow_->setData(bx, lo, true);
    bandHigh_->setData(bx, hi, true);
    underwater_->setData(x, under, true);
    equity_->rescaleKeyAxis();
    for (QCPAxisRect* r : {plot_->axisRect(), lower_}) {
        bool found = false;
        QCPRange v;
        for (QCPGraph* g : r->graphs()) {
            const QCPRange gr = g->getValueRange(found, QCP::sdBoth);
            if (found) v.expand(gr);
        }
        v.expand(0.0);
        if (v.size() <= 0) v = QCPRange(-1, 1);  // nothing drawn: a plain axis
        const double pad = v.size() * 0.05;
        r->axis(QCPAxis::atLeft)->setRange(v.lower - pad, v.upper + pad);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

int TradingCurves::equityPoints() const {
    return equity_->dataCount();
}
int TradingCurves::buyAndHoldPoints() const {
    return hold_->dataCount();
}
int TradingCurves::bandPoints() const {
    return bandHigh_->dataCount();
}
int TradingCurves::underwaterPoints() const {
    return underwater_->dataCount();
}

double TradingCurves::deepestUnderwater() const {
    double low = 0;
    for (auto it = underwater_->data()->constBegin(); it != underwater_->data()->constEnd(); ++it)
        low = std::min(low, it->value);
    return low;
}

}  // namespace nnwb
