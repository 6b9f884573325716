// TradingPresenter: the window's trading evaluation of the shown signals. The network's outputs
// become signals by their largest value on the right bars (a buy on the first output bar + 2
// and a sell three bars later give one long trade from the next bar's open to the bar after the
// sell), a settings change evaluates again, bad settings give the evaluation's reason and no
// report, the CSV exports write what model/trading writes and refuse without a report.
#include <memory>
#include <vector>

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/core/TradingPresenter.h"
#include "model/AtomicFile.h"
#include "model/trading/TradingCsv.h"

using namespace nnwb;

namespace {
// 30 hourly bars rising by 10 points a bar, 5-digit prices, no spread column.
std::shared_ptr<const BarSeries> risingBars() {
    auto b = std::make_shared<BarSeries>();
    for (int i = 0; i < 30; ++i) {
        const double o = 1.10000 + i * 0.00010;
        b->time.push_back(1500000000 + 3600 * i);
        b->open.push_back(o);
        b->high.push_back(o + 0.00012);
        b->low.push_back(o - 0.00002);
        b->close.push_back(o + 0.00010);
        b->volume.push_back(0);
    }
    b->digits = 5;
    b->point = 0.00001;
    b->format = "csv";
    b->source = "rising";
    b->timeframe = 3600;
    return b;
}

// Outputs for bars first..first+n-1: none everywhere but a buy at `buyAt`, a sell at `sellAt`.
std::shared_ptr<const std::vector<float>> outputs(size_t n, size_t buyAt, size_t sellAt) {
    auto v = std::make_shared<std::vector<float>>();
    for (size_t i = 0; i < n; ++i) {
        const float buy = i == buyAt ? 0.9f : 0.1f, sell = i == sellAt ? 0.8f : 0.1f;
        v->insert(v->end(), {0.5f, buy, sell});
    }
    return v;
}
}  // namespace

class TestTradingPresenter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void signalsBecomeTradesOnTheirBars() {
        TradingPresenter p;
        QSignalSpy changed(&p, &TradingPresenter::changed);
        TradingSettings s;
        s.randomDraws = 5;
        p.setSettings(s);
        p.setSignals(risingBars(), 10, outputs(15, 2, 5), QStringLiteral("epoch 1"));
        QVERIFY(changed.count() >= 1);
        QVERIFY2(p.error().isEmpty(), qPrintable(p.error()));
        const auto r = p.report();
        QVERIFY(r);
        QCOMPARE(r->firstBar, size_t(10));
        QCOMPARE(r->lastBar, size_t(24));
        // Buy on bar 12 (10 + 2): long from bar 13's open. Sell on bar 15: out at bar 16's open
        // and short from there to the end of the range (bar 24's close).
        QVERIFY(r->trades.size() >= 1);
        const Trade& t = r->trades.front();
        QCOMPARE(t.direction, 1);
        QCOMPARE(t.signalBar, size_t(12));
        QCOMPARE(t.entryBar, size_t(13));
        QCOMPARE(t.exitBar, size_t(16));
        QCOMPARE(p.what(), QStringLiteral("epoch 1"));
    }

    void settingsChangeEvaluatesAgain() {
        TradingPresenter p;
        TradingSettings s;
        s.randomDraws = 5;
        p.setSettings(s);
        p.setSignals(risingBars(), 10, outputs(15, 2, 5), QStringLiteral("epoch 1"));
        const size_t before = p.report()->trades.size();
        QVERIFY(before >= 1);
        QSignalSpy changed(&p, &TradingPresenter::changed);
        s.threshold = 0.95;  // above every buy/sell output: no signal acts
        p.setSettings(s);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(p.report()->trades.size(), size_t(0));
        p.setSettings(s);  // unchanged: nothing to do
        QCOMPARE(changed.count(), 1);
    }

    void badInputGivesTheReasonAndNoReport() {
        TradingPresenter p;
        auto bars = std::make_shared<BarSeries>(*risingBars());
        bars->point = 0.0;  // no point size known and none given
        bars->digits = 0;
        p.setSignals(bars, 10, outputs(15, 2, 5), QStringLiteral("epoch 1"));
        QVERIFY(!p.report());
        QVERIFY(!p.error().isEmpty());
        // Signals past the series' end are refused the same way.
        p.setSignals(risingBars(), 25, outputs(15, 2, 5), QStringLiteral("epoch 2"));
        QVERIFY(!p.report());
        QVERIFY2(p.error().contains(QStringLiteral("bar")), qPrintable(p.error()));
        p.clear();
        QVERIFY(!p.report());
        QVERIFY(p.error().isEmpty());
    }

    void exportsWriteTheReportsCsv() {
        QTemporaryDir dir;
        TradingPresenter p;
        QString error;
        const QString trades = dir.filePath(QStringLiteral("t.csv"));
        QVERIFY(!p.exportTrades(trades, &error));  // nothing shown yet
        QVERIFY(!error.isEmpty());
        QVERIFY(!QFile::exists(trades));
        TradingSettings s;
        s.randomDraws = 5;
        p.setSettings(s);
        p.setSignals(risingBars(), 10, outputs(15, 2, 5), QStringLiteral("epoch 1"));
        QVERIFY(p.exportTrades(trades, &error));
        QCOMPARE(readFile(trades.toStdString()), tradesCsv(*p.report()));
        const QString equity = dir.filePath(QStringLiteral("e.csv"));
        QVERIFY(p.exportEquity(equity, &error));
        QCOMPARE(readFile(equity.toStdString()), equityCsv(*p.report()));
        QVERIFY(!p.exportTrades(dir.filePath(QStringLiteral("missing/dir/t.csv")), &error));
        QVERIFY(!error.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestTradingPresenter)
#include "tst_trading_presenter.moc"
