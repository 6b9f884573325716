// GUI: the Trading tab beside Price Chart (issue 43 §1). After a real run (a cut of the bundled
// EURUSD file, a tiny network) it shows the verdict of the traded validation signals, the
// equity with buy and hold and the random band, the underwater chart down to the maximum
// drawdown, the monthly table and the trade list, which sorts by its numbers, and a click on a
// trade switches to the Price Chart tab centred on it; the wheel over a chart scrolls the page.
// After a real walk-forward it shows a row per fold with the fold's figures, fold lines on the
// curves, and the stitched confusion matrix beside each fold's.
#include <array>
#include <cmath>
#include <fstream>
#include <string>

#include <QApplication>
#include <QHeaderView>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TradingPresenter.h"
#include "app/core/WalkForwardPresenter.h"
#include "common/BarExperiments.h"
#include "common/DataCut.h"
#include "common/TestUtil.h"
#include "common/TestWindow.h"
#include "model/data/DataConfig.h"
#include "model/trading/FoldTrading.h"
#include "model/trading/MonthlyReturns.h"
#include "model/trading/TradingReport.h"
#include "model/trading/Verdict.h"
#include "ui/FoldConfusions.h"
#include "ui/FoldTradingTable.h"
#include "ui/MainWindow.h"
#include "ui/Plot.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"
#include "ui/TradeList.h"
#include "ui/TradingCurves.h"
#include "ui/TradingMonthTable.h"
#include "ui/TradingTab.h"

using namespace nnwb;

namespace {

Experiment experiment(const nlohmann::json& validation) {
    nlohmann::json e = test::barExperiment(
        "trading tab",
        {{"file", test::writeDataCut(test::tempDir() + "/trading-tab-900.csv", 900)},
         {"window", 5}},
        test::denseLayers(8, "softmax"), {{"epochs", 2}, {"batchSize", 16}, {"seed", 5}});
    e["validation"] = validation;
    return Experiment::fromJson(e);
}

}  // namespace

