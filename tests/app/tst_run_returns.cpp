// The per-bar returns the run store keeps beside a run's trading figures (app/runs/
// RunReturns.h, issue 45): returnSeriesJson takes the % equity's differences; setTrading moves
// "returnSeries" out of the figures into run_returns, read back bit for bit; a malformed series
// is refused naming the key; removing the run removes them; a schema 5 file gains the table.
#include <QtTest>

#include <SQLiteCpp/SQLiteCpp.h>

#include "app/runs/RunReturns.h"
#include "app/runs/RunStore.h"
#include "app/runs/RunsSchema.h"
#include "common/TestUtil.h"

using namespace nnwb;
using json = nlohmann::json;

class RunReturnsTest : public QObject {
    Q_OBJECT
    std::string dir_;

    int64_t newRun(RunStore& store) {
        StoredRun r;
        r.name = "r";
        r.source = "cli-train";
        r.experiment = {{"name", "r"}};
        return store.insertRun(r);
    }

private Q_SLOTS:
    void initTestCase() { dir_ = test::tempDir(); }

    void seriesAreTheEquityDifferences() {
        TradingEquity e;
        e.time = {100, 200, 300, 400};
        e.pct = {0.0, 0.5, 0.2, 0.2};
        const json j = returnSeriesJson(e);
        QCOMPARE(j["time"], json({200, 300, 400}));
        QCOMPARE(j["pct"][0].get<double>(), 0.5);
        QCOMPARE(j["pct"][1].get<double>(), 0.2 - 0.5);
        QCOMPARE(j["pct"][2].get<double>(), 0.0);
    }

    void storedApartAndReadBackExactly() {
        RunStore store(dir_ + "/runs.sqlite");
        const int64_t id = newRun(store), other = newRun(store);
        const std::vector<double> pct = {0.1, -0.05, 1e-17, 0.1 + 0.2};
        const json trading = {
            {"strategy", {{"sharpe", 0.25}}},
            {"returnSeries", {{"time", {3600, 7200, 10800, 14400}}, {"pct", pct}}}};
        store.setTrading(id, trading);
        const auto run = store.get(id);
        QVERIFY(run && run->trading.is_object());
        QVERIFY(!run->trading.contains("returnSeries"));
        QCOMPARE(run->trading["strategy"]["sharpe"].get<double>(), 0.25);
        const auto series = readReturnSeries(store, {id, other, 999});
        QCOMPARE(series.size(), size_t(1));
        QCOMPARE(series.at(id).time, (std::vector<int64_t>{3600, 7200, 10800, 14400}));
        QVERIFY(series.at(id).pct == pct);  // bit for bit
        // Figures again without a series keep the stored one.
        store.setTrading(id, {{"strategy", {{"sharpe", 0.3}}}});
        QCOMPARE(readReturnSeries(store, {id}).at(id).pct.size(), size_t(4));
        // A malformed series is refused, naming the key, and nothing changes.
        try {
            store.setTrading(other, {{"returnSeries", {{"time", {1, 2}}, {"pct", {0.5}}}}});
            QFAIL("a series of unequal arrays was stored");
        } catch (const RunStoreError& e) {
            QVERIFY2(QString(e.what()).contains("returnSeries"), e.what());
        }
        QVERIFY(readReturnSeries(store, {other}).empty());
        QVERIFY(store.remove(id));
        QVERIFY(readReturnSeries(store, {id}).empty());  // ON DELETE CASCADE
    }

    void schemaFiveGainsTheTable() {
        const std::string path = dir_ + "/five.sqlite";
        {
            SQLite::Database raw(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            migrateRunsSchema(raw, 5);
            QVERIFY(!raw.tableExists("run_returns"));
        }
        RunStore store(path);
        SQLite::Database raw(path);
        QCOMPARE(runsSchemaVersion(raw), kRunsSchemaVersion);  // 6 and later
        QVERIFY(raw.tableExists("run_returns"));
    }
};

QTEST_GUILESS_MAIN(RunReturnsTest)
#include "tst_run_returns.moc"
