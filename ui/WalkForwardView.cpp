#include "ui/WalkForwardView.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "app/core/WalkForwardPresenter.h"
#include "app/ensemble/EnsembleWalkForward.h"
#include "ui/CpcvView.h"
#include "ui/FoldBands.h"
#include "ui/PaneScrollArea.h"
#include "ui/TableRows.h"

namespace nnwb {

WalkForwardView::WalkForwardView(WalkForwardPresenter* presenter, QWidget* parent)
    : QWidget(parent), presenter_(presenter) {
    setObjectName(QStringLiteral("walkForwardView"));
    // The page scrolls when the tab is shorter than its parts' minimum heights (1024x600): each
    // table keeps room for five rows and the CPCV histogram its plot, instead of being squeezed
    // to one row under labels that overlap it.
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    caption_ = new QLabel(page);
    caption_->setObjectName(QStringLiteral("walkForwardCaption"));
    caption_->setWordWrap(true);
    layout->addWidget(caption_);
    legend_ = new QLabel(
        tr("On the price chart, one band per fold: %1").arg(FoldBands::legendHtml()), page);
    legend_->setObjectName(QStringLiteral("walkForwardLegend"));
    legend_->setTextFormat(Qt::RichText);
    legend_->setWordWrap(true);  // unwrapped, it made the window wider than a 1280 px screen
    layout->addWidget(legend_);
    table_ = new QTableWidget(0, WalkForwardPresenter::columnTitles().size(), page);
    table_->setObjectName(QStringLiteral("foldTable"));
    table_->setHorizontalHeaderLabels(WalkForwardPresenter::columnTitles());
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    table_->installEventFilter(this);  // its height follows its width (the scroll bar)
    layout->addWidget(table_, 1);
    stitched_ = new QLabel(page);
    stitched_->setObjectName(QStringLiteral("walkForwardStitched"));
    stitched_->setWordWrap(true);
    stitched_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(stitched_);
    ensembleCaption_ = new QLabel(
        tr("The ensemble against its members, out of sample (stitched folds; the best member "
           "is chosen after the fact):"),
        page);
    ensembleCaption_->setWordWrap(true);
    layout->addWidget(ensembleCaption_);
    const std::vector<std::string>& columns = ensembleSummaryColumns();
    ensembleTable_ = new QTableWidget(0, int(columns.size()), page);
    ensembleTable_->setObjectName(QStringLiteral("ensembleSummaryTable"));
    QStringList titles;
    for (const std::string& c : columns) titles << QString::fromStdString(c);
    ensembleTable_->setHorizontalHeaderLabels(titles);
    ensembleTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    ensembleTable_->verticalHeader()->setVisible(false);
    ensembleTable_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    layout->addWidget(ensembleTable_);
    layout->addWidget(new CpcvView(presenter_, page), 1);  // the paths under scheme cpcv
    // What the table (as tall as its rows) and the CPCV view leave, under them.
    layout->addStretch(0);
    auto* scroll = new PaneScrollArea(page, this);
    scroll->setObjectName(QStringLiteral("walkForwardScroll"));
    outer->addWidget(scroll);
    connect(presenter_, &WalkForwardPresenter::changed, this, &WalkForwardView::refresh);
    refresh();
}

void WalkForwardView::refresh() {
    caption_->setText(presenter_->caption());
    const std::vector<QStringList> rows = presenter_->rows();
    // CPCV draws no fold bands on the price chart (its splits overlap): no legend for them.
    legend_->setVisible(!rows.empty() && !presenter_->plan().isCpcv());
    // Filled with the columns at fixed widths, then sized once: sized as each cell is set,
    // a 900-fold plan froze the window for minutes (every cell measured its whole column).
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    table_->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r)
        for (int c = 0; c < rows[size_t(r)].size(); ++c) {
            QTableWidgetItem* item = table_->item(r, c);
            if (!item) {
                item = new QTableWidgetItem;
                if (c >= 3) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                table_->setItem(r, c, item);
            }
            if (item->text() != rows[size_t(r)][c]) item->setText(rows[size_t(r)][c]);
        }
    table_->resizeColumnsToContents();
    fitTable();
    const QString stitched = presenter_->stitchedText();
    stitched_->setText(stitched.isEmpty() ? QString()
                                          : stitched + tr(" (the Trading tab trades this series)"));
    stitched_->setVisible(!stitched.isEmpty());
    showEnsembleSummary();
}

void WalkForwardView::showEnsembleSummary() {
    const WalkForwardOutcome* o = presenter_->outcome();
    const bool shown = o && o->ensembleSummary;
    ensembleCaption_->setVisible(shown);
    ensembleTable_->setVisible(shown);
    if (!shown) {
        ensembleTable_->setRowCount(0);
        return;
    }
    const std::vector<EnsembleSummaryRow> rows = ensembleWalkForwardRows(*o->ensembleSummary);
    ensembleTable_->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r) {
        const EnsembleSummaryRow& row = rows[size_t(r)];
        ensembleTable_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(row.label)));
        for (int c = 0; c < int(row.cells.size()); ++c) {
            auto* item = new QTableWidgetItem(QString::fromStdString(row.cells[size_t(c)]));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            ensembleTable_->setItem(r, c + 1, item);
        }
    }
    ensembleTable_->resizeColumnsToContents();
    // All its rows (eleven at most) without a scroll bar of its own: the page scrolls.
    const int height = tableHeightForRows(ensembleTable_, int(rows.size()));
    ensembleTable_->setMinimumHeight(height);
    ensembleTable_->setMaximumHeight(height);
}

bool WalkForwardView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == table_ && event->type() == QEvent::Resize) fitTable();
    return QWidget::eventFilter(watched, event);
}

void WalkForwardView::fitTable() {
    // As tall as its rows (and the scroll bar when its columns are wider than it), five rows
    // at least while it has them: stretched to the tab, six folds left most of the page an
    // empty table. The CPCV view under it, or the empty page, takes the rest.
    const int rows = std::max(1, table_->rowCount());
    const int inside = table_->width() - 2 * table_->frameWidth();
    const int bar = table_->horizontalHeader()->length() > inside
                        ? 0
                        : table_->horizontalScrollBar()->sizeHint().height();
    table_->setMinimumHeight(tableHeightForRows(table_, std::min(5, rows)) - bar);
    table_->setMaximumHeight(tableHeightForRows(table_, rows) - bar);
}

}  // namespace nnwb
