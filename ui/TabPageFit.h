// Sizing a QTabWidget by the page on show: a tab widget is as large as its largest page, so a
// page not shown (the Price Chart's candles and trading pane, the Comparison tab without the
// docks) would set the minimum size of the others and of the window. Pages not current get an
// Ignored size policy, the current one Preferred. GUI thread only.
#pragma once

class QTabWidget;

namespace nnwb {

// Call after the current page changed (and once after the pages were added).
void fitTabWidgetToCurrentPage(QTabWidget* tabs);

}  // namespace nnwb
