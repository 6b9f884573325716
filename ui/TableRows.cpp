#include "ui/TableRows.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>

namespace nnwb {

int tableHeightForRows(const QTableView* table, int rows) {
    const int header =
        table->horizontalHeader()->isHidden() ? 0 : table->horizontalHeader()->sizeHint().height();
    return header + rows * table->verticalHeader()->defaultSectionSize() +
           table->horizontalScrollBar()->sizeHint().height() + 2 * table->frameWidth();
}

}  // namespace nnwb
