// GUI: the window fits a 1280×720 screen (issue 13, finding 7): its minimum size is within
// it, and at that size every visible dock lies inside the window and is wide enough for its
// pane (no horizontal scrolling, no 60 px sliver), however the window got there: laid out
// small, laid out wide then made smaller, or made narrower than 1280 and then wider again
// (what a window manager does when the user drags the edge; the docks were squeezed then).
// After training (issue 24, part 2): the first epoch's results (heatmap pickers, status bar
// figures, the run in the Runs tab) do not widen the window past the screen, the Data and
// Training panes, the Runs buttons and the progress bar stay inside it, and the Runs charts
// keep a usable height with whole legends. Every legend entry of the Metrics, Runs and
// Comparison charts shows its whole text ("tra" / "validat" at 1280 px), and the Comparison tab
// after a comparison keeps its charts, tables and buttons inside a 1280×720 window, whole; at
// 1280×680 (a 720 px screen less title bar and panel) each chart plots in at least 110 px.
#include <QAbstractButton>
#include <QDockWidget>
#include <QHeaderView>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QtTest>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"
#include "ui/ComparisonChart.h"
#include "ui/ComparisonRunsTable.h"
#include "ui/ComparisonSummaryTable.h"
#include "ui/ComparisonView.h"
#include "ui/DataPanel.h"
#include "ui/EquityChart.h"
#include "ui/MainWindow.h"
#include "ui/MetricCharts.h"
#include "ui/Plot.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"
#include "ui/RunsTableModel.h"
#include "ui/RunsView.h"
#include "ui/SeriesChart.h"
#include "ui/TradingTab.h"
#include "ui/TradingTable.h"
#include "ui/TradingView.h"

using namespace nnwb;

namespace {
// The width a dock needs to show its pane without a horizontal scroll bar: a scroll area's
// pane's minimum plus the room of a vertical scroll bar; any other pane's own minimum.
int usableWidth(QDockWidget* d) {
    if (auto* area = qobject_cast<QScrollArea*>(d->widget()))
        return area->widget()->minimumSizeHint().width() +
               area->verticalScrollBar()->sizeHint().width();
    return d->widget()->minimumSizeHint().width();
}

// `w`'s rectangle in `window`'s coordinates, as text for failure messages.
QRect rectIn(QWidget* w, QWidget* window) {
    return QRect(w->mapTo(window, QPoint(0, 0)), w->size());
}
QString describe(const QString& name, const QRect& r) {
    return QString("%1 at %2,%3 %4x%5")
        .arg(name)
        .arg(r.x())
        .arg(r.y())
        .arg(r.width())
        .arg(r.height());
}
// The first legend entry of `c` that is drawn narrower than its text needs or outside the chart
// (QCustomPlot clips an entry to its rectangle: "tra" for "train"), or a y-axis label longer
// than the axis (it ran into the legend); empty when all are whole.
QString cutLegendEntry(QCustomPlot* c) {
    c->replot();
    const int label = QFontMetrics(c->yAxis->labelFont()).horizontalAdvance(c->yAxis->label());
    if (label > c->axisRect()->height())
        return QString("%1: y label \"%2\" is %3 px along a %4 px axis")
            .arg(c->objectName(), c->yAxis->label())
            .arg(label)
            .arg(c->axisRect()->height());
    for (int i = 0; i < c->legend->itemCount(); ++i) {
        QCPAbstractLegendItem* item = c->legend->item(i);
        if (!item || !item->visible()) continue;
        const QRect r = item->outerRect();
        const int need = item->minimumOuterSizeHint().width();
        auto* p = qobject_cast<QCPPlottableLegendItem*>(item);
        const QString name = p ? p->plottable()->name() : QString::number(i);
        if (r.width() < need || !c->rect().contains(r))
            return describe(c->objectName() + " legend entry " + name, r) +
                   QString(" needs %1 px in a %2 px chart").arg(need).arg(c->width());
    }
    return {};
}

Experiment tinyNamed(const std::string& name) {
    Experiment e = Experiment::fromJson(test::tinyExperimentJson(1));
    e.name = name;
    return e;
}

// The runs and summary tables inside the window, their header and both runs' rows
// visible without scrolling.
void checkComparisonTables(ComparisonView* view, QWidget* w) {
    for (QWidget* t :
         {static_cast<QWidget*>(view->runsTable()), static_cast<QWidget*>(view->summaryTable())}) {
        const QRect r = rectIn(t, w);
        QVERIFY2(w->rect().contains(r), qPrintable(describe(t->objectName(), r)));
        auto* table = qobject_cast<QTableWidget*>(t);
        QVERIFY(table);
        const int rows =
            table->horizontalHeader()->height() + table->rowHeight(0) + table->rowHeight(1);
        QVERIFY2(table->viewport()->height() + table->horizontalHeader()->height() >= rows,
                 qPrintable(describe(t->objectName(), r) + QString(" shows %1 of %2 px of its rows")
                                                               .arg(table->viewport()->height())
                                                               .arg(rows)));
    }
}

}  // namespace

