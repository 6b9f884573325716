#include "ui/PriceChart.h"

#include <algorithm>
#include <cmath>

#include <QDateTime>
#include <QLabel>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QTimeZone>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include "model/FigureText.h"
#include "model/data/DateTime.h"
#include "ui/AgreementStrip.h"
#include "ui/LegendColumns.h"
#include "ui/Plot.h"

namespace nnwb {

namespace {

const QColor kUp(38, 166, 154);
const QColor kDown(239, 83, 80);
const QColor kBuy(25, 118, 210);
const QColor kSell(245, 124, 0);
const QColor kBuySignal(46, 125, 50);
const QColor kSellSignal(198, 40, 40);

QString barTime(int64_t t) {
    return QString::fromStdString(formatBarTime(t));
}

// Tick labels: the date (and time) of the bar at an index key.
class BarTimeTicker : public QCPAxisTicker {
public:
    std::shared_ptr<const BarSeries> bars;

protected:
    double getTickStep(const QCPRange& range) override {
        return std::max(1.0, std::round(QCPAxisTicker::getTickStep(range)));
    }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        if (!bars || bars->empty()) return {};
        const long long i = std::llround(tick);
        if (i < 0 || i >= static_cast<long long>(bars->size())) return {};
        // One line ("2017-01-02 23:00"): on two the axis took a text line's height from the
        // candles, which at 1280x720 with an ensemble's agreement strip plotted in 139 px.
        return QString::fromStdString(formatBarTime(bars->time[static_cast<size_t>(i)]));
    }
};

QCPGraph* markerGraph(QCustomPlot* plot, QCPScatterStyle::ScatterShape shape, const QColor& c,
                      bool filled, double size, const QString& name) {
    QCPGraph* g = plot->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(
        QCPScatterStyle(shape, QPen(c, 1.4), filled ? QBrush(c) : QBrush(Qt::white), size));
    g->setName(name);
    g->setAdaptiveSampling(false);
    return g;
}

}  // namespace

PriceChart::PriceChart(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    header_ = new QLabel(this);
    header_->setObjectName(QStringLiteral("priceChartHeader"));
    header_->setTextFormat(Qt::RichText);
    header_->setWordWrap(true);
    layout->addWidget(header_);

    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("priceChartPlot"));
    // An explicit minimum: the plot's own hint would be its legend's one-row width (~700 px).
    plot_->setMinimumSize(200, 200);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->setNoAntialiasingOnDrag(true);
    plot_->setNotAntialiasedElements(QCP::aeScatters);  // triangles: ~10x cheaper without AA
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    auto ticker = QSharedPointer<BarTimeTicker>::create();
    plot_->xAxis->setTicker(ticker);
    plot_->yAxis->setNumberFormat(QStringLiteral("f"));
    plot_->yAxis->setNumberPrecision(5);

    createPlotItems();

    layout->addWidget(plot_, 1);
    agreement_ = new AgreementStrip(this);
    layout->addWidget(agreement_);

    overview_ = new QCustomPlot(this);
    overview_->setObjectName(QStringLiteral("priceChartOverview"));
    overview_->setFixedHeight(70);
    overview_->yAxis->setVisible(false);
    overview_->xAxis->setTicker(ticker);
    overview_->xAxis->setTickLabelFont(QFont(font().family(), 7));
    overview_->axisRect()->setAutoMargins(QCP::msBottom);
    overview_->axisRect()->setMargins(QMargins(plot_->axisRect()->margins().left(), 2, 10, 0));
    overview_->installEventFilter(this);
    overviewLine_ = overview_->addGraph();
    overviewLine_->setPen(QPen(QColor(70, 70, 70)));
    overviewWindow_ = new QCPItemRect(overview_);
    overviewWindow_->setPen(QPen(QColor(25, 118, 210)));
    overviewWindow_->setBrush(QColor(25, 118, 210, 50));
    overviewWindow_->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    overviewWindow_->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    overviewBoundary_ = new QCPItemStraightLine(overview_);
    overviewBoundary_->setPen(QPen(QColor(90, 90, 90), 1, Qt::DashLine));
    overviewBoundary_->setVisible(false);
    layout->addWidget(overview_);

    replotTimer_ = new QTimer(this);
    replotTimer_->setSingleShot(true);
    replotTimer_->setInterval(15);
    connect(replotTimer_, &QTimer::timeout, this, &PriceChart::replotNow);
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this] { onRangeChanged(); });
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), agreement_,
            &AgreementStrip::followRange);
    updateHeader();
}

