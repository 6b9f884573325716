#include "ui/TradingView.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

#include "app/core/ExperimentDocument.h"
#include "app/core/TradingPresenter.h"
#include "model/FigureText.h"
#include "model/trading/TradingReport.h"
#include "model/trading/TradingSettings.h"
#include "ui/EquityChart.h"
#include "ui/TradingSettingsDialog.h"
#include "ui/TradingTable.h"

namespace nnwb {

TradingView::TradingView(TradingPresenter* presenter, ExperimentDocument* doc, QWidget* parent)
    : QWidget(parent), presenter_(presenter), doc_(doc) {
    setObjectName(QStringLiteral("tradingView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    row->addStretch(0);  // the buttons at the right when the caption is hidden
    caption_ = new QLabel(this);
    caption_->setObjectName(QStringLiteral("tradingCaption"));
    caption_->setMinimumWidth(80);
    caption_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    row->addWidget(caption_, 1);
    auto* rules = new QPushButton(tr("Trading Rules…"), this);
    rules->setObjectName(QStringLiteral("tradingRules"));
    exportTrades_ = new QPushButton(tr("Export Trades…"), this);
    exportEquity_ = new QPushButton(tr("Export Equity…"), this);
    for (QPushButton* b : {rules, exportTrades_, exportEquity_}) row->addWidget(b);
    layout->addLayout(row);
    auto* body = new QHBoxLayout;
    chart_ = new EquityChart(this);
    table_ = new TradingTable(this);
    body->addWidget(chart_, 3);
    body->addWidget(table_, 2);
    layout->addLayout(body, 1);
    note_ = new QLabel(this);
    note_->setObjectName(QStringLiteral("tradingNote"));
    note_->setWordWrap(true);  // a warning or a saved file's path, whole at any width
    layout->addWidget(note_);
    connect(presenter_, &TradingPresenter::changed, this, &TradingView::refresh);
    connect(rules, &QPushButton::clicked, this, &TradingView::editRules);
    connect(exportTrades_, &QPushButton::clicked, this, [this] { exportWithDialog(true); });
    connect(exportEquity_, &QPushButton::clicked, this, [this] { exportWithDialog(false); });
    refresh();
}

void TradingView::setCaption(const QString& text) {
    captionText_ = text;
    caption_->setToolTip(text);
    elideCaption();
}

void TradingView::hideCaption() {
    caption_->hide();
}

void TradingView::elideCaption() {
    caption_->setText(caption_->fontMetrics().elidedText(captionText_, Qt::ElideRight,
                                                         std::max(40, caption_->width())));
}

void TradingView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    elideCaption();
}

void TradingView::refresh() {
    const auto report = presenter_->report();
    chart_->setReport(report.get());
    table_->setReport(report.get());
    exportTrades_->setEnabled(report != nullptr);
    exportEquity_->setEnabled(report != nullptr);
    note_->clear();
    if (!presenter_->error().isEmpty()) {
        setCaption(tr("Trading: cannot evaluate the signals of %1: %2")
                       .arg(presenter_->what(), presenter_->error()));
    } else if (!report) {
        setCaption(
            tr("Trading: the model's signals are traded here once a run has "
               "trained an epoch on a price file."));
    } else {
        const size_t trades = report->trades.size();
        setCaption(tr("Trading the signals of %1: %2, net %3 points after costs (%4; one point = "
                      "%5)")
                       .arg(presenter_->what())
                       .arg((trades == 1 ? tr("%1 trade") : tr("%1 trades"))
                                .arg(QString::fromStdString(groupedCount(int64_t(trades)))))
                       .arg(QString::fromStdString(groupedFixed(report->strategy.netPoints, 1)))
                       .arg(costsText(*report, presenter_->settings()))
                       .arg(report->point, 0, 'g', 6));
        QStringList warnings;  // zero costs (docs/trading.md)
        for (const std::string& w : report->warnings) warnings << QString::fromStdString(w);
        if (!warnings.isEmpty()) note_->setText(tr("Warning: %1").arg(warnings.join("; ")));
    }
}

namespace {
// "1 point", "7 points", "0.5 points".
QString pointsText(double v) {
    return v == 1 ? TradingView::tr("1 point")
                  : TradingView::tr("%1 points").arg(QString::number(v, 'g', 6));
}
}  // namespace

QString TradingView::costsText(const TradingReport& report, const TradingSettings& settings) {
    QStringList parts;
    parts << (report.spreadFrom == "file"
                  ? tr("spread from the file")
                  : tr("spread from the setting: %1").arg(pointsText(report.spreadPoints)));
    parts << (settings.commission > 0
                  ? tr("commission %1 a round trip").arg(pointsText(settings.commission))
                  : tr("no commission"));
    parts << (settings.slippagePoints > 0
                  ? tr("slippage %1 a fill").arg(pointsText(settings.slippagePoints))
                  : tr("no slippage"));
    return parts.join(QStringLiteral(", "));
}

void TradingView::editRules() {
    TradingSettingsDialog dialog(doc_, this);
    dialog.exec();
}

QString TradingView::defaultExportName(bool trades) const {
    const QString base = QFileInfo(doc_->displayName()).completeBaseName();
    return base + (trades ? QStringLiteral("-trades.csv") : QStringLiteral("-equity.csv"));
}

void TradingView::exportWithDialog(bool trades) {
    QFileDialog dialog(this, trades ? tr("Export Trades") : tr("Export Equity"),
                       defaultExportName(trades), tr("CSV files (*.csv)"));
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setDefaultSuffix(QStringLiteral("csv"));
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return;
    const QString path = dialog.selectedFiles().first();
    if (trades)
        exportTradesTo(path);
    else
        exportEquityTo(path);
}

bool TradingView::exportTradesTo(const QString& path) {
    QString error;
    const bool ok = presenter_->exportTrades(path, &error);
    const size_t trades = ok ? presenter_->report()->trades.size() : 0;
    note_->setText(
        ok ? tr("Saved %1 to %2")
                 .arg(trades == 1 ? tr("1 trade")
                                  : tr("%1 trades")
                                        .arg(QString::fromStdString(groupedCount(int64_t(trades)))),
                      QDir::toNativeSeparators(path))
           : tr("Trades not exported: %1").arg(error));
    return ok;
}

bool TradingView::exportEquityTo(const QString& path) {
    QString error;
    const bool ok = presenter_->exportEquity(path, &error);
    const size_t bars = ok ? presenter_->report()->equity.bar.size() : 0;
    note_->setText(ok ? tr("Saved the equity of %1 to %2")
                            .arg(bars == 1 ? tr("1 bar")
                                           : tr("%1 bars").arg(QString::fromStdString(
                                                 groupedCount(int64_t(bars)))),
                                 QDir::toNativeSeparators(path))
                      : tr("Equity not exported: %1").arg(error));
    return ok;
}

}  // namespace nnwb
