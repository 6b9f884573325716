// GUI: the price chart. Merged candles hold the OHLC of their bars and are chosen so that a
// zoomed-out chart of 100,000 bars draws at most one candle per 3 pixels while a zoomed-in one
// draws every bar; signals count hits and false signals against the true fractals; the
// tooltip names the bar's date, OHLC, true label and outputs; a click on a validation bar
// reaches the attention view as that sample, whose info line names the bar's date. The legend
// lies outside the candles' area; panning and zooming stop a few bars past the data's ends.
#include <cmath>

#include <QComboBox>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QSpinBox>
#include <QWheelEvent>
#include <QtTest>

#include "app/core/MetaTypes.h"
#include "model/data/DateTime.h"
#include "ui/AttentionView.h"
#include "ui/CandleLevels.h"
#include "ui/Plot.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"

using namespace nnwb;

namespace {

std::shared_ptr<const BarSeries> waveBars(size_t n) {
    auto b = std::make_shared<BarSeries>();
    double p = 1.1;
    uint32_t seed = 7;
    for (size_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        const double step = (double(seed >> 8) / double(1u << 24) - 0.5) * 0.002;
        const double open = p;
        p += step + 0.0005 * std::sin(double(i) * 0.3);
        b->time.push_back(fromCalendar(2020, 1, 1) + int64_t(i) * 3600);
        b->open.push_back(open);
        b->close.push_back(p);
        b->high.push_back(std::max(open, p) + 0.0003);
        b->low.push_back(std::min(open, p) - 0.0003);
        b->volume.push_back(1);
    }
    b->timeframe = 3600;
    b->source = "wave.csv";
    return b;
}

}  // namespace

