#include "ui/FoldConfusions.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/FlowLayout.h"

namespace nnwb {

FoldConfusions::FoldConfusions(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("foldConfusions"));
    row_ = new FlowLayout(this);
    row_->setContentsMargins(0, 0, 0, 0);
}

void FoldConfusions::setMatrices(const std::vector<std::pair<QString, ConfusionCounts>>& matrices) {
    for (QWidget* b : boxes_) delete b;
    boxes_.clear();
    tables_.clear();
    const QStringList classes{tr("none"), tr("buy"), tr("sell")};
    for (const auto& [title, counts] : matrices) {
        auto* box = new QWidget(this);
        auto* v = new QVBoxLayout(box);
        v->setContentsMargins(0, 0, 6, 0);
        auto* label = new QLabel(title, box);
        if (boxes_.empty()) {
            QFont f = label->font();
            f.setBold(true);
            label->setFont(f);
        }
        v->addWidget(label);
        auto* t = new QTableWidget(3, 3, box);
        t->setHorizontalHeaderLabels({tr("→ none"), tr("→ buy"), tr("→ sell")});
        t->setVerticalHeaderLabels(classes);
        t->setEditTriggers(QAbstractItemView::NoEditTriggers);
        t->setSelectionMode(QAbstractItemView::NoSelection);
        t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
        for (int a = 0; a < 3; ++a) {
            int64_t rowSum = 0;
            for (int p = 0; p < 3; ++p) rowSum += counts[size_t(a)][size_t(p)];
            for (int p = 0; p < 3; ++p) {
                const int64_t n = counts[size_t(a)][size_t(p)];
                auto* item = new QTableWidgetItem(QString::number(n));
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                const int alpha = rowSum > 0 ? int(20 + 150 * double(n) / double(rowSum)) : 0;
                item->setBackground(QColor(40, 90, 170, alpha));
                t->setItem(a, p, item);
            }
        }
        t->resizeColumnsToContents();
        const int h =
            t->horizontalHeader()->height() + 3 * t->verticalHeader()->defaultSectionSize();
        t->setFixedHeight(h + 2 * t->frameWidth());
        t->setToolTip(tr("%1: rows actual class, columns predicted signal").arg(title));
        v->addWidget(t);
        row_->addWidget(box);
        boxes_.push_back(box);
        tables_.push_back(t);
    }
}

}  // namespace nnwb