void PriceChart::createPlotItems() {
    validationShade_ = new QCPItemRect(plot_);
    validationShade_->setPen(Qt::NoPen);
    validationShade_->setBrush(QColor(255, 243, 224, 150));
    validationShade_->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    validationShade_->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    validationShade_->setLayer(QStringLiteral("background"));
    validationShade_->setVisible(false);

    candles_ = new QCPFinancial(plot_->xAxis, plot_->yAxis);
    candles_->setChartStyle(QCPFinancial::csCandlestick);
    candles_->setTwoColored(true);
    candles_->setBrushPositive(kUp);
    candles_->setBrushNegative(kDown);
    candles_->setPenPositive(QPen(kUp.darker(130)));
    candles_->setPenNegative(QPen(kDown.darker(130)));
    candles_->setName(tr("bars"));

    trueBuy_ = markerGraph(plot_, QCPScatterStyle::ssDisc, kBuy, true, 5, tr("buy fractal"));
    trueSell_ = markerGraph(plot_, QCPScatterStyle::ssDisc, kSell, true, 5, tr("sell fractal"));
    buyHit_ = markerGraph(plot_, QCPScatterStyle::ssTriangle, kBuySignal, true, 9, tr("buy hit"));
    buyFalse_ =
        markerGraph(plot_, QCPScatterStyle::ssTriangle, kBuySignal, false, 9, tr("buy false"));
    sellHit_ = markerGraph(plot_, QCPScatterStyle::ssTriangleInverted, kSellSignal, true, 9,
                           tr("sell hit"));
    sellFalse_ = markerGraph(plot_, QCPScatterStyle::ssTriangleInverted, kSellSignal, false, 9,
                             tr("sell false"));

    boundary_ = new QCPItemStraightLine(plot_);
    boundary_->setPen(QPen(QColor(90, 90, 90), 1.5, Qt::DashLine));
    boundary_->setVisible(false);
    validationText_ = new QCPItemText(plot_);
    validationText_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    validationText_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    validationText_->setText(tr("validation →"));
    validationText_->setColor(QColor(120, 80, 0));
    validationText_->setVisible(false);

    createLegend();
}

void PriceChart::createLegend() {
    // In a row of its own above the axis rect, so that it never covers a candle (inset in the
    // plot's top corner it hid the newest bars); a spacer beside it keeps it at the left.
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), 8));
    plot_->legend->setBrush(Qt::NoBrush);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);  // one row
    plot_->legend->setMargins(QMargins(4, 0, 4, 0));
    plot_->legend->setIconSize(14, 12);  // short entries: all six fit one row of a 1280 px window
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, legendRow);
    legendRow->addElement(0, 0, plot_->legend);
    legendRow->addElement(0, 1, new QCPLayoutElement(plot_));
    legendRow->setColumnStretchFactor(1, 0.001);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    plot_->plotLayout()->setRowSpacing(0);
    plot_->legend->clearItems();
    for (QCPAbstractPlottable* p : {static_cast<QCPAbstractPlottable*>(trueBuy_),
                                    static_cast<QCPAbstractPlottable*>(trueSell_),
                                    static_cast<QCPAbstractPlottable*>(buyHit_),
                                    static_cast<QCPAbstractPlottable*>(buyFalse_),
                                    static_cast<QCPAbstractPlottable*>(sellHit_),
                                    static_cast<QCPAbstractPlottable*>(sellFalse_)})
        p->addToLegend();
}

