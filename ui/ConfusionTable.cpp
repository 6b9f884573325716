#include "ui/ConfusionTable.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

#include "model/FigureText.h"

namespace nnwb {

ConfusionTable::ConfusionTable(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    caption_ = new QLabel(tr("Confusion matrix"), this);
    QFont b = caption_->font();
    b.setBold(true);
    caption_->setFont(b);
    part_ = new QComboBox(this);
    part_->addItem(tr("validation"));
    part_->addItem(tr("training"));
    // The caption has a line of its own (it wraps rather than being cut off in a narrow
    // column), the part picker below it.
    caption_->setObjectName(QStringLiteral("confusionCaption"));
    caption_->setWordWrap(true);
    caption_->setMinimumWidth(0);
    layout->addWidget(caption_);
    auto* partLabel = new QLabel(tr("Part:"), this);
    row->addWidget(partLabel);
    row->addWidget(part_);
    row->addStretch(1);
    layout->addLayout(row);
    table_ = new QTableWidget(3, 3, this);
    table_->setObjectName(QStringLiteral("confusionTable"));
    const QStringList classes{tr("none"), tr("buy"), tr("sell")};
    QStringList cols, rows;
    for (const QString& c : classes) {
        cols << tr("→ %1").arg(c);
        rows << c;
    }
    table_->setHorizontalHeaderLabels(cols);
    table_->setVerticalHeaderLabels(rows);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->setToolTip(tr("Rows: actual class of the bar. Columns: predicted signal."));
    table_->setMinimumHeight(110);
    // Room for "100.0 %" in each column: at 1024x600 the pane was 205 px wide and the cells
    // read "100.0…". A cell's text has the focus frame's margin (plus 1) on either side.
    const int cellMargin =
        2 * (table_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table_) + 1);
    const int column =
        table_->fontMetrics().horizontalAdvance(QStringLiteral("100.0 %")) + cellMargin + 1;
    setMinimumWidth(std::max(200, 8 + 2 * table_->frameWidth() +
                                      table_->verticalHeader()->sizeHint().width() +
                                      int(classes.size()) * column));
    layout->addWidget(table_, 1);
    // Wraps: cut to whole clauses it lost "shade: share of the row" at 1280x720 and 1024x600.
    auto* note =
        new QLabel(tr("rows: actual · columns: predicted · shade: share of the row"), this);
    note->setWordWrap(true);
    note->setMinimumWidth(0);
    note->setObjectName(QStringLiteral("confusionNote"));
    note->setStyleSheet(QStringLiteral("color: palette(mid); font-size: 8pt;"));
    layout->addWidget(note);
    connect(part_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { show(); });
    clear();
}

void ConfusionTable::setReport(const EpochReport& report, bool hasValidation) {
    report_ = report;
    have_ = report.taskMetrics;
    hasValidation_ = hasValidation;
    setKeptMembers(0);
    show();
}

void ConfusionTable::setKeptEnsemble(const EpochMetrics& validation, int members,
                                     bool dataChanged) {
    report_ = EpochReport{};
    keptOnChangedData_ = dataChanged;
    report_.validation = validation;
    have_ = true;
    hasValidation_ = true;
    {
        const QSignalBlocker b(part_);
        part_->setCurrentIndex(0);
    }
    setKeptMembers(members);
    show();
}

void ConfusionTable::setKeptMembers(int members) {
    keptMembers_ = members;
    part_->setEnabled(members == 0);
    part_->setToolTip(members == 0 ? QString()
                                   : tr("The kept ensemble is measured on the validation part "
                                        "only (each member's kept epoch, combined)."));
}

void ConfusionTable::clear() {
    have_ = false;
    setKeptMembers(0);
    show();
}

QString ConfusionTable::caption() const {
    return caption_->text();
}

void ConfusionTable::show() {
    const bool validation = part_->currentIndex() == 0 && hasValidation_;
    const EpochMetrics& m = validation ? report_.validation : report_.train;
    caption_->setText(!have_ ? tr("Confusion matrix")
                      : keptMembers_ > 0
                          ? tr("Confusion matrix · the kept ensemble of %1 seeds, validation part")
                                    .arg(keptMembers_) +
                                (keptOnChangedData_
                                     ? tr(" of the price file as it is now: it has changed since "
                                          "training")
                                     : QString())
                          : tr("Confusion matrix · epoch %1").arg(report_.epoch));
    for (int a = 0; a < 3; ++a) {
        int64_t rowSum = 0;
        for (int p = 0; p < 3; ++p) rowSum += have_ ? m.confusion[a][p] : 0;
        for (int p = 0; p < 3; ++p) {
            auto* item = table_->item(a, p);
            if (!item) {
                item = new QTableWidgetItem;
                item->setTextAlignment(Qt::AlignCenter);
                table_->setItem(a, p, item);
            }
            if (!have_) {
                item->setText(QStringLiteral("–"));
                item->setBackground(QBrush());
                continue;
            }
            const int64_t v = m.confusion[a][p];
            const double share = rowSum > 0 ? double(v) / double(rowSum) : 0.0;
            item->setText(QStringLiteral("%1\n%2 %")
                              .arg(QString::fromStdString(groupedCount(int64_t(v))))
                              .arg(share * 100.0, 0, 'f', 1));
            const QColor base = a == p ? QColor(0x2e, 0x8b, 0x57) : QColor(0xc0, 0x39, 0x2b);
            QColor c = base;
            c.setAlphaF(0.08 + 0.6 * share);
            item->setBackground(c);
        }
    }
}

}  // namespace nnwb
