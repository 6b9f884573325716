// GUI: the Comparison tab's tables stay cheap as runs pile up (issue 13, found by the GUI
// monkey). The summary table is rebuilt after every epoch of every run; with its columns
// sized to their contents it measured every cell of its column again for each cell it set,
// so a comparison of 30 runs measured ~40,000 cells per epoch (seconds of a frozen window,
// minutes under ASan). The test counts the cells measured, not the time taken.
#include <QStyledItemDelegate>
#include <QtTest>

#include "ui/ComparisonSummaryTable.h"

using namespace nnwb;

namespace {
// Counts how many cells the view asks to measure.
class CountingDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QSize sizeHint(const QStyleOptionViewItem& o, const QModelIndex& i) const override {
        ++count;
        return QStyledItemDelegate::sizeHint(o, i);
    }
    mutable int count = 0;
};

std::vector<RunRecord> runs(int n) {
    std::vector<RunRecord> out;
    for (int i = 0; i < n; ++i) {
        RunRecord r;
        r.label = "run " + std::to_string(i + 1);
        r.deviceId = "cpu";
        r.parameters = size_t(1000 * (i + 1));
        r.trainSamples = 80;
        r.validationSamples = 20;
        r.status = RunStatus::Completed;
        EpochReport e;
        e.epoch = 1;
        e.taskMetrics = true;
        e.seconds = 0.1 * (i + 1);
        e.samplesPerSecond = 1000;
        e.validation.loss = 0.5 - 0.01 * i;
        e.validation.accuracyPct = 40 + i;
        e.validation.missedPct = 60 - i;
        e.validation.signalCount = 5;
        r.epochs = {e};
        out.push_back(r);
    }
    return out;
}
}  // namespace

class TestComparisonTables : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void summaryRebuildIsLinearInTheCells() {
        ComparisonSummaryTable table;
        auto* counter = new CountingDelegate(&table);
        table.setItemDelegate(counter);
        table.resize(900, 400);
        table.show();
        QVERIFY(QTest::qWaitForWindowExposed(&table));
        const int n = 30;
        const std::vector<QColor> colours(n, QColor(Qt::blue));
        table.setRecords(runs(n), colours);  // the first fill
        QCoreApplication::processEvents();
        counter->count = 0;
        table.setRecords(runs(n), colours);  // what every epoch of every run does
        QCoreApplication::processEvents();
        const int cells = n * table.columnCount();
        // Each cell measured a few times at most (once to size its column, once to paint).
        QVERIFY2(counter->count <= 4 * cells,
                 qPrintable(QString("%1 cells measured for a table of %2 cells")
                                .arg(counter->count)
                                .arg(cells)));
        // The columns still fit their contents: sizing them again changes nothing.
        QList<int> widths;
        for (int c = 0; c < table.columnCount(); ++c) widths << table.columnWidth(c);
        table.resizeColumnsToContents();
        for (int c = 0; c < table.columnCount(); ++c)
            QVERIFY2(widths[c] >= table.columnWidth(c),
                     qPrintable(QString("column %1: %2 px, its contents %3")
                                    .arg(c)
                                    .arg(widths[c])
                                    .arg(table.columnWidth(c))));
    }
};

QTEST_MAIN(TestComparisonTables)
#include "tst_comparison_tables.moc"