class TestTradingTab : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_trading_tab"));
    }

    void aRunsSignalsAreShownTradedAndATradeClickShowsIt() {
        test::TestWindow x(QSize(1280, 720));
        QVERIFY(x.train(experiment({{"mode", "holdout"}})));
        QVERIFY2(x.w.lastError().isEmpty(), qPrintable(x.w.lastError()));
        const auto report = x.w.tradingPresenter()->report();
        QVERIFY2(report, qPrintable(x.w.tradingPresenter()->error()));
        TradingTab* tab = x.w.tradingTab();
        auto* upper = x.w.findChild<QTabWidget*>(QStringLiteral("upperTabs"));
        QCOMPARE(upper->tabText(upper->indexOf(tab)), QStringLiteral("Trading"));
        QCOMPARE(upper->indexOf(tab), upper->indexOf(x.w.priceChartPane()) + 1);
        QCOMPARE(tab->verdict().replace(QChar(0xa0), QLatin1Char(' ')),
                 QString::fromStdString(tradingVerdict(verdictFigures(*report))));
        QVERIFY(tab->verdict().startsWith(QStringLiteral("Over the evaluated range")));
        QVERIFY(!tab->showsFolds());
        const int bars = int(report->equity.bar.size());
        QCOMPARE(tab->curves()->equityPoints(), bars);
        QCOMPARE(tab->curves()->buyAndHoldPoints(), bars);
        QCOMPARE(tab->curves()->underwaterPoints(), bars);
        QVERIFY(tab->curves()->bandPoints() > 1);
        QCOMPARE(tab->curves()->deepestUnderwater(), -report->strategy.maxDrawdownPoints);
        QVERIFY(tab->months()->rowCount() >= 1);
        TradeList* list = tab->trades();
        QCOMPARE(list->rowCount(), int(report->trades.size()));
        QVERIFY2(report->trades.size() >= 3, "the run should trade for this test");
        // Sorting by net points orders the rows by the number (not its text).
        list->sortItems(TradeList::NetPoints, Qt::AscendingOrder);
        for (int r = 1; r < list->rowCount(); ++r)
            QVERIFY(report->trades[size_t(list->tradeNumberAt(r - 1) - 1)].net <=
                    report->trades[size_t(list->tradeNumberAt(r) - 1)].net);
        list->sortItems(TradeList::Number, Qt::DescendingOrder);
        QCOMPARE(list->tradeNumberAt(0), list->rowCount());
        // A click on the middle trade: the Price Chart tab, centred on that trade (one near the
        // file's end could not be centred: the chart stops a few bars past the last bar).
        upper->setCurrentWidget(tab);
        x.w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&x.w));
        // The wheel over a chart scrolls the page (QCustomPlot kept it: the page did not move).
        QScrollBar* bar = tab->verticalScrollBar();
        QVERIFY(bar->maximum() > 0);
        bar->setValue(0);
        QWheelEvent wheel(QPointF(50, 50), tab->curves()->plot()->mapToGlobal(QPointF(50, 50)),
                          QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(tab->curves()->plot(), &wheel);
        QVERIFY(bar->value() > 0);
        const int row = list->rowCount() / 2;
        const Trade& t = report->trades[size_t(list->tradeNumberAt(row) - 1)];
        list->scrollToItem(list->item(row, 0));
        const QRect cell = list->visualItemRect(list->item(row, TradeList::Direction));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(upper->currentWidget(), static_cast<QWidget*>(x.w.priceChartPane()));
        const QCPRange shown = x.w.priceChartPane()->chart()->plot()->xAxis->range();
        QVERIFY2(shown.lower <= double(t.entryBar) && shown.upper >= double(t.exitBar),
                 qPrintable(QStringLiteral("%1..%2 for %3..%4")
                                .arg(shown.lower)
                                .arg(shown.upper)
                                .arg(t.entryBar)
                                .arg(t.exitBar)));
        QVERIFY2(std::abs(shown.center() - (t.entryBar + t.exitBar) / 2.0) < 1.0,
                 qPrintable(QString::number(shown.center())));
    }

    void aWalkForwardShowsEachFold() {
        test::TestWindow x(QSize(1280, 720));
        QVERIFY(
            x.train(experiment({{"mode", "walkforward"}, {"scheme", "anchored"}, {"folds", 3}})));
        QVERIFY2(x.w.lastError().isEmpty(), qPrintable(x.w.lastError()));
        const auto report = x.w.tradingPresenter()->report();
        QVERIFY2(report, qPrintable(x.w.tradingPresenter()->error()));
        TradingTab* tab = x.w.tradingTab();
        QVERIFY(tab->showsFolds());
        QVERIFY2(tab->verdict().startsWith(QStringLiteral("Out of sample (3 folds)")),
                 qPrintable(tab->verdict()));
        FoldTradingTable* folds = tab->folds();
        QCOMPARE(folds->rowCount(), 3);
        const WalkForwardOutcome* o = x.w.walkForwardPresenter()->outcome();
        QVERIFY(o);
        std::vector<FoldBars> windows;
        for (const FoldRecord& r : o->folds) windows.push_back({r.fold.testFirst, r.fold.testLast});
        const auto figures = foldTradingFigures(*report, windows);
        double trades = 0;
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(folds->item(r, 0)->text(), QStringLiteral("%1/3").arg(r + 1));
            QCOMPARE(folds->item(r, 2)->text(), QString::number(qint64(figures[size_t(r)].trades)));
            trades += figures[size_t(r)].trades;
        }
        QCOMPARE(trades, report->strategy.trades);    // the folds add up to the stitched series
        QCOMPARE(tab->curves()->foldLines(), 2 * 3);  // one per fold in each of the two charts
        QCOMPARE(tab->confusions()->matrices(), 1 + 3);
        // The stitched matrix counts every test sample: the folds' matrices summed.
        for (int a = 0; a < 3; ++a)
            for (int p = 0; p < 3; ++p) {
                qint64 sum = 0;
                for (int f = 1; f <= 3; ++f)
                    sum += tab->confusions()->table(f)->item(a, p)->text().toLongLong();
                QCOMPARE(tab->confusions()->table(0)->item(a, p)->text().toLongLong(), sum);
            }
    }

    // The equity axis groups its points as the tab's figures do ("-15,000"; it read "-15000"
    // under QCustomPlot's C locale).
    void theEquityAxisGroupsItsPoints() {
        TradingReport r;
        for (size_t i = 0; i < 50; ++i) {
            r.equity.bar.push_back(100 + i);
            r.equity.time.push_back(1500000000 + 3600 * int64_t(i));
            r.equity.points.push_back(-400.0 * double(i));
        }
        TradingCurves curves;
        curves.resize(800, 420);
        curves.show();
        QVERIFY(QTest::qWaitForWindowExposed(&curves));
        curves.setReport(&r);
        curves.plot()->replot();
        const QVector<double> ticks =
            curves.plot()->axisRect()->axis(QCPAxis::atLeft)->tickVector();
        const QVector<QString> labels =
            curves.plot()->axisRect()->axis(QCPAxis::atLeft)->tickVectorLabels();
        bool big = false;
        for (int i = 0; i < ticks.size(); ++i) {
            if (std::abs(ticks[i]) < 1000) continue;
            big = true;
            QVERIFY2(labels[i].contains(QLatin1Char(',')), qPrintable(labels[i]));
        }
        QVERIFY(big);
        // The short underwater axis leaves a line's height free between its labels (six in
        // 65 px before).
        QCPAxis* under = curves.plot()->axisRects().at(1)->axis(QCPAxis::atLeft);
        const QVector<double> u = under->tickVector();
        const QFontMetrics fm(under->tickLabelFont());
        for (int i = 1; i < u.size(); ++i)
            QVERIFY2(std::abs(under->coordToPixel(u[i]) - under->coordToPixel(u[i - 1])) >=
                         2 * fm.height(),
                     qPrintable(under->tickVectorLabels().join(" ")));
    }

    // At 1024x600 the stretched month columns cut the year's bold "-8,480" to "8,480" (a loss
    // read as a gain): no column is narrower than its figures; the table scrolls instead.
    void monthFiguresAreWhole() {
        MonthlyReturns m;
        m.years = {2017, 2018};
        std::array<double, 12> a{}, b{};
        for (int i = 0; i < 12; ++i) a[size_t(i)] = -3110.4 + 250 * i, b[size_t(i)] = -2828.0;
        m.months = {a, b};
        m.yearTotal = {-18480.0, -33936.0};
        TradingMonthTable table;
        table.resize(560, 120);
        table.show();
        QVERIFY(QTest::qWaitForWindowExposed(&table));
        table.setMonths(m);
        QApplication::processEvents();
        QVERIFY(table.figuresFit());
        QVERIFY(table.viewport()->height() >= 2 * table.verticalHeader()->defaultSectionSize());
    }
};

QTEST_MAIN(TestTradingTab)
#include "tst_trading_tab.moc"
