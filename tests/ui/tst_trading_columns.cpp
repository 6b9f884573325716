// GUI: the trading figures runs store (issue 30: net, profit factor, Sharpe, maximum drawdown,
// trades of the validation part with the best epoch's weights) in the Runs table and the
// comparison summary: figures as stored, "inf" for a profit factor without a losing trade,
// "n/a" where a run has none (also for {"error": ...}) or the figure does not exist (a null
// profit factor without a won trade); the comparison marks the best net and drawdown but never
// a count of trades; a comparison set keeps them through its JSON. Figures of 1,000 and more
// are digit-grouped as every other count in the window, in these tables, the Trading tab's
// figures table and its trade list (which still sorts by the number, not the text).
#include <QtTest>

#include "app/compare/ComparisonSummary.h"
#include "app/compare/RunRecord.h"
#include "app/runs/RunStore.h"
#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "model/trading/TradingReport.h"
#include "ui/ComparisonSummaryTable.h"
#include "ui/EnsembleMembersTable.h"
#include "ui/RunsTableModel.h"
#include "ui/TradeList.h"
#include "ui/TradingTable.h"

using namespace nnwb;

namespace {

// As stored (tradingFiguresToJson writes every figure): the win rate tells a null profit factor
// apart (docs/trading.md, Figures: infinite when a trade won and none lost, else n/a).
nlohmann::json trading(double net, const nlohmann::json& pf, double sharpe, double dd, int trades,
                       const nlohmann::json& winRate = 50.0) {
    return {{"part", "validation"},
            {"strategy",
             {{"netPoints", net},
              {"winRate", winRate},
              {"profitFactor", pf},
              {"sharpeAnnual", sharpe},
              {"maxDrawdownPoints", dd},
              {"trades", trades}}},
            {"buyAndHold", {{"netPoints", 1.0}, {"trades", 1}}}};
}

QString cell(const RunsTableModel& m, int row, int column) {
    return m.data(m.index(row, column), Qt::DisplayRole).toString();
}

RunRecord record(const std::string& label, const nlohmann::json& t) {
    RunRecord r;
    r.label = label;
    r.deviceId = "cpu";
    r.status = RunStatus::Completed;
    r.trading = t;
    return r;
}

}  // namespace

