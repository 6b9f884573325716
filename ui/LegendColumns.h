// Fits a QCustomPlot legend that has a row of its own to the plot's width: as many columns as
// its entries' whole text fits side by side (one at least), so that no entry is clipped to
// "tra" on a small screen. The price chart and the per-epoch charts use it. GUI thread only.
#pragma once

class QCPLegend;

namespace nnwb {

// Re-flows `legend` (fill order columns first) into the most columns whose entries fit in
// `room` pixels, and keeps it as wide as its entries.
void fitLegendColumns(QCPLegend* legend, int room);

}  // namespace nnwb