void PriceChart::setBars(std::shared_ptr<const BarSeries> bars, FractalRule rule) {
    bars_ = std::move(bars);
    rule_ = rule;
    agreement_->clear();
    outputs_.clear();
    signalLabel_.clear();
    hits_ = falseSignals_ = 0;
    trainFirst_ = trainLast_ = 0;
    valFirst_ = 1;
    valLast_ = 0;
    boundary_->setVisible(false);
    validationShade_->setVisible(false);
    validationText_->setVisible(false);
    overviewBoundary_->setVisible(false);
    static_cast<BarTimeTicker*>(plot_->xAxis->ticker().data())->bars = bars_;
    if (bars_) {
        flags_ = fractalFlags(bars_->high, bars_->low, rule_);
        levels_.build(*bars_);
    } else {
        flags_.clear();
        levels_.clear();
    }
    shownLevel_ = static_cast<size_t>(-1);
    const double typical = bars_ && !bars_->empty() ? std::fabs(bars_->close.back()) : 1.0;
    plot_->yAxis->setNumberPrecision(typical >= 1000 ? 1 : typical >= 10 ? 2 : 5);
    // The overview: closes of the finest level with at most 4000 candles.
    overviewLine_->data()->clear();
    if (!levels_.empty()) {
        const CandleLevel& l = levels_.level(levels_.levelFor(double(bars_->size()), 4000));
        QVector<double> k(l.key.begin(), l.key.end()), v(l.close.begin(), l.close.end());
        overviewLine_->setData(k, v, true);
        overview_->xAxis->setRange(-0.5, double(bars_->size()) - 0.5);
        double lo = 0, hi = 1;
        levels_.valueRange(levels_.count() - 1, 0, double(bars_->size()), lo, hi);
        overview_->yAxis->setRange(lo, hi);
    }
    showAll();
    updateHeader();
}

void PriceChart::setSplit(size_t trainFirst, size_t trainLast, size_t validationFirst,
                          size_t validationLast) {
    trainFirst_ = trainFirst;
    trainLast_ = trainLast;
    valFirst_ = validationFirst;
    valLast_ = validationLast;
    const bool has = bars_ && validationFirst <= validationLast && validationLast < bars_->size();
    // The first validation window starts right after the training part's last sample.
    const double x = double(trainLast) + 0.5;
    boundary_->point1->setCoords(x, 0);
    boundary_->point2->setCoords(x, 1);
    boundary_->setVisible(has);
    validationShade_->topLeft->setCoords(x, 0);
    validationShade_->bottomRight->setCoords(double(validationLast) + 0.5, 1);
    validationShade_->setVisible(has);
    validationText_->position->setCoords(x, 0.99);
    validationText_->setVisible(has);
    overviewBoundary_->point1->setCoords(x, 0);
    overviewBoundary_->point2->setCoords(x, 1);
    overviewBoundary_->setVisible(has);
    updateHeader();
    scheduleReplot();
}

void PriceChart::setAgreement(size_t firstBar, std::vector<float> agreement) {
    if (bars_ && firstBar + agreement.size() > bars_->size()) agreement.clear();
    agreement_->setAgreement(firstBar, std::move(agreement));
    agreement_->followRange(plot_->xAxis->range());
}

void PriceChart::setSignals(size_t firstBar, std::vector<float> outputs, const QString& label) {
    agreement_->clear();
    signalFirst_ = firstBar;
    outputs_ = std::move(outputs);
    signalLabel_ = label;
    if (bars_ && signalFirst_ + outputs_.size() / 3 > bars_->size()) outputs_.clear();
    // Hits and false signals over the bars whose label is known.
    hits_ = falseSignals_ = 0;
    const size_t reach = static_cast<size_t>(fractalReach(rule_));
    for (size_t i = 0; bars_ && i < outputs_.size() / 3; ++i) {
        const size_t bar = signalFirst_ + i;
        const float* o = outputs_.data() + 3 * i;
        const int s = o[1] > o[0] && o[1] >= o[2] ? 1 : (o[2] > o[0] && o[2] > o[1] ? 2 : 0);
        if (s == 0 || bar + reach >= bars_->size()) continue;
        const bool hit =
            (s == 1 && (flags_[bar] & kFractalBuy)) || (s == 2 && (flags_[bar] & kFractalSell));
        ++(hit ? hits_ : falseSignals_);
    }
    updateMarkers();
    updateHeader();
    scheduleReplot();
}

void PriceChart::clearSignals() {
    setSignals(0, {}, QString());
}

void PriceChart::showRange(double from, double to) {
    plot_->xAxis->setRange(from, to);
}

void PriceChart::showTrade(size_t entryBar, size_t exitBar) {
    const double span = double(exitBar) - double(entryBar) + 1;
    const double width = std::max(4 * span, 120.0);
    const double middle = (double(entryBar) + double(exitBar)) / 2;
    showRange(middle - width / 2, middle + width / 2);
}