class TestTradingColumns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runsTableShowsTradingFigures() {
        RunsTableModel m;
        StoredRun a, b, c, d;
        a.id = 1;  // 17 trades, all won: no trade lost, the profit factor is infinite
        a.trading = trading(12.5, nullptr, 1.234, 40, 17, 100.0);
        b.id = 2;  // none computed
        c.id = 3;
        c.trading = {{"error", "no spread"}};
        d.id = 4;  // only breakeven trades: no trade won or lost, no profit factor
        d.trading = trading(0.0, nullptr, 0.0, 0, 3, 0.0);
        m.setRuns({a, b, c, d});
        using M = RunsTableModel;
        QCOMPARE(m.headerData(M::kTradeNet, Qt::Horizontal, Qt::DisplayRole).toString(),
                 QStringLiteral("Trade net pts"));
        QCOMPARE(cell(m, 0, M::kTradeNet), QStringLiteral("12.5"));
        QCOMPARE(cell(m, 0, M::kTradeProfitFactor), QStringLiteral("inf"));
        QCOMPARE(cell(m, 0, M::kTradeSharpe), QStringLiteral("1.23"));
        QCOMPARE(cell(m, 0, M::kTradeDrawdown), QStringLiteral("40.0"));
        QCOMPARE(cell(m, 0, M::kTrades), QStringLiteral("17"));
        QCOMPARE(cell(m, 3, M::kTradeProfitFactor), QStringLiteral("n/a"));
        QCOMPARE(cell(m, 3, M::kTrades), QStringLiteral("3"));
        for (int row : {1, 2})
            for (int c2 = M::kTradeNet; c2 <= M::kTrades; ++c2)
                QCOMPARE(cell(m, row, c2), QStringLiteral("n/a"));
        // Sorting by the raw value: a run without figures has none.
        QCOMPARE(m.data(m.index(0, M::kTradeNet), Qt::UserRole).toDouble(), 12.5);
        QVERIFY(!m.data(m.index(1, M::kTradeNet), Qt::UserRole).isValid());
        QVERIFY(m.data(m.index(2, M::kTrades), Qt::ToolTipRole).toString().contains("no spread"));
    }

    void comparisonSummaryShowsTradingFigures() {
        ComparisonSummaryTable table;
        const std::vector<RunRecord> runs{record("a", trading(-3.0, 0.8, -0.5, 60, 10)),
                                          record("b", trading(25.0, 1.7, 1.1, 20, 30)),
                                          record("c", nullptr)};
        table.setRecords(runs, {Qt::red, Qt::blue, Qt::green});
        const int f = ComparisonSummaryTable::kFirstFigureColumn;
        QCOMPARE(table.horizontalHeaderItem(f + kTradeNet)->text(),
                 QStringLiteral("trade net pts"));
        QCOMPARE(table.item(0, f + kTradeNet)->text(), QStringLiteral("-3.0"));
        QCOMPARE(table.item(1, f + kTradeNet)->text(), QStringLiteral("25.0"));
        QCOMPARE(table.item(1, f + kTradeProfitFactor)->text(), QStringLiteral("1.70"));
        QCOMPARE(table.item(1, f + kTradeSharpe)->text(), QStringLiteral("1.10"));
        QCOMPARE(table.item(1, f + kTradeDrawdown)->text(), QStringLiteral("20.0"));
        QCOMPARE(table.item(1, f + kTrades)->text(), QStringLiteral("30"));
        for (int c = kTradeNet; c <= kTrades; ++c)
            QCOMPARE(table.item(2, f + c)->text(), QStringLiteral("n/a"));
        QVERIFY(table.isMarkedBest(1, kTradeNet));
        QVERIFY(!table.isMarkedBest(0, kTradeNet));
        QVERIFY(table.isMarkedBest(1, kTradeDrawdown));  // lower is better
        QVERIFY(!table.isMarkedBest(0, kTrades) && !table.isMarkedBest(1, kTrades));
    }

    void largeFiguresAreGrouped() {
        ComparisonSummaryTable table;
        table.setRecords({record("a", trading(-17796.0, 0.8, -0.5, 23456.5, 1234))}, {Qt::red});
        const int f = ComparisonSummaryTable::kFirstFigureColumn;
        QCOMPARE(table.item(0, f + kTradeNet)->text(), QStringLiteral("-17,796.0"));
        QCOMPARE(table.item(0, f + kTradeDrawdown)->text(), QStringLiteral("23,456.5"));
        QCOMPARE(table.item(0, f + kTrades)->text(), QStringLiteral("1,234"));
        RunsTableModel m;
        StoredRun run;
        run.id = 1;
        run.trading = trading(-17796.0, 0.8, -0.5, 23456.5, 1234);
        m.setRuns({run});
        QCOMPARE(cell(m, 0, RunsTableModel::kTradeNet), QStringLiteral("-17,796.0"));
        QCOMPARE(cell(m, 0, RunsTableModel::kTrades), QStringLiteral("1,234"));
        QCOMPARE(m.data(m.index(0, RunsTableModel::kTradeNet), Qt::UserRole).toDouble(), -17796.0);

        TradingReport report;
        report.strategy.trades = 1234;
        report.strategy.netPoints = -17796.04;
        report.strategy.perTradePoints = -14.42;
        report.strategy.maxDrawdownPoints = 1234567.5;
        TradingTable figures;
        figures.setReport(&report);
        QCOMPARE(figures.cell(0, 0), QStringLiteral("1,234"));
        QCOMPARE(figures.cell(0, 3), QStringLiteral("-17,796.0"));
        QCOMPARE(figures.cell(0, 5), QStringLiteral("-14.4"));
        QCOMPARE(figures.cell(0, 6), QStringLiteral("1,234,567.5"));

        // The trade list sorts by the number: grouped text sorts "1,500.0" before "999.0".
        std::vector<Trade> trades(3);
        trades[0].net = 1500.0;
        trades[0].bars = 1200;
        trades[1].net = 999.0;
        trades[2].net = -2500.25;
        TradeList list;
        list.setTrades(trades);
        list.sortItems(TradeList::NetPoints, Qt::AscendingOrder);
        QCOMPARE(list.item(0, TradeList::NetPoints)->text(), QStringLiteral("-2,500.2"));
        QCOMPARE(list.item(1, TradeList::NetPoints)->text(), QStringLiteral("999.0"));
        QCOMPARE(list.item(2, TradeList::NetPoints)->text(), QStringLiteral("1,500.0"));
        QCOMPARE(list.item(2, TradeList::Bars)->text(), QStringLiteral("1,200"));
    }

    // `nnwb-cli runs list` and `runs show` write the figures the Runs tab shows, grouped as
    // there ("-17,796.0"; the CLI printed "-17796.0" beside the tab's "-17,796.0"), with the
    // costs the stored evaluation charged besides the spread.
    void theClisRunsFiguresAreTheRunsTabs() {
        const QString db = QString::fromStdString(test::tempDir()) + "/grouped-runs.sqlite";
        StoredRun run;
        run.uuid = "grouped-1";
        run.name = "grouped";
        run.status = runstatus::kCompleted;
        run.dataFile = "/data/EURUSD_H1.csv";
        run.dataSize = 727157;
        run.dataBars = 12323;
        run.trainSamples = 9816;
        run.validationSamples = 2435;
        nlohmann::json t = trading(-17796.04, 0.81, -1.2, 1234567.5, 1234);
        t["settings"] = {{"commission", 2.0}, {"slippagePoints", 0.0}};
        {
            RunStore store(db.toStdString());
            const int64_t id = store.insertRun(run);
            store.setTrading(id, t);
            store.finishRun(id, runstatus::kCompleted, "", std::nullopt);
        }
        RunsTableModel m;
        m.setRuns({[&] {
            StoredRun shown = run;
            shown.trading = t;
            return shown;
        }()});
        const auto list = test::runCli({"runs", "list", "--runs-db", db});
        QVERIFY2(list.code == 0, qPrintable(list.err));
        for (int c :
             {RunsTableModel::kTradeNet, RunsTableModel::kTradeDrawdown, RunsTableModel::kTrades})
            QVERIFY2(list.out.contains(" " + cell(m, 0, c) + " "),
                     qPrintable(list.out + " lacks " + cell(m, 0, c)));
        const auto show = test::runCli({"runs", "show", "1", "--runs-db", db});
        QVERIFY2(show.code == 0, qPrintable(show.err));
        for (const char* text :
             {"net -17,796.0 pts", "max drawdown 1,234,567.5 pts", "1,234 trades", "1 trade\n",
              "727,157 bytes", "12,323, ", "9,816 training / 2,435 validation",
              "commission 2 points a round trip, no slippage"})
            QVERIFY2(show.out.contains(QString(text)), qPrintable(show.out + " lacks " + text));
    }

    // The Runs tab's table of an ensemble against its members groups its nets as the Runs
    // table does ("-2,482.0"; it read "-2482.0").
    void ensembleMembersTableGroupsItsFigures() {
        StoredRun ensemble, a, b;
        ensemble.id = 3;
        ensemble.ensembleMembers = 2;
        ensemble.trading = trading(-2482.0, 0.8, -1.0, 3000, 1171);
        a.id = 1;
        a.bestValLoss = 0.2;
        a.trading = trading(-3934.04, 0.7, -1.0, 4000, 128);
        b.id = 2;
        b.bestValLoss = 0.3;
        b.trading = trading(12.5, 1.1, 0.5, 40, 17);
        EnsembleMembersTable table;
        table.showEnsemble(&ensemble, {&a, &b});
        QCOMPARE(table.item(0, EnsembleMembersTable::kNetPoints)->text(),
                 QStringLiteral("-2,482.0"));
        QCOMPARE(table.item(0, EnsembleMembersTable::kTrades)->text(), QStringLiteral("1,171"));
        QCOMPARE(table.item(1, EnsembleMembersTable::kNetPoints)->text(),
                 QStringLiteral("-3,934.0"));
    }

    void comparisonSetKeepsTradingFigures() {
        RunRecord r = record("a", trading(7.0, 2.0, 0.3, 5, 4));
        RunRecord back;
        back.historyFromJson(r.historyToJson());
        QCOMPARE(back.trading, r.trading);
        RunRecord none = record("b", nullptr);
        QVERIFY(!none.historyToJson().contains("trading"));
        back.historyFromJson(none.historyToJson());
        QVERIFY(back.trading.is_null());
    }
};

QTEST_MAIN(TestTradingColumns)
#include "tst_trading_columns.moc"
