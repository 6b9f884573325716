// GUI: the trading evaluation under the price chart. After an epoch the equity curve has one
// point per validation bar and marks every trade's entry and exit, the table shows the
// strategy's trade count and the two baselines; the signal picker's epoch is the one traded;
// the trading rules edited in their dialog are one undoable step of the experiment and the
// figures follow them (and undo); the exports write the shown trades; without a run there is
// nothing to export and the caption says why. Trade counts are whole numbers, the random
// baseline's too (issue 41: it showed "1983.0").
#include <cmath>
#include <memory>
#include <vector>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TradingPresenter.h"
#include "model/FigureText.h"
#include "model/trading/TradingReport.h"
#include "model/trading/TradingSettings.h"
#include "ui/EquityChart.h"
#include "ui/MainWindow.h"
#include "ui/PriceChartPane.h"
#include "ui/SettingsFields.h"
#include "ui/TradingSettingsDialog.h"
#include "ui/TradingTable.h"
#include "ui/TradingView.h"

using namespace nnwb;

namespace {
// 200 hourly bars of a slow sine, 5-digit prices, a spread column of 12 points.
std::shared_ptr<const BarSeries> sineBars() {
    auto b = std::make_shared<BarSeries>();
    for (int i = 0; i < 200; ++i) {
        const double o = 1.1 + 0.002 * std::sin(i / 7.0);
        b->time.push_back(1500000000 + 3600 * i);
        b->open.push_back(o);
        b->high.push_back(o + 0.0004);
        b->low.push_back(o - 0.0004);
        b->close.push_back(o + 0.0001);
        b->volume.push_back(0);
        b->spread.push_back(12);
    }
    b->hasSpread = true;
    b->digits = 5;
    b->point = 0.00001;
    b->format = "mt5";
    b->source = "sine";
    b->timeframe = 3600;
    return b;
}

// Outputs for `n` bars: a buy every 9th bar, a sell every 9th bar 4 later; the rest none.
// `strength` is the buy/sell outputs' value.
std::shared_ptr<const std::vector<float>> outputs(size_t n, float strength) {
    auto v = std::make_shared<std::vector<float>>();
    for (size_t i = 0; i < n; ++i) {
        const bool buy = i % 9 == 0, sell = i % 9 == 4;
        v->insert(v->end(), {0.4f, buy ? strength : 0.1f, sell ? strength : 0.1f});
    }
    return v;
}

void showEpoch(PriceChartPane* pane, int epoch, float strength) {
    EpochReport r;
    r.epoch = epoch;
    r.validation.loss = 1.0 / epoch;
    r.validationOutputs = outputs(60, strength);
    pane->epochFinished(r);
}

void startRun(PriceChartPane* pane) {
    RunInfo info;
    info.bars = sineBars();
    info.trainFirstBar = 20;
    info.trainLastBar = 130;
    info.validationFirstBar = 140;
    info.validationLastBar = 199;
    pane->runStarted(info);
}
}  // namespace