double PriceChart::rangeMargin(double visibleBars) {
    return std::max(1.0, 0.02 * visibleBars);
}

void PriceChart::showAll() {
    const double n = bars_ ? double(bars_->size()) : 1.0;
    plot_->xAxis->setRange(-0.5, n - 0.5 + rangeMargin(n));
    onRangeChanged();
}

void PriceChart::setDecimation(bool on) {
    decimation_ = on;
    onRangeChanged();
}

size_t PriceChart::barsPerCandle() const {
    return levels_.empty() ? 1 : levels_.level(level_).span;
}

double PriceChart::lastReplotMs() const {
    return plot_->replotTime(false);
}

void PriceChart::replotNow() {
    replotTimer_->stop();
    plot_->replot();
    overview_->replot();
}

void PriceChart::scheduleReplot() {
    if (!replotTimer_->isActive()) replotTimer_->start();
}

void PriceChart::clampRange() {
    if (!bars_ || bars_->empty()) return;
    // The visible range stays on the bars: at most rangeMargin(width) beyond the first and the
    // last (it panned and zoomed out to 5 % of the file past the last bar). The widest range,
    // n + 2 * margin(width), is n / 0.96 once the margin is 2 % of the width.
    const double n = double(bars_->size());
    const QCPRange r = plot_->xAxis->range();
    const double widest = std::max(n + 2.0, n / 0.96);
    const double width = std::clamp(r.size(), std::min(10.0, widest), widest);
    const double margin = rangeMargin(width);
    double lo = std::max(r.lower, -0.5 - margin);
    double hi = lo + width;
    if (hi > n - 0.5 + margin) {
        hi = n - 0.5 + margin;
        lo = std::max(hi - width, -0.5 - margin);
    }
    if (lo != r.lower || hi != r.upper) plot_->xAxis->setRange(lo, hi);
}

void PriceChart::onRangeChanged() {
    if (inRangeUpdate_) return;
    inRangeUpdate_ = true;
    clampRange();
    updateCandles();
    updateValueRange();
    updateMarkers();
    updateOverviewWindow();
    inRangeUpdate_ = false;
    scheduleReplot();
}

void PriceChart::updateCandles() {
    if (levels_.empty()) {
        candles_->data()->clear();
        shownLevel_ = static_cast<size_t>(-1);
        return;
    }
    const double visible = plot_->xAxis->range().size();
    const double columns = std::max(50, plot_->axisRect()->width());
    // At most one candle per 3 pixels: narrower candles are not readable anyway.
    level_ = decimation_ ? levels_.levelFor(visible, columns / 3.0) : 0;
    if (level_ == shownLevel_) return;
    const CandleLevel& l = levels_.level(level_);
    candles_->setData(
        QVector<double>(l.key.begin(), l.key.end()), QVector<double>(l.open.begin(), l.open.end()),
        QVector<double>(l.high.begin(), l.high.end()), QVector<double>(l.low.begin(), l.low.end()),
        QVector<double>(l.close.begin(), l.close.end()), true);
    candles_->setWidth(0.7 * double(l.span));
    shownLevel_ = level_;
}

void PriceChart::updateValueRange() {
    double lo = 0, hi = 1;
    const QCPRange r = plot_->xAxis->range();
    if (!levels_.empty() && levels_.valueRange(level_, r.lower, r.upper, lo, hi)) {
        const double pad = std::max((hi - lo) * 0.08, 1e-9);
        plot_->yAxis->setRange(lo - pad, hi + pad);
    }
}

