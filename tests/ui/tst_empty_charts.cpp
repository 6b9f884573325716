// GUI: the Comparison and Runs tabs' charts when there is nothing to plot (issue 13): each
// chart's plot fills the chart (it was drawn at its minimum size in the top-left corner, the
// rest blank) and a placeholder says what will appear there; the placeholder goes when a run
// has points.
#include <QtTest>

#include "common/TestWindow.h"
#include "ui/ComparisonChart.h"
#include "ui/ComparisonView.h"
#include "ui/MainWindow.h"
#include "ui/RunsView.h"

using namespace nnwb;

namespace {
QString describe(ComparisonChart* c) {
    const QRect r = c->axisRect()->outerRect();
    return QString("%1: chart %2x%3, plot %4x%5 at %6,%7")
        .arg(c->objectName())
        .arg(c->width())
        .arg(c->height())
        .arg(r.width())
        .arg(r.height())
        .arg(r.x())
        .arg(r.y());
}

// The plot uses the chart's room: its axis rect spans nearly the whole width.
bool fills(ComparisonChart* c) {
    return c->axisRect()->outerRect().width() >= c->width() - 20 && c->height() >= 150;
}
}  // namespace

class TestEmptyCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void emptyChartsAreReadable_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void emptyChartsAreReadable() {
        QFETCH(QSize, size);
        test::TestWindow x(size);
        MainWindow& w = x.w;
        QVERIFY(x.showLaidOut());

        w.showComparison();
        QTest::qWait(150);  // charts redraw on a short timer
        for (int i = 0; i < 3; ++i) {
            ComparisonChart* c = w.comparisonView()->chart(i);
            QVERIFY(c->isVisible());
            QCOMPARE(c->runCount(), 0);
            QVERIFY2(fills(c), qPrintable(describe(c)));
            QVERIFY2(c->placeholderShown(), qPrintable(describe(c)));
        }

        w.showRuns();
        QTest::qWait(150);
        for (int i = 0; i < 3; ++i) {
            ComparisonChart* c = w.runsView()->chart(i);
            QVERIFY(c->isVisible());
            QVERIFY2(fills(c), qPrintable(describe(c)));
            QVERIFY2(c->placeholderShown(), qPrintable(describe(c)));
        }
    }

    // The placeholder is for an empty chart only: a run with a point hides it, clearing the
    // runs shows it again.
    void placeholderGoesWithData() {
        ComparisonChart c(QStringLiteral("Loss"), QStringLiteral("loss"));
        c.resize(400, 300);
        c.setPlaceholder(QStringLiteral("Add runs to compare"));
        c.show();
        QVERIFY(QTest::qWaitForWindowExposed(&c));
        QVERIFY(c.placeholderShown());
        c.setRuns({QStringLiteral("a")}, {QColor(Qt::red)});
        QVERIFY(c.placeholderShown());  // a run without points yet
        c.addPoint(0, 1, 0.5, 0.6, true);
        QVERIFY(!c.placeholderShown());
        c.setRuns({}, {});
        QVERIFY(c.placeholderShown());
    }
};

QTEST_MAIN(TestEmptyCharts)
#include "tst_empty_charts.moc"
