// The height a table view needs to show a number of rows of its default height under its
// header, a horizontal scroll bar included (the room tests/ui/tst_laptop_sizes.cpp counts: the
// viewport's height over the default row height). For minimum and fixed heights of the tables
// of a view. GUI thread only.
#pragma once

class QTableView;

namespace nnwb {

int tableHeightForRows(const QTableView* table, int rows);

}  // namespace nnwb