void PriceChart::updateMarkers() {
    for (QCPGraph* g : {trueBuy_, trueSell_, buyHit_, buyFalse_, sellHit_, sellFalse_})
        g->data()->clear();
    if (!bars_ || bars_->empty()) return;
    const BarSeries& b = *bars_;
    const QCPRange r = plot_->xAxis->range();
    const size_t n = b.size();
    const size_t from = size_t(std::clamp(std::floor(r.lower), 0.0, double(n - 1)));
    const size_t to = size_t(std::clamp(std::ceil(r.upper), 0.0, double(n - 1)));
    const double off = plot_->yAxis->range().size() * 0.02;
    const bool fine = level_ <= 1;  // true fractals only where single bars can be told apart
    QVector<double> bk, bv, sk, sv;
    if (fine)
        for (size_t i = from; i <= to; ++i) {
            if (flags_[i] & kFractalBuy) bk.push_back(double(i)), bv.push_back(b.low[i] - off);
            if (flags_[i] & kFractalSell) sk.push_back(double(i)), sv.push_back(b.high[i] + off);
        }
    trueBuy_->setData(bk, bv, true);
    trueSell_->setData(sk, sv, true);
    const size_t reach = static_cast<size_t>(fractalReach(rule_));
    QVector<double> hk[4], hv[4];  // buy hit, buy false, sell hit, sell false
    // Merged candles (span > 1): one marker of each kind per candle, at the candle, so that a
    // zoomed-out chart draws at most four markers per candle however many signals it holds.
    const size_t span = barsPerCandle();
    const CandleLevel* merged = span > 1 ? &levels_.level(level_) : nullptr;
    size_t lastBucket[4] = {size_t(-1), size_t(-1), size_t(-1), size_t(-1)};
    const size_t count = outputs_.size() / 3;
    const size_t s0 = std::max(from, signalFirst_);
    const size_t s1 = count ? std::min(to, signalFirst_ + count - 1) : 0;
    for (size_t bar = s0; count && bar <= s1; ++bar) {
        const float* o = outputs_.data() + 3 * (bar - signalFirst_);
        const int s = o[1] > o[0] && o[1] >= o[2] ? 1 : (o[2] > o[0] && o[2] > o[1] ? 2 : 0);
        if (s == 0) continue;
        const bool known = bar + reach < n;
        const bool hit = known && ((s == 1 && (flags_[bar] & kFractalBuy)) ||
                                   (s == 2 && (flags_[bar] & kFractalSell)));
        const int k = (s == 1 ? 0 : 2) + (hit ? 0 : 1);
        if (merged) {
            const size_t j = bar / span;
            if (j == lastBucket[k] || j >= merged->size()) continue;
            lastBucket[k] = j;
            hk[k].push_back(merged->key[j]);
            hv[k].push_back(s == 1 ? merged->low[j] - 2.6 * off : merged->high[j] + 2.6 * off);
            continue;
        }
        hk[k].push_back(double(bar));
        hv[k].push_back(s == 1 ? b.low[bar] - 2.6 * off : b.high[bar] + 2.6 * off);
    }
    buyHit_->setData(hk[0], hv[0], true);
    buyFalse_->setData(hk[1], hv[1], true);
    sellHit_->setData(hk[2], hv[2], true);
    sellFalse_->setData(hk[3], hv[3], true);
}

void PriceChart::updateOverviewWindow() {
    const QCPRange r = plot_->xAxis->range();
    overviewWindow_->topLeft->setCoords(r.lower, 0);
    overviewWindow_->bottomRight->setCoords(r.upper, 1);
}

void PriceChart::updateHeader() {
    if (!bars_ || bars_->empty()) {
        header_->setText(tr("No bars loaded."));
        return;
    }
    const BarSeries& b = *bars_;
    QString text = tr("<b>%1</b> · %2 bars · %3 – %4")
                       .arg(QString::fromStdString(b.source.empty() ? "bars" : b.source)
                                .section(QLatin1Char('/'), -1),
                            QString::fromStdString(groupedCount(int64_t(b.size()))),
                            barTime(b.time.front()), barTime(b.time.back()));
    if (valFirst_ <= valLast_ && valLast_ < b.size())
        text += tr(" · validation from %1").arg(barTime(b.time[valFirst_]));
    if (!signalLabel_.isEmpty())
        text += tr(" · signals of %1: <span style='color:#2e7d32'>%2 hits</span>, "
                   "<span style='color:#c62828'>%3 false</span>")
                    .arg(signalLabel_, QString::fromStdString(groupedCount(int64_t(hits_))),
                         QString::fromStdString(groupedCount(int64_t(falseSignals_))));
    else
        text += tr(" · no model signals yet (train, or Run ▸ Predict…)");
    // The overview goes on a short pane (PriceChartPane): the hint then does not send the
    // user to it.
    text += overview_->isHidden() ? tr(" · wheel: zoom, drag: pan")
                                  : tr(" · wheel: zoom, drag: pan, click the overview to jump");
    header_->setText(text);
}

