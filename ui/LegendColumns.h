// Fits a QCustomPlot legend that has a row of its own to the plot's width: as many columns as
// its entries' whole text fits side by side (one at least), so that no entry is clipped to
// "tra" on a small screen. The price chart, the per-epoch and the sweep charts use it. GUI thread
// only.
#pragma once

class QCPLegend;
class QCustomPlot;

namespace nnwb {

// Re-flows `legend` (fill order columns first) into the most columns whose entries fit in
// `room` pixels, and keeps it as wide as its entries.
void fitLegendColumns(QCPLegend* legend, int room);
// Puts `plot`'s legend (shown, frameless, a smaller font, columns first) in a row of its own
// inserted at `row` of the plot's layout, with a spacer beside it: never over the data.
void putLegendInOwnRow(QCustomPlot* plot, int row);

}  // namespace nnwb
