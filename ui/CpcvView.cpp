#include "ui/CpcvView.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/core/WalkForwardPresenter.h"
#include "app/engine/CpcvFigures.h"
#include "ui/Plot.h"
#include "ui/TableRows.h"

namespace nnwb {

namespace {

QString cell(double x, int decimals) {
    return std::isfinite(x) ? QString::number(x, 'f', decimals) : QStringLiteral("n/a");
}

QString compact(double x) {
    return std::isfinite(x) ? QString::number(x, 'g', 4) : QStringLiteral("n/a");
}

// Decimals of the path table's figure columns (cpcvFigures() order).
constexpr int kDecimals[] = {5, 2, 2, 0, 1, 4, 3, 1};

const CpcvOutcome* cpcvOf(const WalkForwardPresenter* p) {
    const WalkForwardOutcome* o = p->outcome();
    return o && o->cpcv ? o->cpcv.get() : nullptr;
}

}  // namespace

CpcvView::CpcvView(WalkForwardPresenter* presenter, QWidget* parent)
    : QWidget(parent), presenter_(presenter) {
    setObjectName(QStringLiteral("cpcvView"));
    verdict_ = new QLabel(this);
    verdict_->setObjectName(QStringLiteral("cpcvVerdict"));
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QStringList titles{tr("Path"), tr("Splits (group 1..N)")};
    for (const CpcvFigure& f : cpcvFigures()) titles << tr(f.label);
    table_ = new QTableWidget(0, int(titles.size()), this);
    table_->setObjectName(QStringLiteral("cpcvPathTable"));
    table_->setHorizontalHeaderLabels(titles);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    table_->setMinimumHeight(tableHeightForRows(table_, 5));  // five paths without scrolling
    figure_ = new QComboBox(this);
    figure_->setObjectName(QStringLiteral("cpcvFigure"));
    for (const CpcvFigure& f : cpcvFigures()) figure_->addItem(tr(f.label), QString(f.key));
    figure_->setCurrentIndex(figure_->findData(QStringLiteral("sharpe")));
    figure_->setToolTip(tr("The figure whose values over the paths the histogram counts"));
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("cpcvHistogram"));
    // 150 px of plot between the title-less top and the x axis' ticks and label.
    plot_->setMinimumHeight(150 + 4 * fontMetrics().height() + 12);
    plot_->setMinimumWidth(160);
    bars_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    bars_->setPen(Qt::NoPen);
    bars_->setBrush(QColor(70, 130, 180));
    plot_->yAxis->setLabel(tr("paths"));
    // As many x ticks as their labels have room for: at 1024x600 the default five ran together
    // ("-0.02-0.015-0.01-0.005").
    connect(plot_, &QCustomPlot::beforeReplot, this, [this] {
        const int label = QFontMetrics(plot_->xAxis->tickLabelFont())
                              .horizontalAdvance(QStringLiteral("-0.0000"));
        const int room = plot_->axisRect()->width() / (label + 10);
        plot_->xAxis->ticker()->setTickCount(std::clamp(room, 2, 5));
    });
    distribution_ = new QLabel(this);
    distribution_->setObjectName(QStringLiteral("cpcvDistribution"));
    distribution_->setWordWrap(true);
    distribution_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* side = new QVBoxLayout;
    side->addWidget(figure_);
    side->addWidget(plot_, 1);
    auto* row = new QHBoxLayout;
    row->addWidget(table_, 2);
    row->addLayout(side, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(verdict_);
    layout->addLayout(row, 1);
    layout->addWidget(distribution_);
    connect(presenter_, &WalkForwardPresenter::changed, this, &CpcvView::refresh);
    connect(figure_, &QComboBox::currentIndexChanged, this, &CpcvView::drawHistogram);
    refresh();
}

std::vector<double> CpcvView::histogramCounts() const {
    std::vector<double> out;
    for (auto it = bars_->data()->constBegin(); it != bars_->data()->constEnd(); ++it)
        out.push_back(it->value);
    return out;
}

void CpcvView::refresh() {
    setVisible(presenter_->active() && presenter_->plan().isCpcv());
    const CpcvOutcome* c = cpcvOf(presenter_);
    const size_t paths = c ? c->result.paths.size() : 0;
    if (!c)
        verdict_->setText(presenter_->active() && presenter_->plan().isCpcv()
                              ? tr("The paths show here when every split has run.")
                              : QString());
    else if (paths == 0)
        verdict_->setText(tr("No paths: not every split completed."));
    else
        verdict_->setText(
            QString::fromStdString(cpcvVerdict(c->evaluation)) +
            (c->evaluation.tradingError.empty()
                 ? QString()
                 : tr(" (trading: %1)").arg(QString::fromStdString(c->evaluation.tradingError))));
    table_->setRowCount(int(paths));
    const std::vector<CpcvFigure>& figs = cpcvFigures();
    for (size_t p = 0; p < paths; ++p) {
        QStringList splits;
        for (size_t s : c->result.paths[p].splits) splits << QString::number(s + 1);
        QStringList cells{QString::number(p + 1), splits.join(QLatin1Char(','))};
        for (size_t f = 0; f < figs.size(); ++f)
            cells << cell(figs[f].of(c->evaluation.paths[p]), kDecimals[f]);
        for (int col = 0; col < cells.size(); ++col) {
            auto* item = new QTableWidgetItem(cells[col]);
            if (col >= 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table_->setItem(int(p), col, item);
        }
    }
    table_->resizeColumnsToContents();
    drawHistogram();
}

void CpcvView::drawHistogram() {
    const CpcvOutcome* c = cpcvOf(presenter_);
    const CpcvFigure* fig = cpcvFigure(figure_->currentData().toString().toStdString());
    QVector<double> keys, values;
    QString text;
    if (c && fig && !c->result.paths.empty()) {
        const std::vector<double> v = c->evaluation.values(*fig);
        const PathHistogram h = pathHistogram(v, std::clamp<size_t>(v.size(), 4, 10));
        for (size_t i = 0; i < h.counts.size(); ++i) {
            keys << h.from + (double(i) + 0.5) * h.width;
            values << double(h.counts[i]);
        }
        bars_->setWidth(h.width);
        const PathDistribution d = c->evaluation.distribution(*fig);
        text = tr("%1 over %2 paths (%3 n/a): mean %4, sd %5, min %6, lower decile %7, median "
                  "%8, max %9")
                   .arg(tr(fig->label))
                   .arg(d.count)
                   .arg(d.missing)
                   .arg(compact(d.count ? d.mean : NAN), compact(d.count ? d.sd : NAN),
                        compact(d.count ? d.min : NAN), compact(d.count ? d.q10 : NAN),
                        compact(d.count ? d.median : NAN), compact(d.count ? d.max : NAN));
    }
    bars_->setData(keys, values);
    plot_->xAxis->setLabel(fig ? tr(fig->label) : QString());
    plot_->rescaleAxes();
    if (!keys.isEmpty()) {
        const double w = bars_->width();
        plot_->xAxis->setRange(keys.front() - w, keys.back() + w);
        plot_->yAxis->setRange(0, *std::max_element(values.begin(), values.end()) + 0.5);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
    distribution_->setText(text);
}

}  // namespace nnwb