void PriceChart::setOverviewShown(bool on) {
    if (overview_->isHidden() != on) return;
    overview_->setVisible(on);
    updateHeader();
}

QString PriceChart::headerText() const {
    return header_->text();
}

long long PriceChart::barAt(double pixelX) const {
    if (!bars_ || bars_->empty()) return -1;
    const long long i = std::llround(plot_->xAxis->pixelToCoord(pixelX));
    return i >= 0 && i < static_cast<long long>(bars_->size()) ? i : -1;
}

QString PriceChart::tooltipText(size_t bar) const {
    if (!bars_ || bar >= bars_->size()) return {};
    const BarSeries& b = *bars_;
    const int digits = b.close[bar] >= 100 ? 2 : 5;
    QString t = tr("<b>%1</b><br>open %2 high %3<br>low %4 close %5")
                    .arg(barTime(b.time[bar]))
                    .arg(b.open[bar], 0, 'f', digits)
                    .arg(b.high[bar], 0, 'f', digits)
                    .arg(b.low[bar], 0, 'f', digits)
                    .arg(b.close[bar], 0, 'f', digits);
    const size_t reach = static_cast<size_t>(fractalReach(rule_));
    QString label = tr("not known yet");
    if (bar >= reach && bar + reach < b.size()) {
        const bool buy = flags_[bar] & kFractalBuy, sell = flags_[bar] & kFractalSell;
        label = buy && sell ? tr("buy and sell (outside bar)")
                : buy       ? tr("buy")
                : sell      ? tr("sell")
                            : tr("none");
    }
    t += tr("<br>true label: %1").arg(label);
    if (bar >= signalFirst_ && bar - signalFirst_ < outputs_.size() / 3) {
        const float* o = outputs_.data() + 3 * (bar - signalFirst_);
        const int s = o[1] > o[0] && o[1] >= o[2] ? 1 : (o[2] > o[0] && o[2] > o[1] ? 2 : 0);
        t += tr("<br>model: none %1 · buy %2 · sell %3<br>signal: %4")
                 .arg(double(o[0]), 0, 'f', 4)
                 .arg(double(o[1]), 0, 'f', 4)
                 .arg(double(o[2]), 0, 'f', 4)
                 .arg(s == 1   ? tr("buy")
                      : s == 2 ? tr("sell")
                               : tr("none"));
    }
    if (valFirst_ <= valLast_ && bar >= valFirst_ && bar <= valLast_)
        t += tr("<br>validation sample %1 (click: attention)").arg(bar - valFirst_);
    return t;
}

bool PriceChart::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_) {
        if (event->type() == QEvent::Resize) {
            const int width = static_cast<QResizeEvent*>(event)->size().width();
            fitLegendColumns(plot_->legend, width - 4);
            // A date and time label is ~100 px wide: one tick per 170 px keeps them apart.
            plot_->xAxis->ticker()->setTickCount(std::max(2, width / 170));
        } else if (event->type() == QEvent::MouseButtonPress) {
            auto* e = static_cast<QMouseEvent*>(event);
            if (e->button() == Qt::LeftButton) {
                pressed_ = true;
                pressPos_ = e->pos();
            }
        } else if (event->type() == QEvent::MouseButtonRelease) {
            auto* e = static_cast<QMouseEvent*>(event);
            if (pressed_ && e->button() == Qt::LeftButton &&
                (e->pos() - pressPos_).manhattanLength() < 4) {
                const long long bar = barAt(e->pos().x());
                if (bar >= 0) Q_EMIT barClicked(bar);
            }
            pressed_ = false;
        } else if (event->type() == QEvent::MouseMove) {
            auto* e = static_cast<QMouseEvent*>(event);
            const long long bar = barAt(e->pos().x());
            if (bar >= 0 && e->buttons() == Qt::NoButton)
                QToolTip::showText(e->globalPosition().toPoint(), tooltipText(size_t(bar)), plot_);
        }
    } else if (watched == overview_) {
        if (event->type() == QEvent::MouseButtonPress || event->type() == QEvent::MouseMove) {
            auto* e = static_cast<QMouseEvent*>(event);
            if (e->buttons() & Qt::LeftButton) {
                const double centre = overview_->xAxis->pixelToCoord(e->pos().x());
                const double w = plot_->xAxis->range().size();
                showRange(centre - w / 2, centre + w / 2);
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace nnwb
