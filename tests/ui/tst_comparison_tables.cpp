// GUI: the window's tables. The Comparison tab's tables stay cheap as runs pile up (issue 13, found
// by the GUI monkey). The summary table is rebuilt after every epoch of every run; with its columns
// sized to their contents it measured every cell of its column again for each cell it set,
// so a comparison of 30 runs measured ~40,000 cells per epoch (seconds of a frozen window,
// minutes under ASan). The test counts the cells measured, not the time taken.
#include <QStyledItemDelegate>
#include <QtTest>

#include "app/compare/ComparisonSet.h"
#include "app/compare/ComparisonSummary.h"
#include "app/runs/StoredRun.h"
#include "ui/ComparisonRunsTable.h"
#include "ui/ComparisonSummaryTable.h"
#include "ui/RunsTableModel.h"
#include "ui/RunsView.h"

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

    // Issue 24: "best val acc 100.00 %" from one signal. Every accuracy in the window's
    // tables comes with its signal count, and is n/a below the minimum (model/FigureText.h);
    // the counts are grouped by commas, whatever the locale.
    void accuraciesShowTheirSignals() {
        const QLocale before;
        QLocale::setDefault(QLocale(QLocale::German));  // would group "1.000"
        std::vector<RunRecord> rs = runs(2);
        rs[1].epochs[0].validation.signalCount = 40;
        ComparisonSummaryTable table;
        table.setRecords(rs, {Qt::red, Qt::blue});
        const int best = ComparisonSummaryTable::kFirstFigureColumn + kBestAccuracy;
        QCOMPARE(table.item(0, best)->text(), QStringLiteral("n/a (5)"));
        QCOMPARE(table.item(1, best)->text(), QStringLiteral("41.00 (40)"));
        QCOMPARE(table.item(0, ComparisonSummaryTable::kFirstFigureColumn + kParameters)->text(),
                 QStringLiteral("1,000"));

        StoredRun one, many;
        one.id = 1;
        one.parameters = 4115;
        one.bestValMissed = 90.0;
        one.bestValAccuracySignals = 1;  // its only accuracy: 100 % of one signal
        many.id = 2;
        many.bestValAccuracy = 52.5;
        many.bestValAccuracySignals = 1234;
        RunsTableModel model;
        model.setRuns({one, many});
        auto text = [&model](int row, int column) {
            return model.data(model.index(row, column), Qt::DisplayRole).toString();
        };
        QCOMPARE(text(0, RunsTableModel::kBestAccuracy), QStringLiteral("n/a (1)"));
        QCOMPARE(text(1, RunsTableModel::kBestAccuracy), QStringLiteral("52.50 (1,234)"));
        QCOMPARE(text(0, RunsTableModel::kParameters), QStringLiteral("4,115"));
        QLocale::setDefault(before);
    }

    // The trading figures of the comparison summary are grouped in the CLI's table as in the
    // window's ("-17,796.0"; `nnwb-cli compare` printed "-17796.0"); a long epoch's seconds are
    // whole seconds, not "1.23e+03".
    void summaryFiguresAreGroupedAsInTheWindow() {
        std::vector<RunRecord> rs = runs(1);
        rs[0].trading = {{"strategy",
                          {{"netPoints", -17796.04},
                           {"profitFactor", 0.81},
                           {"maxDrawdownPoints", 1234567.5},
                           {"trades", 1234}}}};
        rs[0].epochs[0].seconds = 1234.4;
        const SummaryRow row = summarize(rs)[0];
        QCOMPARE(formatSummaryCell(row, kTradeNet), std::string("-17,796.0"));
        QCOMPARE(formatSummaryCell(row, kTradeDrawdown), std::string("1,234,567.5"));
        QCOMPARE(formatSummaryCell(row, kTrades), std::string("1,234"));
        QCOMPARE(formatSummaryCell(row, kSecondsPerEpoch), std::string("1,234"));
        QCOMPARE(formatSummaryValue(kSecondsPerEpoch, 0.0123), std::string("0.0123"));
        QCOMPARE(formatSummaryValue(kTradeNet, std::nullopt), std::string("n/a"));
        ComparisonSummaryTable table;
        table.setRecords(rs, {Qt::red});
        const int first = ComparisonSummaryTable::kFirstFigureColumn;
        QCOMPARE(table.item(0, first + kTradeNet)->text(), QStringLiteral("-17,796.0"));
        QCOMPARE(table.item(0, first + kTrades)->text(), QStringLiteral("1,234"));
    }

    // The runs table's data column names the window in bars per sample, with its number:
    // "window 1 bar" (it said "· 1 bars", which also read as the file's bars).
    void theDataColumnSaysTheWindowInWords() {
        ComparisonSet set;
        Experiment e;
        e.data = {{"source", "file"}, {"file", "/data/EURUSD_H1.csv"}, {"window", 1}};
        set.addRun(e, {});
        e.data["window"] = 1200;
        set.addRun(e, {});
        e.data = {{"source", "synthetic"}, {"samples", 1}};
        set.addRun(e, {});
        ComparisonRunsTable table;
        table.setRuns(set, {Qt::red, Qt::blue, Qt::green});
        QCOMPARE(table.item(0, ComparisonRunsTable::kData)->text(),
                 QStringLiteral("EURUSD_H1.csv · window 1 bar"));
        QVERIFY2(table.item(1, ComparisonRunsTable::kData)
                     ->text()
                     .endsWith(QStringLiteral("EURUSD_H1.csv · window 1,200 bars")),
                 qPrintable(table.item(1, ComparisonRunsTable::kData)->text()));
        QVERIFY2(table.item(2, ComparisonRunsTable::kData)->text().endsWith("synthetic · 1 sample"),
                 qPrintable(table.item(2, ComparisonRunsTable::kData)->text()));
        QVERIFY2(table.item(0, ComparisonRunsTable::kData)
                     ->toolTip()
                     .contains(QStringLiteral("window 1 bar (bars per sample)")),
                 qPrintable(table.item(0, ComparisonRunsTable::kData)->toolTip()));
    }

    // A stored run that early stopping ended is "stopped early" when the Runs tab compares
    // it, as in its own table; it was "stopped", the word for the user's Stop.
    void storedEarlyStopIsNotAStop() {
        StoredRun run;
        run.status = runstatus::kStoppedEarly;
        StoredEpoch e;
        e.report.epoch = 1;
        run.epochs = {e};
        QCOMPARE(std::string(runRecordOf(run).statusText()), std::string("stopped early"));
        run.status = runstatus::kStopped;
        QCOMPARE(std::string(runRecordOf(run).statusText()), std::string("stopped"));
        run.status = runstatus::kCompleted;
        QCOMPARE(std::string(runRecordOf(run).statusText()), std::string("completed"));
    }
};

QTEST_MAIN(TestComparisonTables)
#include "tst_comparison_tables.moc"