class TestTradingView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void epochSignalsAreTraded() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        auto* view = w.findChild<TradingView*>();
        QVERIFY(view);
        QVERIFY2(view->caption().contains(QStringLiteral("once a run")),
                 qPrintable(view->caption()));
        QTemporaryDir dir;
        QVERIFY(!view->exportTradesTo(dir.filePath(QStringLiteral("none.csv"))));
        startRun(w.priceChartPane());
        showEpoch(w.priceChartPane(), 1, 0.9f);
        const auto report = w.tradingPresenter()->report();
        QVERIFY2(report, qPrintable(w.tradingPresenter()->error()));
        QCOMPARE(report->firstBar, size_t(140));
        QCOMPARE(report->lastBar, size_t(199));
        QCOMPARE(view->equityChart()->curvePoints(), size_t(60));
        QVERIFY(!report->trades.empty());
        QCOMPARE(view->equityChart()->entryMarks(), report->trades.size());
        QCOMPARE(view->equityChart()->exitMarks(), report->trades.size());
        QCOMPARE(view->table()->cell(0, 0),
                 QString::fromStdString(groupedCount(int64_t(report->trades.size()))));
        QCOMPARE(view->table()->cell(1, 0), QStringLiteral("1"));  // buy and hold: one trade
        QCOMPARE(report->spreadFrom, std::string("file"));
        QVERIFY2(view->caption().contains(QStringLiteral("epoch 1")), qPrintable(view->caption()));
        const QString path = dir.filePath(QStringLiteral("trades.csv"));
        QVERIFY(view->exportTradesTo(path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().count('\n'), qsizetype(report->trades.size() + 1));
    }

    void thePickedEpochIsTraded() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        startRun(w.priceChartPane());
        showEpoch(w.priceChartPane(), 1, 0.9f);
        showEpoch(w.priceChartPane(), 2, 0.3f);  // below `none` (0.4): no signal at all
        auto* picker = w.priceChartPane()->signalPicker();
        picker->setCurrentIndex(0);  // the latest epoch
        QCOMPARE(w.tradingPresenter()->report()->trades.size(), size_t(0));
        picker->setCurrentIndex(2);  // epoch 1
        QVERIFY(w.tradingPresenter()->report()->trades.size() > 0);
        QVERIFY(w.tradingPresenter()->what().contains(QStringLiteral("epoch 1")));
    }

    // Without a pick the Trading tab trades the run's best epoch, whose trading figures the run
    // stores (the Runs tab's, `report RUN`'s): it traded the latest epoch, so one run showed two
    // nets. Another epoch, picked, says that it is not the best and which one is.
    void theBestEpochIsTradedUnlessAnotherIsPicked() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        startRun(w.priceChartPane());
        for (int epoch : {1, 2}) {
            EpochReport r;
            r.epoch = epoch;
            r.bestEpoch = 1;
            r.validation.loss = epoch == 1 ? 0.5 : 0.6;
            r.validationOutputs = outputs(60, epoch == 1 ? 0.9f : 0.3f);  // epoch 2: no signal
            w.priceChartPane()->epochFinished(r);
        }
        auto* picker = w.priceChartPane()->signalPicker();
        QCOMPARE(picker->currentText(), QStringLiteral("the best epoch"));
        QVERIFY(w.tradingPresenter()->report()->trades.size() > 0);
        QCOMPARE(w.tradingPresenter()->what(),
                 QStringLiteral("epoch 1 (the run's best epoch), validation part"));
        QVERIFY2(w.priceChartPane()->chart()->signalLabel().startsWith("epoch 1 (the best"),
                 qPrintable(w.priceChartPane()->chart()->signalLabel()));
        picker->setCurrentIndex(0);  // the latest epoch
        QCOMPARE(w.tradingPresenter()->report()->trades.size(), size_t(0));
        QVERIFY2(w.tradingPresenter()->what().contains(
                     QStringLiteral("epoch 2 (not the run's best epoch, 1,")),
                 qPrintable(w.tradingPresenter()->what()));
        // A new run starts from the best epoch again.
        picker->setCurrentIndex(3);  // epoch 1 by its number
        startRun(w.priceChartPane());
        QCOMPARE(picker->currentText(), QStringLiteral("the best epoch"));
    }

    // The caption names every cost the figures were charged (the spread alone before, with a
    // commission and slippage charged too) and writes counts and points grouped.
    void theCaptionNamesTheCostsApplied() {
        TradingReport r;
        r.spreadFrom = "given";
        r.spreadPoints = 1;
        TradingSettings s;
        s.commission = 2.5;
        s.slippagePoints = 0;
        QCOMPARE(TradingView::costsText(r, s),
                 QStringLiteral("spread from the setting: 1 point, commission 2.5 points a round "
                                "trip, no slippage"));
        r.spreadFrom = "file";
        s.commission = 0;
        s.slippagePoints = 1000;
        QCOMPARE(TradingView::costsText(r, s),
                 QStringLiteral("spread from the file, no commission, slippage 1000 points a "
                                "fill"));
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        Experiment e = w.document()->experiment();
        e.trading.commission = 3;
        w.document()->reset(e);
        startRun(w.priceChartPane());
        showEpoch(w.priceChartPane(), 1, 0.9f);
        const auto report = w.tradingPresenter()->report();
        QVERIFY(report);
        QCOMPARE(w.tradingPresenter()->settings().commission, 3.0);
        auto* view = w.findChild<TradingView*>();
        QVERIFY2(view->caption().contains(QStringLiteral("commission 3 points a round trip")),
                 qPrintable(view->caption()));
        QVERIFY2(view->caption().contains(
                     QStringLiteral("net %1 points after costs")
                         .arg(QString::fromStdString(groupedFixed(report->strategy.netPoints, 1)))),
                 qPrintable(view->caption()));
        auto* tab = w.findChild<QLabel*>(QStringLiteral("tradingTabCaption"));
        QVERIFY(tab);
        QVERIFY2(tab->text().contains(QStringLiteral("spread from the file, commission 3 points")),
                 qPrintable(tab->text()));
    }

    void rulesAreAnUndoableEdit() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        startRun(w.priceChartPane());
        showEpoch(w.priceChartPane(), 1, 0.9f);
        const size_t trades = w.tradingPresenter()->report()->trades.size();
        QVERIFY(trades > 0);
        {
            TradingSettingsDialog dialog(w.document(), &w);
            auto* threshold = dialog.fields()->field("tradingThreshold");
            QVERIFY(threshold);
            if (auto* spin = qobject_cast<QDoubleSpinBox*>(threshold))
                spin->setValue(0.95);
            else
                qobject_cast<QLineEdit*>(threshold)->setText(QStringLiteral("0.95"));
            dialog.accept();
        }
        QCOMPARE(w.document()->experiment().trading.threshold, 0.95);
        QCOMPARE(w.tradingPresenter()->report()->trades.size(), size_t(0));
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->experiment().trading.threshold, 0.0);
        QCOMPARE(w.tradingPresenter()->report()->trades.size(), trades);
    }

    void tradeCountsAreWholeNumbers() {
        TradingReport r;
        r.strategy.trades = 1983;
        r.buyAndHold.trades = 1;
        r.random.trades = 1983;  // the mean over draws of the strategy's count
        TradingTable table;
        table.setReport(&r);
        QCOMPARE(table.cell(0, 0), QStringLiteral("1,983"));
        QCOMPARE(table.cell(1, 0), QStringLiteral("1"));
        QCOMPARE(table.cell(2, 0), QStringLiteral("1,983"));
    }
};

QTEST_MAIN(TestTradingView)
#include "tst_trading_view.moc"
