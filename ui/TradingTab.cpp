#include "ui/TradingTab.h"

#include <QApplication>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "app/core/TradingPresenter.h"
#include "app/core/WalkForwardPresenter.h"
#include "model/FigureText.h"
#include "model/data/DateTime.h"
#include "model/trading/FoldTrading.h"
#include "model/trading/MonthlyReturns.h"
#include "model/trading/TradeDistribution.h"
#include "model/trading/Verdict.h"
#include "ui/EquityChart.h"
#include "ui/FoldConfusions.h"
#include "ui/FoldTradingTable.h"
#include "ui/Plot.h"
#include "ui/TableRows.h"
#include "ui/TradeList.h"
#include "ui/TradingBarChart.h"
#include "ui/TradingCurves.h"
#include "ui/TradingMonthTable.h"
#include "ui/TradingTable.h"
#include "ui/TradingView.h"

namespace nnwb {

namespace {

QLabel* tabHeading(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    QFont f = l->font();
    f.setBold(true);
    l->setFont(f);
    return l;
}

std::vector<double> arrayVector(const double* v, size_t n) {
    return std::vector<double>(v, v + n);
}

}  // namespace

TradingTab::TradingTab(TradingPresenter* trading, WalkForwardPresenter* walkForward,
                       QWidget* parent)
    : QScrollArea(parent), trading_(trading), walkForward_(walkForward) {
    setObjectName(QStringLiteral("tradingTab"));
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(6, 6, 6, 6);
    verdict_ = new QLabel(page);
    verdict_->setObjectName(QStringLiteral("tradingVerdict"));
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_->setStyleSheet(QStringLiteral(
        "QLabel { font-size: 11pt; padding: 6px; background: palette(alternate-base); "
        "border-left: 4px solid palette(mid); }"));
    layout->addWidget(verdict_);
    caption_ = new QLabel(page);
    caption_->setObjectName(QStringLiteral("tradingTabCaption"));
    caption_->setWordWrap(true);
    layout->addWidget(caption_);
    curves_ = new TradingCurves(page);
    layout->addWidget(curves_);
    auto* grid = new QGridLayout;
    months_ = new TradingMonthTable(page);
    distribution_ = new TradingBarChart(tr("Distribution of trade returns"), tr("trades"), page);
    byHour_ = new TradingBarChart(tr("Entries by hour of the entry bar (the file's clock)"),
                                  tr("trades"), page);
    byWeekday_ = new TradingBarChart(tr("Entries by weekday"), tr("trades"), page);
    auto* monthBox = new QVBoxLayout;
    monthBox->addWidget(tabHeading(tr("Monthly net, points after costs"), page));
    monthBox->addWidget(months_, 1);
    // The months across the page's width (13 columns of grouped numbers), then the charts.
    grid->addLayout(monthBox, 0, 0, 1, 2);
    grid->addWidget(distribution_, 1, 0);
    grid->addWidget(byWeekday_, 1, 1);
    grid->addWidget(byHour_, 2, 0, 1, 2);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    layout->addLayout(grid);
    layout->addWidget(tabHeading(tr("Trades"), page));
    trades_ = new TradeList(page);
    trades_->setMinimumHeight(220);
    layout->addWidget(trades_);
    foldPart_ = new QWidget(page);
    auto* foldLayout = new QVBoxLayout(foldPart_);
    foldLayout->setContentsMargins(0, 0, 0, 0);
    foldLayout->addWidget(
        tabHeading(tr("Folds: each fold's part of the out-of-sample series"), foldPart_));
    folds_ = new FoldTradingTable(foldPart_);
    foldLayout->addWidget(folds_);
    foldLayout->addWidget(tabHeading(tr("Confusion matrices of the test windows"), foldPart_));
    confusions_ = new FoldConfusions(foldPart_);
    foldLayout->addWidget(confusions_);
    layout->addWidget(foldPart_);
    layout->addStretch(1);
    setWidget(page);
    for (QCustomPlot* plot : page->findChildren<QCustomPlot*>()) plot->installEventFilter(this);
    connect(trading_, &TradingPresenter::changed, this, &TradingTab::refresh);
    connect(walkForward_, &WalkForwardPresenter::changed, this, &TradingTab::refresh);
    connect(trades_, &TradeList::tradeClicked, this, &TradingTab::showTradeRequested);
    refresh();
}

bool TradingTab::eventFilter(QObject* watched, QEvent* event) {
    if (watched == figures_ && event->type() == QEvent::Resize) {
        fitFiguresTable();  // the scroll bar comes and goes with the width
        return false;
    }
    if (event->type() == QEvent::Wheel) {
        const auto* wheel = static_cast<QWheelEvent*>(event);
        QScrollBar* bar = verticalScrollBar();
        const double lines = wheel->angleDelta().y() / 120.0 * QApplication::wheelScrollLines();
        bar->setValue(bar->value() - int(lines * bar->singleStep()));
        return true;
    }
    return QScrollArea::eventFilter(watched, event);
}

QString TradingTab::verdict() const {
    return verdict_->text();
}

void TradingTab::setFiguresView(TradingView* view) {
    view->equityChart()->hide();
    // Its one-line caption repeated the verdict's and the caption's figures, elided ("... net
    // -3096..."): the caption above says what it had that they do not (one point's size).
    view->hideCaption();
    // All three rows (strategy, buy and hold, random) and the header without scrolling, and
    // no more (it took the curves' room at 1280x720). Rows of one fixed height: sized to their
    // contents they were shorter than the default row height the table's height was counted
    // in, and left about a row of empty room under them.
    figures_ = view->table();
    figures_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    figures_->verticalHeader()->setDefaultSectionSize(figures_->fontMetrics().height() + 6);
    figures_->installEventFilter(this);
    connect(figures_->horizontalHeader(), &QHeaderView::sectionResized, this,
            [this] { fitFiguresTable(); });  // new figures, new column widths
    fitFiguresTable();
    auto* layout = static_cast<QVBoxLayout*>(widget()->layout());
    layout->insertWidget(layout->indexOf(caption_) + 1, view);
}

void TradingTab::fitFiguresTable() {
    const int inside =
        figures_->width() - figures_->verticalHeader()->width() - 2 * figures_->frameWidth();
    const bool scrolls = figures_->horizontalHeader()->length() > inside;
    figures_->setFixedHeight(tableHeightForRows(figures_, 3) -
                             (scrolls ? 0 : figures_->horizontalScrollBar()->sizeHint().height()));
}

bool TradingTab::showsFolds() const {
    return !foldPart_->isHidden();
}

void TradingTab::refresh() {
    const auto report = trading_->report();
    const bool folds = refreshFolds();
    foldPart_->setVisible(folds);
    if (!report) {
        const bool cpcv = walkForward_->active() && walkForward_->plan().isCpcv();
        verdict_->setText(
            !trading_->error().isEmpty() ? tr("Cannot evaluate the signals of %1: %2")
                                               .arg(trading_->what(), trading_->error())
            : cpcv ? tr("A combinatorial purged cross-validation has no one out-of-sample "
                        "series to trade here: each path's trading figures are in the "
                        "Walk-Forward tab.")
                   : tr("No signals to trade yet: train a run on a price file, open a run's "
                        "model or run a walk-forward; its signals are traded here."));
        caption_->clear();
        curves_->setReport(nullptr);
        months_->setMonths({});
        distribution_->setBars({}, {});
        byHour_->setBars({}, {});
        byWeekday_->setBars({}, {});
        trades_->setTrades({});
        return;
    }
    VerdictFigures vf = verdictFigures(*report);
    std::vector<size_t> foldStarts;
    if (folds) {
        for (const FoldRecord& r : walkForward_->outcome()->folds)
            if (r.end == RunEnd::Completed) foldStarts.push_back(r.fold.testFirst);
        vf.folds = int(foldStarts.size());
    }
    // "57 %" is not broken across lines.
    verdict_->setText(QString::fromStdString(tradingVerdict(vf))
                          .replace(QStringLiteral(" %"), QStringLiteral("\u00a0%")));
    QString caption =
        tr("The signals of %1, traded under the experiment's trading rules "
           "(docs/trading.md): %2 bars, %3, one point = %4.")
            .arg(trading_->what())
            .arg(QString::fromStdString(groupedCount(int64_t(report->equity.bar.size()))))
            .arg(TradingView::costsText(*report, trading_->settings()))
            .arg(report->point, 0, 'g', 6);
    for (const std::string& w : report->warnings)
        caption += QStringLiteral(" ") + tr("Warning: %1.").arg(QString::fromStdString(w));
    caption_->setText(caption);
    curves_->setReport(report.get(), foldStarts);
    months_->setMonths(monthlyReturns(report->equity.time, report->equity.points));
    const Histogram h = tradeReturnHistogram(report->trades);
    QStringList binLabels;
    std::vector<double> binMiddle;
    for (size_t k = 0; k < h.count.size(); ++k) {
        binMiddle.push_back(h.first + h.width * (double(k) + 0.5));
        binLabels << QString::number(binMiddle.back(), 'g', 2);
    }
    distribution_->plot()->xAxis->setLabel(tr("net, % of entry price (bin middle)"));
    distribution_->setBars(h.count, binLabels, std::max<int>(1, int(h.count.size()) / 6),
                           binMiddle);
    const EntryProfile p = entryProfile(report->trades);
    QStringList hours;
    for (int i = 0; i < 24; ++i) hours << QString::number(i);
    byHour_->setBars(arrayVector(p.countByHour.data(), 24), hours, 3,
                     arrayVector(p.netByHour.data(), 24));
    byWeekday_->setBars(
        arrayVector(p.countByWeekday.data(), 7),
        {tr("Mon"), tr("Tue"), tr("Wed"), tr("Thu"), tr("Fri"), tr("Sat"), tr("Sun")}, 1,
        arrayVector(p.netByWeekday.data(), 7));
    trades_->setTrades(report->trades);
}

bool TradingTab::refreshFolds() {
    const auto report = trading_->report();
    const WalkForwardOutcome* o = walkForward_->outcome();
    if (!report || !o || !o->outOfSample || o->outOfSample->empty() ||
        o->outOfSample->bar.front() != report->firstBar ||
        o->outOfSample->bar.back() != report->lastBar)
        return false;
    std::vector<FoldBars> bars;
    QStringList names, periods;
    std::vector<std::pair<QString, ConfusionCounts>> matrices;
    matrices.push_back({tr("stitched out of sample"), o->stitched.confusion});
    for (const FoldRecord& r : o->folds) {
        if (r.end != RunEnd::Completed) continue;
        bars.push_back({r.fold.testFirst, r.fold.testLast});
        names << QStringLiteral("%1/%2").arg(r.index + 1).arg(r.folds);
        periods << QString::fromStdString(formatBarTime(r.testFrom) + " .. " +
                                          formatBarTime(r.testTo));
        matrices.push_back({tr("fold %1/%2").arg(r.index + 1).arg(r.folds), r.test.confusion});
    }
    folds_->setFolds(names, periods, foldTradingFigures(*report, bars));
    confusions_->setMatrices(matrices);
    return true;
}

}  // namespace nnwb