class TestPriceChart : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { registerMetaTypes(); }

    void mergedCandlesHoldTheirBars() {
        const auto b = waveBars(1000);
        CandleLevels levels;
        levels.build(*b);
        QVERIFY(levels.count() >= 4);
        const CandleLevel& l2 = levels.level(2);  // 4 bars per candle
        QCOMPARE(l2.span, size_t(4));
        for (size_t j : {size_t(0), size_t(17), l2.size() - 1}) {
            const size_t first = 4 * j, last = std::min(first + 3, b->size() - 1);
            QCOMPARE(l2.open[j], b->open[first]);
            QCOMPARE(l2.close[j], b->close[last]);
            QCOMPARE(l2.high[j], *std::max_element(b->high.begin() + long(first),
                                                   b->high.begin() + long(last) + 1));
            QCOMPARE(l2.low[j], *std::min_element(b->low.begin() + long(first),
                                                  b->low.begin() + long(last) + 1));
            QCOMPARE(l2.key[j], 0.5 * double(first + last));
        }
        QCOMPARE(levels.levelFor(200, 300), size_t(0));
        QCOMPARE(levels.levelFor(1000, 300), size_t(2));  // 1000 / 4 = 250 <= 300
    }

    void hundredThousandBarsDrawFewCandlesWhenZoomedOut() {
        PriceChart chart;
        chart.resize(1200, 600);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setBars(waveBars(100000));
        chart.replotNow();
        const int width = chart.plot()->axisRect()->width();
        QVERIFY(chart.drawnLevel() > 0);
        const auto* candles = qobject_cast<QCPFinancial*>(chart.plot()->plottable(0));
        QVERIFY(candles);
        QVERIFY2(
            candles->data()->size() <= width / 3 * 2 + 2,
            qPrintable(QString("%1 candles for %2 px").arg(candles->data()->size()).arg(width)));
        chart.showRange(5000, 5150);
        chart.replotNow();
        QCOMPARE(chart.drawnLevel(), size_t(0));
        QCOMPARE(chart.barsPerCandle(), size_t(1));
        // The value axis follows the visible bars.
        const double lo =
            *std::min_element(chart.bars()->low.begin() + 5000, chart.bars()->low.begin() + 5151);
        QVERIFY(chart.plot()->yAxis->range().lower <= lo);
        QVERIFY(chart.plot()->yAxis->range().lower > lo - 0.05);
        QVERIFY(chart.lastReplotMs() >= 0);
    }

    // The legend covered the newest candles (inset at the plot's top); now it has a row of its
    // own above the axis rect, every entry whole.
    void legendDoesNotCoverTheCandles() {
        PriceChart chart;
        chart.resize(900, 420);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setBars(waveBars(400));
        chart.replotNow();
        QCustomPlot* plot = chart.plot();
        const QRect candles = plot->axisRect()->rect();
        QCPLegend* legend = plot->legend;
        QVERIFY(legend->visible());
        QCOMPARE(legend->itemCount(), 6);
        for (int i = 0; i < legend->itemCount(); ++i) {
            const QRect item = legend->item(i)->outerRect();
            QVERIFY2(!item.intersects(candles),
                     qPrintable(QString("legend entry %1 at %2,%3 %4x%5 over the candles at "
                                        "%6,%7 %8x%9")
                                    .arg(i)
                                    .arg(item.x())
                                    .arg(item.y())
                                    .arg(item.width())
                                    .arg(item.height())
                                    .arg(candles.x())
                                    .arg(candles.y())
                                    .arg(candles.width())
                                    .arg(candles.height())));
            QVERIFY(plot->viewport().contains(item));
            QVERIFY(item.width() >= legend->item(i)->minimumOuterSizeHint().width());
        }
    }

    // Panning or zooming stops within rangeMargin() bars of the first and the last bar (it
    // went on to 5 % of the file past the last bar, and 2 % before the first).
    void rangeStaysOnTheBars() {
        PriceChart chart;
        chart.resize(900, 420);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setBars(waveBars(1000));
        auto within = [&](const char* what) {
            const QCPRange r = chart.plot()->xAxis->range();
            const double m = PriceChart::rangeMargin(r.size());
            return r.lower >= -0.5 - m - 1e-9 && r.upper <= 999.5 + m + 1e-9
                       ? QString()
                       : QString("%1: %2 .. %3 (margin %4)")
                             .arg(what)
                             .arg(r.lower)
                             .arg(r.upper)
                             .arg(m);
        };
        QString bad = within("all bars");
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
        QVERIFY(chart.plot()->xAxis->range().upper > 999.5);  // room to see the last candle
        chart.showRange(900, 1100);  // past the last bar: back onto it, width kept
        bad = within("past the end");
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
        QCOMPARE(chart.plot()->xAxis->range().size(), 200.0);
        chart.showRange(-300, -100);
        bad = within("before the start");
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
        chart.showRange(-1e6, 1e6);
        bad = within("zoomed far out");
        QVERIFY2(bad.isEmpty(), qPrintable(bad));

        // By hand: drag the newest bars far to the left, then zoom out with the wheel.
        chart.showRange(800, 950);
        chart.replotNow();
        QWidget* plot = chart.plot();
        const QPoint from = chart.plot()->axisRect()->center();
        const QPoint to = from - QPoint(chart.plot()->axisRect()->width() * 3, 0);
        QTest::mousePress(plot, Qt::LeftButton, Qt::NoModifier, from);
        QMouseEvent move(QEvent::MouseMove, to, plot->mapToGlobal(to), Qt::NoButton, Qt::LeftButton,
                         Qt::NoModifier);
        QCoreApplication::sendEvent(plot, &move);
        QTest::mouseRelease(plot, Qt::LeftButton, Qt::NoModifier, to);
        bad = within("dragged");
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
        QVERIFY(chart.plot()->xAxis->range().upper > 990);  // it did move to the end
        for (int i = 0; i < 20; ++i) {
            QWheelEvent wheel(QPointF(from), QPointF(plot->mapToGlobal(from)), QPoint(),
                              QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                              false);
            QCoreApplication::sendEvent(plot, &wheel);
        }
        bad = within("zoomed out with the wheel");
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
    }

    void signalsTooltipAndClicks() {
        const auto bars = waveBars(400);
        PriceChartPane pane;
        pane.resize(1000, 500);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        RunInfo info;
        info.bars = bars;
        info.trainFirstBar = 40;
        info.trainLastBar = 300;
        info.validationFirstBar = 310;
        info.validationLastBar = 398;
        pane.runStarted(info);
        const std::vector<uint8_t> flags =
            fractalFlags(bars->high, bars->low, FractalRule::ThreeBar);
        // A model that says buy on every third validation bar and nothing elsewhere.
        auto outs = std::make_shared<std::vector<float>>();
        size_t hits = 0, falses = 0;
        for (size_t bar = 310; bar <= 398; ++bar) {
            const bool buy = (bar % 3) == 0;
            outs->insert(outs->end(), {buy ? 0.2f : 0.9f, buy ? 0.7f : 0.05f, 0.1f});
            if (buy) ++((flags[bar] & kFractalBuy) ? hits : falses);
        }
        EpochReport r;
        r.epoch = 1;
        r.validation.loss = 0.2;
        r.validationOutputs = outs;
        pane.epochFinished(r);
        PriceChart* chart = pane.chart();
        QCOMPARE(chart->hitCount(), hits);
        QCOMPARE(chart->falseSignalCount(), falses);
        QCOMPARE(pane.signalPicker()->count(), 3);  // latest, best, epoch 1

        const QString tip = chart->tooltipText(312);
        QVERIFY2(tip.contains(QString::fromStdString(formatBarTime(bars->time[312]))),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QString::number(bars->close[312], 'f', 5)), qPrintable(tip));
        QVERIFY2(tip.contains("true label: "), qPrintable(tip));
        QVERIFY2(tip.contains("buy 0.7000") && tip.contains("signal: buy"), qPrintable(tip));
        QVERIFY2(tip.contains("validation sample 2"), qPrintable(tip));
        QVERIFY(chart->tooltipText(399).contains("not known yet"));

        // A click on validation bar 350 asks the attention view for sample 40.
        AttentionView attention;
        QSignalSpy asked(&attention, &AttentionView::sampleRequested);
        connect(&pane, &PriceChartPane::validationSampleClicked, &attention,
                &AttentionView::showSample);
        chart->showRange(300, 400);
        chart->replotNow();
        const int x = int(std::lround(chart->plot()->xAxis->coordToPixel(350)));
        const int y = chart->plot()->axisRect()->center().y();
        QCOMPARE(chart->barAt(x), 350LL);
        QTest::mouseClick(chart->plot(), Qt::LeftButton, Qt::NoModifier, QPoint(x, y));
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.takeFirst().at(0).toInt(), 40);
        // A training bar is not a validation sample.
        QTest::mouseClick(chart->plot(), Qt::LeftButton, Qt::NoModifier,
                          QPoint(int(chart->plot()->xAxis->coordToPixel(305)), y));
        QCOMPARE(asked.count(), 0);

        // The attention view names the bar of the sample it shows.
        auto snap = std::make_shared<AttentionSnapshot>();
        AttentionScores s;
        s.name = "layers.1";
        s.heads = 1;
        s.units = 2;
        s.values = {0.5f, 0.5f, 0.5f, 0.5f};
        snap->layers = {s};
        snap->epoch = 1;
        snap->sample = 40;
        snap->validationSamples = 89;
        snap->sampleTime = bars->time[350];
        attention.setSnapshot(snap);
        const auto labels = attention.findChildren<QLabel*>();
        bool named = false;
        for (QLabel* l : labels)
            named =
                named || l->text().contains(QString::fromStdString(formatBarTime(bars->time[350])));
        QVERIFY(named);
    }

    // A short pane (1280x720) drops the range overview; the header's hint no longer sends the
    // user to click it ("click the overview to jump" with no overview on show).
    void theHintNamesTheOverviewOnlyWhenShown() {
        PriceChartPane pane;
        pane.resize(900, 600);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.setFileBars(waveBars(400));
        QTRY_VERIFY(pane.chart()->overview()->isVisible());
        QVERIFY2(pane.chart()->headerText().contains(QStringLiteral("click the overview")),
                 qPrintable(pane.chart()->headerText()));
        pane.resize(900, 330);
        QTRY_VERIFY(!pane.chart()->overview()->isVisible());
        QVERIFY2(!pane.chart()->headerText().contains(QStringLiteral("overview")),
                 qPrintable(pane.chart()->headerText()));
        QVERIFY(pane.chart()->headerText().contains(QStringLiteral("wheel: zoom, drag: pan")));
    }
};

QTEST_MAIN(TestPriceChart)
#include "tst_price_chart.moc"
