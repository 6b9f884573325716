#include "ui/LegendColumns.h"

#include <algorithm>
#include <vector>

#include "ui/Plot.h"

namespace nnwb {

void fitLegendColumns(QCPLegend* legend, int room) {
    std::vector<int> entries;  // each entry's width (itemCount() also counts empty cells)
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = legend->item(i))
            entries.push_back(item->minimumOuterSizeHint().width());
    const int n = int(entries.size());
    if (n == 0) return;
    // The columns are as wide as their widest entry, plus the legend's margins and spacing.
    const QMargins m = legend->margins();
    room -= m.left() + m.right();
    int columns = n;
    for (; columns > 1; --columns) {
        std::vector<int> widths(size_t(columns), 0);
        for (int i = 0; i < n; ++i) {
            int& w = widths[size_t(i % columns)];
            w = std::max(w, entries[size_t(i)]);
        }
        int total = legend->columnSpacing() * (columns - 1);
        for (int w : widths) total += w;
        if (total <= room) break;
    }
    if (legend->wrap() != columns || legend->columnCount() > columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // re-flow the entries
    }
    // As wide as its entries, not spread over the row (a spacer beside it takes the rest).
    legend->setMaximumSize(legend->minimumOuterSizeHint().width(), QWIDGETSIZE_MAX);
}

void putLegendInOwnRow(QCustomPlot* plot, int row) {
    QCPLegend* legend = plot->legend;
    legend->setVisible(true);
    legend->setBrush(Qt::NoBrush);
    legend->setBorderPen(Qt::NoPen);
    QFont lf = plot->font();
    lf.setPointSizeF(lf.pointSizeF() * 0.9);
    legend->setFont(lf);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setMargins(QMargins(2, 0, 2, 0));
    // In a row of its own with a spacer beside it: an empty legend's maximum width is its
    // margins, and as the only element of the plot's column it made the whole plot that narrow
    // (an empty Comparison chart drew its axes in a 120 px strip at the left).
    auto* legendRow = new QCPLayoutGrid;
    plot->plotLayout()->insertRow(row);
    plot->plotLayout()->addElement(row, 0, legendRow);
    legendRow->addElement(0, 0, legend);
    legendRow->addElement(0, 1, new QCPLayoutElement(plot));
    legendRow->setColumnStretchFactor(1, 0.001);
    legendRow->setColumnSpacing(0);
    plot->plotLayout()->setRowStretchFactor(row, 0.001);
    plot->plotLayout()->setRowSpacing(0);
}

}  // namespace nnwb