class TestSmallScreen : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Started on a 1280×720 screen without saved settings, the window opens within the screen
    // (it opened at 1600×960, its right column beyond the screen's edge).
    void opensWithinASmallScreen() {
        const QSize available(1280, 720);
        const QSize size = MainWindow::defaultSize(available);
        QVERIFY(size.width() <= 1280 && size.height() <= 720);
        QVERIFY(size.width() < 1600);  // so applyDefaultLayout picks the compact layout
        QCOMPARE(MainWindow::defaultSize(QSize(2560, 1440)), QSize(1600, 960));
    }
    // The Comparison and Runs tabs hide the docks; back on the Experiment tab they return,
    // also after going from one of those tabs to the other (the docks were lost then).
    void docksComeBackAfterComparisonAndRuns() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        w.resize(1600, 960);
        w.applyDefaultLayout();
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("centralTabs"));
        QVERIFY(tabs);
        const auto docks = w.findChildren<QDockWidget*>();
        QCOMPARE(docks.size(), 3);
        for (QDockWidget* d : docks) QVERIFY(d->isVisible());
        for (int path : {0, 1}) {  // Comparison → Runs → Experiment, Runs → Comparison → …
            tabs->setCurrentIndex(path == 0 ? 1 : 2);
            tabs->setCurrentIndex(path == 0 ? 2 : 1);
            for (QDockWidget* d : docks) QVERIFY(!d->isVisible());
            tabs->setCurrentIndex(0);
            for (QDockWidget* d : docks)
                QVERIFY2(d->isVisible(), qPrintable(d->objectName() + " did not come back"));
        }
        // A dock the user closed stays closed.
        docks[0]->hide();
        tabs->setCurrentIndex(1);
        tabs->setCurrentIndex(2);
        tabs->setCurrentIndex(0);
        QVERIFY(!docks[0]->isVisible());
        QVERIFY(docks[1]->isVisible() && docks[2]->isVisible());
    }

    void fits1280x720_data() {
        QTest::addColumn<int>("laidOutAt");     // the width the default layout was made for
        QTest::addColumn<int>("narrowest");     // made this narrow before 1280×720 (0: not)
        QTest::addColumn<bool>("walkForward");  // validation switched to walk-forward
        QTest::newRow("compact layout") << 1280 << 0 << false;
        QTest::newRow("wide layout, then made smaller") << 1600 << 0 << false;
        QTest::newRow("wide layout, made narrow, then 1280") << 1600 << 1000 << false;
        QTest::newRow("compact layout, made narrow, then 1280") << 1280 << 900 << false;
        // The Walk-forward box's fields enabled, the Training pane raised (its length fields
        // said "0 unit (bars, days or weeks)" and made the window wider than the screen).
        QTest::newRow("walk-forward, Training pane") << 1280 << 0 << true;
    }
    void fits1280x720() {
        QFETCH(int, laidOutAt);
        QFETCH(int, narrowest);
        QFETCH(bool, walkForward);
        MainWindow w;
        w.setConfirmDiscard(false);
        // As the window opens by default: the bundled experiment on the EURUSD bars.
        QVERIFY(w.openExperiment(QStringLiteral(NNWB_RESOURCES_DIR) + "/experiments/default.json"));
        if (walkForward) {
            nlohmann::json v = w.document()->experiment().validation.toJson();
            v["mode"] = "walkforward";
            QVERIFY(w.document()->setValidation(v));
        }
        w.resize(laidOutAt, 960);  // as ui/main.cpp does: size, layout, then show
        w.applyDefaultLayout();
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QTest::qWait(50);
        if (narrowest > 0) {
            // The window's minimum size stops it where a window manager would.
            w.resize(narrowest, 600);
            QTest::qWait(50);
        }
        if (walkForward) w.findChild<QDockWidget*>(QStringLiteral("trainingDock"))->raise();
        w.resize(1280, 720);
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(50);
        const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
        QString parts;  // what makes the minimum, for the failure message
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            parts += QString(" %1 %2").arg(d->objectName()).arg(d->minimumSizeHint().width());
        parts += QString(" central %1").arg(w.centralWidget()->minimumSizeHint().width());
        QVERIFY2(
            min.width() <= 1280 && min.height() <= 720,
            qPrintable(QString("minimum %1x%2:%3").arg(min.width()).arg(min.height()).arg(parts)));
        QCOMPARE(w.size(), QSize(1280, 720));
        int shown = 0;
        for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
            if (!d->isVisible() || d->visibleRegion().isEmpty()) continue;  // a hidden tab
            ++shown;
            const QRect r(d->mapTo(&w, QPoint(0, 0)), d->size());
            const QString where = QString("%1 at %2,%3 %4x%5 (its pane needs %6 px)")
                                      .arg(d->objectName())
                                      .arg(r.x())
                                      .arg(r.y())
                                      .arg(r.width())
                                      .arg(r.height())
                                      .arg(usableWidth(d));
            QVERIFY2(w.rect().contains(r), qPrintable(where));
            // Wide enough for its pane: labels and fields whole, no horizontal scroll bar
            // (it was 60 px wide after the window was made narrow and wide again).
            QVERIFY2(d->width() >= usableWidth(d), qPrintable(where + " is too narrow"));
            // Tall enough to show more than a couple of rows (it scrolls for the rest).
            QVERIFY2(d->height() >= 250, qPrintable(where + " is too short"));
        }
        QVERIFY(shown >= 2);  // the Model dock and the Data/Training column
        // The central area keeps some room too (it gives way first, but not to nothing).
        QVERIFY2(w.centralWidget()->width() >= 400,
                 qPrintable(QString("central %1 px").arg(w.centralWidget()->width())));
    }

    // As `nnwb --experiment resources/experiments/default.json --size 1280x720
    // --train-epochs 1` does: after one epoch the window is still 1280 px wide at most (it was
    // 1480-1535 px and could not be made narrower), its minimum fits the screen, the Data and
    // Training panes, the progress bar and the Runs tab's buttons lie inside it, and the
    // Runs charts are tall enough to read with legends not cut to "tr" / "valida".
    void fitsAfterTraining() {
        const QSize screen(1280, 720);
        MainWindow w;
        w.setConfirmDiscard(false);
        QVERIFY(w.openExperiment(QStringLiteral(NNWB_RESOURCES_DIR) + "/experiments/default.json"));
        w.resize(screen);  // as ui/main.cpp does for --size: size, layout, then show
        w.applyDefaultLayout();
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QVERIFY(w.width() <= screen.width());
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining(1));
        QVERIFY(finished.wait(600000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);
        QTest::qWait(600);  // the attention snapshot and the coalesced replots arrive

        auto checkFits = [&](const char* when) {
            const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
            QString parts;  // what makes the minimum, for the failure message
            for (QDockWidget* d : w.findChildren<QDockWidget*>())
                if (d->isVisible())
                    parts +=
                        QString(" %1 %2").arg(d->objectName()).arg(d->minimumSizeHint().width());
            parts += QString(" central %1 statusbar %2")
                         .arg(w.centralWidget()->minimumSizeHint().width())
                         .arg(w.statusBar()->minimumSizeHint().width());
            QVERIFY2(w.width() <= screen.width() && min.width() <= screen.width(),
                     qPrintable(QString("%1: window %2 px wide, minimum %3 px:%4")
                                    .arg(when)
                                    .arg(w.width())
                                    .arg(min.width())
                                    .arg(parts)));
            QVERIFY2(w.height() <= screen.height() && min.height() <= screen.height(),
                     qPrintable(QString("%1: window %2 px high, minimum %3 px")
                                    .arg(when)
                                    .arg(w.height())
                                    .arg(min.height())));
        };
        checkFits("after one epoch");
        // The Metrics charts' legends: whole names at this width.
        for (SeriesChart* c : w.charts()->findChildren<SeriesChart*>()) {
            const QString cut = cutLegendEntry(c);
            QVERIFY2(cut.isEmpty(), qPrintable(cut));
        }
        // The window manager (or --size) asks for the screen's size again: it gets it.
        w.resize(screen);
        QTest::qWait(50);
        QCOMPARE(w.size(), screen);
        checkFits("resized to the screen");

        const QRect inside = w.rect();
        auto* progress = w.findChild<QProgressBar*>(QStringLiteral("epochProgress"));
        QVERIFY(progress && progress->isVisible());
        QVERIFY2(inside.contains(rectIn(progress, &w)),
                 qPrintable(describe("progress bar", rectIn(progress, &w))));
        // The Data and Training panes (tabbed in the compact layout: each in turn).
        for (const char* name : {"dataDock", "trainingDock"}) {
            auto* d = w.findChild<QDockWidget*>(QLatin1String(name));
            QVERIFY(d);
            d->raise();
            QTest::qWait(20);
            QVERIFY(d->isVisible());
            const QRect r = rectIn(d, &w);
            QVERIFY2(inside.contains(r), qPrintable(describe(name, r)));
            QVERIFY2(d->width() >= usableWidth(d),
                     qPrintable(describe(name, r) + QString(" needs %1 px").arg(usableWidth(d))));
        }

        // The Runs tab, with the run just made selected.
        w.showRuns();
        QTest::qWait(50);
        RunsView* runs = w.runsView();
        QTRY_VERIFY(runs->shownCount() >= 1);
        runs->selectIds({runs->model()->index(0, 0).data(Qt::UserRole).toLongLong()});
        QTest::qWait(200);
        checkFits("on the Runs tab");
        for (QPushButton* b : runs->findChildren<QPushButton*>()) {
            if (!b->isVisible()) continue;
            const QRect r = rectIn(b, &w);
            QVERIFY2(inside.contains(r), qPrintable(describe(b->text(), r)));
            QVERIFY2(b->width() >= b->minimumSizeHint().width(),
                     qPrintable(describe(b->text(), r) + " is cut"));
        }
        for (int i = 0; i < 3; ++i) {
            ComparisonChart* c = runs->chart(i);
            const QRect r = rectIn(c, &w);
            QVERIFY2(inside.contains(r), qPrintable(describe(c->objectName(), r)));
            QVERIFY2(c->height() >= 180, qPrintable(describe(c->objectName(), r) + " too short"));
            const QString cut = cutLegendEntry(c);
            QVERIFY2(cut.isEmpty(), qPrintable(cut));
        }
    }

    // The Comparison tab after a comparison of two runs at 1280×720: the window stays within
    // the screen; the charts, the runs and summary tables and the toolbar lie inside it, the
    // charts tall enough to read, every legend entry whole, every button and check box whole.
    // --size 1024x600 on a 1024×600 screen under a window manager: the title bar pushed the
    // status bar under the screen's edge. The size is cut to the screen less a frame, and the
    // window's layout fits that size.
    void explicitSizeLeavesRoomForTheFrame() {
        const QSize size = MainWindow::fitToScreen(QSize(1024, 600), QSize(1024, 600));
        QCOMPARE(size, QSize(1008, 552));
        QCOMPARE(MainWindow::fitToScreen(QSize(1024, 600), QSize(1920, 1050)), QSize(1024, 600));
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        w.resize(size);
        w.applyDefaultLayout();
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(100);
        const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(min.width() <= size.width() && min.height() <= size.height(),
                 qPrintable(QString("minimum %1x%2").arg(min.width()).arg(min.height())));
        QCOMPARE(w.size(), size);
    }

    // The trading figures at 1280×720 (issue 30, issue 43): the candles of the Price Chart tab
    // plot in 150 px or more and the figures table in the Trading tab shows its three rows
    // (under the candles the trading pane got 22-28 px).
    void tradingPaneHasRoomAt1280x720() {
        MainWindow w;
        w.setConfirmDiscard(false);
        QVERIFY(w.openExperiment(QStringLiteral(NNWB_RESOURCES_DIR) + "/experiments/default.json"));
        w.resize(1280, 720);
        w.applyDefaultLayout();
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        w.showPriceChart();
        QTest::qWait(100);  // the splitters settle (a queued resize)
        // The figures (caption, rules, exports, the table) are in the Trading tab, under its
        // verdict; nothing of them under the candles (22-28 px there).
        auto* view = w.findChild<TradingView*>();
        QVERIFY(view);
        QVERIFY(!w.priceChartPane()->isAncestorOf(view));
        QVERIFY(w.tradingTab()->isAncestorOf(view));
        const int candles = w.priceChartPane()->chart()->plot()->axisRect()->rect().height();
        QVERIFY2(candles >= 150, qPrintable(QString("candles plot in %1 px").arg(candles)));
        auto* upper = w.findChild<QTabWidget*>(QStringLiteral("upperTabs"));
        upper->setCurrentWidget(w.tradingTab());
        QTest::qWait(100);
        TradingTable* table = view->table();
        const int rows =
            table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
        QVERIFY2(rows >= 3,
                 qPrintable(QString("the figures table has room for %1 rows").arg(rows)));
        QVERIFY(w.width() <= 1280 && w.height() <= 720);
    }

    void comparisonFitsAfterAComparison() {
        const QSize screen(1280, 720);
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        w.resize(screen);
        w.applyDefaultLayout();
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.showComparison();
        ComparisonView* view = w.comparisonView();
        ComparisonController* cmp = w.comparison();
        QCOMPARE(cmp->addRun(tinyNamed("mql5-fractal-5x8 (lr 0.001)"), {}), 0);
        QCOMPARE(cmp->addRun(tinyNamed("attention-single-head, batch 64"), {}), 1);
        QSignalSpy done(cmp, &ComparisonController::allFinished);
        QVERIFY(view->trainAll(2));
        QVERIFY(done.count() > 0 || done.wait(120000));
        QTest::qWait(300);  // coalesced replots
        QVERIFY2(w.width() <= screen.width() && w.height() <= screen.height(),
                 qPrintable(QString("window %1x%2").arg(w.width()).arg(w.height())));
        const QRect inside = w.rect();
        for (int i = 0; i < 3; ++i) {
            ComparisonChart* c = view->chart(i);
            const QRect r = rectIn(c, &w);
            QVERIFY2(inside.contains(r), qPrintable(describe(c->objectName(), r)));
            QVERIFY2(c->height() >= 150, qPrintable(describe(c->objectName(), r) + " too short"));
            const QString cut = cutLegendEntry(c);
            QVERIFY2(cut.isEmpty(), qPrintable(cut));
        }
        checkComparisonTables(view, &w);
        if (QTest::currentTestFailed()) return;
        for (QAbstractButton* b : view->findChildren<QAbstractButton*>()) {
            if (!b->isVisible() || b->text().isEmpty()) continue;
            const QRect r = rectIn(b, &w);
            QVERIFY2(inside.contains(r), qPrintable(describe(b->text(), r)));
            QVERIFY2(b->width() >= b->minimumSizeHint().width(),
                     qPrintable(describe(b->text(), r) + " is cut"));
        }
        // A 720 px screen less a window manager's title bar and panel: each chart's plotting
        // area (not the widget: its title, legend and axes take ~90 px) stays readable.
        w.resize(1280, 680);
        QTest::qWait(300);
        for (int i = 0; i < 3; ++i) {
            ComparisonChart* c = view->chart(i);
            const QRect plot = c->axisRect()->rect();
            QVERIFY2(plot.height() >= 110,
                     qPrintable(QString("%1: plot %2 px tall in a %3 px chart, window %4 px")
                                    .arg(c->objectName())
                                    .arg(plot.height())
                                    .arg(c->height())
                                    .arg(w.height())));
        }
        checkComparisonTables(view, &w);
        if (QTest::currentTestFailed()) return;
    }
};

QTEST_MAIN(TestSmallScreen)
#include "tst_small_screen.moc"
