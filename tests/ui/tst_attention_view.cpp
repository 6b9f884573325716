// GUI: the attention heatmap shows a units×units Score matrix per head (rows summing to 1,
// no interpolation, offsets as ticks), the grid shows every head, and the view's layer / head /
// sample pickers follow a snapshot; colours per row on request; axes say "bar" only when the
// elements are the window's bars; tick labels thinned to the room, also as the width changes
// (no two drawn labels overlap); the picked sample's true and predicted class. Uses hand-made
// AttentionScores (any layer type).
#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStackedWidget>
#include <QtTest>

#include "app/core/MetaTypes.h"
#include "ui/AttentionGrid.h"
#include "ui/AttentionHeatmap.h"
#include "ui/AttentionPickers.h"
#include "ui/AttentionView.h"

using namespace nnwb;

namespace {

// Row-softmax scores with a recognisable pattern.
AttentionScores makeScores(const std::string& name, int heads, int units) {
    AttentionScores s;
    s.name = name;
    s.heads = heads;
    s.units = units;
    s.values.resize(static_cast<size_t>(heads) * units * units);
    for (int h = 0; h < heads; ++h)
        for (int q = 0; q < units; ++q) {
            double sum = 0;
            float* row = s.values.data() + (static_cast<size_t>(h) * units + q) * units;
            for (int k = 0; k < units; ++k) sum += row[k] = std::exp(0.3f * (h + 1) * (q - k));
            for (int k = 0; k < units; ++k) row[k] = static_cast<float>(row[k] / sum);
        }
    return s;
}

// No two tick labels `axis` drew last overlap: neighbours are at least half of each one's width
// apart (labels are centred on their ticks), with 2 px between them.
bool labelsApart(QCPAxis* axis) {
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const QFontMetrics fm(axis->tickLabelFont());
    for (int i = 1; i < ticks.size(); ++i) {
        const double gap = axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[i - 1]);
        const double need =
            (fm.horizontalAdvance(labels[i - 1]) + fm.horizontalAdvance(labels[i])) / 2.0;
        if (gap < need + 2) {
            qWarning("labels %s and %s %.0f px apart, %.0f px wide on average",
                     qPrintable(labels[i - 1]), qPrintable(labels[i]), gap, need);
            return false;
        }
    }
    return !ticks.isEmpty();
}

}  // namespace

class TestAttentionView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void heatmapHoldsOneHead() {
        AttentionHeatmap map;
        const auto s = makeScores("layers.1", 3, 7);
        map.setScores(s, 2, QStringLiteral("head 3"));
        QCPColorMap* cm = map.colorMap();
        QVERIFY(!cm->interpolate());
        QCOMPARE(cm->data()->keySize(), 7);
        QCOMPARE(cm->data()->valueSize(), 7);
        for (int q = 0; q < 7; ++q) {
            double sum = 0;
            for (int k = 0; k < 7; ++k) {
                sum += map.cellValue(q, k);
                QCOMPARE(float(map.cellValue(q, k)), s.values[(2 * 7 + q) * 7 + k]);
            }
            QVERIFY2(std::abs(sum - 1.0) < 1e-5, qPrintable(QString::number(sum)));
        }
        // ticks are bar offsets ending at the newest bar t
        auto ticker = map.xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().value(6), QStringLiteral("t"));
        QCOMPARE(ticker->ticks().value(0), QStringLiteral("t-6"));
        map.clearScores();
        QCOMPARE(map.units(), 0);
    }

    void gridShowsEveryHead() {
        AttentionGrid grid;
        const auto s = makeScores("layers.0", 4, 5);
        grid.setScores(s);
        QCOMPARE(grid.heads(), 4);
        for (int h = 0; h < 4; ++h) {
            QCOMPARE(grid.map(h)->data()->keySize(), 5);
            QVERIFY(!grid.map(h)->interpolate());
            for (int q = 0; q < 5; ++q) {
                double sum = 0;
                for (int k = 0; k < 5; ++k) sum += grid.map(h)->data()->cell(k, q);
                QVERIFY(std::abs(sum - 1.0) < 1e-5);
            }
        }
        grid.setScores(makeScores("x", 1, 3));
        QCOMPARE(grid.heads(), 1);
    }

    void viewFollowsSnapshots() {
        registerMetaTypes();
        AttentionView view;
        view.show();
        auto snap = std::make_shared<AttentionSnapshot>();
        snap->epoch = 4;
        snap->sample = 2;
        snap->validationSamples = 50;
        snap->layers = {makeScores("layers.1", 1, 6), makeScores("layers.2.block.0", 3, 6)};
        view.setSnapshot(snap);
        QCOMPARE(view.layerBox()->count(), 2);
        QCOMPARE(view.layerBox()->itemText(1), QStringLiteral("layer 3 · block 1"));  // 1-based
        QCOMPARE(view.headBox()->count(), 1);  // one head: no "all heads" entry
        QCOMPARE(view.sampleBox()->maximum(), 49);
        QCOMPARE(view.sampleBox()->value(), 2);
        QCOMPARE(view.heatmap()->units(), 6);

        view.layerBox()->setCurrentIndex(1);
        QCOMPARE(view.headBox()->count(), 4);  // 3 heads + all heads
        view.headBox()->setCurrentIndex(1);
        QCOMPARE(view.heatmap()->cellValue(0, 0), double(snap->layers[1].values[36]));
        view.headBox()->setCurrentIndex(3);
        QCOMPARE(view.grid()->heads(), 3);
        auto* pages = view.findChild<QStackedWidget*>();
        QCOMPARE(pages->currentWidget(), static_cast<QWidget*>(view.grid()));

        // a new snapshot keeps the chosen layer and head
        auto next = std::make_shared<AttentionSnapshot>(*snap);
        next->epoch = 5;
        view.setSnapshot(next);
        QCOMPARE(view.layerBox()->currentIndex(), 1);
        QCOMPARE(view.headBox()->currentIndex(), 3);

        // picking another sample asks the worker for it
        QSignalSpy asked(&view, &AttentionView::sampleRequested);
        view.sampleBox()->setValue(7);
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.first().at(0).toInt(), 7);
    }

    void rowColoursAndAxisTitles() {
        registerMetaTypes();
        AttentionView view;
        view.resize(700, 500);
        view.show();
        // A causal pattern: row 0 is all on its first key (score 1), later rows spread out.
        AttentionScores s = makeScores("layers.1", 1, 6);
        for (int q = 0; q < 6; ++q)
            for (int k = 0; k < 6; ++k) s.values[size_t(q * 6 + k)] = k <= q ? 1.0f / (q + 1) : 0;
        auto snap = std::make_shared<AttentionSnapshot>();
        snap->validationSamples = 10;
        snap->windowBars = 6;  // a price window of 6 bars: the elements are bars
        snap->layers = {s};
        view.setSnapshot(snap);
        AttentionHeatmap* map = view.heatmap();
        QCOMPARE(map->yAxis->label(), QStringLiteral("query bar"));
        QCOMPARE(map->colorMap()->data()->cell(0, 5), double(1.0f / 6));  // whole-matrix scale
        QCOMPARE(map->colorMap()->dataRange().upper, 1.0);

        auto* scale = view.findChild<QComboBox*>(QStringLiteral("attentionColourScale"));
        QVERIFY(scale);
        scale->setCurrentIndex(1);  // each row relative to its largest score
        QCOMPARE(map->colorMap()->data()->cell(0, 5), 1.0);
        QCOMPARE(map->colorMap()->data()->cell(5, 5), 1.0);
        QCOMPARE(map->colorMap()->data()->cell(5, 4), 0.0);
        QCOMPARE(map->cellValue(5, 0), double(1.0f / 6));  // the read-out stays the score
        QCOMPARE(map->colorScale()->axis()->label(), QStringLiteral("score ÷ row max"));

        auto other = std::make_shared<AttentionSnapshot>(*snap);
        other->windowBars = 0;  // synthetic data: elements, not bars
        view.setSnapshot(other);
        QCOMPARE(map->yAxis->label(), QStringLiteral("query element"));
        QVERIFY(map->xAxis->label().startsWith(QStringLiteral("key element")));
    }

    void tickLabelsFitTheirRoom() {
        AttentionHeatmap map;
        map.resize(300, 300);
        map.show();
        map.setScores(makeScores("layers.1", 1, 60), 0, QStringLiteral("t"));
        auto x = map.xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(x->ticks().size() <= (300 - 120) / 36);
        QCOMPARE(x->ticks().last(), QStringLiteral("t"));
        map.resize(1200, 900);
        QApplication::processEvents();
        x = map.xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(x->ticks().size() > (300 - 120) / 36);

        AttentionGrid grid;
        grid.resize(400, 300);
        grid.show();
        grid.setScores(makeScores("layers.0", 4, 20));  // 2 × 2 maps of 20 elements
        for (int h = 0; h < 4; ++h) {
            auto t = grid.map(h)->keyAxis()->ticker().dynamicCast<QCPAxisTickerText>();
            const int each = (400 - 70) / 2 - 40;  // a map's share, less its axes
            QVERIFY2(t->ticks().size() * 30 <= std::max(60, each),
                     qPrintable(QString::number(t->ticks().size())));
        }
    }

    // The labels drawn follow the map's width as it changes (the pane gets narrower when the
    // Training dock is raised beside it): at each width no two drawn labels overlap, "t" is
    // drawn, and a wider map draws more of them. Before, the replot at the new size drew the
    // old width's labels (thinned after it): from 900 to 250 px, 12 labels in about 120 px. The
    // grid's small maps likewise.
    void drawnLabelsFollowTheWidth() {
        AttentionHeatmap map;
        map.resize(900, 300);
        map.show();
        QVERIFY(QTest::qWaitForWindowExposed(&map));
        map.setScores(makeScores("layers.1", 1, 60), 0, QStringLiteral("t"));
        QTest::qWait(50);
        QVector<int> counts;
        for (int width : {900, 600, 350, 250}) {
            map.resize(width, 300);
            QApplication::processEvents();
            const QString at = QStringLiteral("at %1 px").arg(width);
            QVERIFY2(labelsApart(map.xAxis), qPrintable(at));
            QCOMPARE(map.xAxis->tickVectorLabels().last(), QStringLiteral("t"));
            counts << int(map.xAxis->tickVectorLabels().size());
        }
        QVERIFY2(counts.first() > counts.last() && std::is_sorted(counts.rbegin(), counts.rend()),
                 qPrintable(QString("labels at 900, 600, 350, 250 px: %1, %2, %3, %4")
                                .arg(counts[0])
                                .arg(counts[1])
                                .arg(counts[2])
                                .arg(counts[3])));

        AttentionGrid grid;
        grid.resize(900, 500);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        grid.setScores(makeScores("layers.0", 4, 40));
        QTest::qWait(50);
        grid.resize(420, 300);
        QApplication::processEvents();
        for (int h = 0; h < 4; ++h) QVERIFY2(labelsApart(grid.map(h)->keyAxis()), "grid");
    }

    void pickedSampleNamesItsClasses() {
        registerMetaTypes();
        AttentionView view;
        view.show();
        auto snap = std::make_shared<AttentionSnapshot>();
        snap->validationSamples = 10;
        snap->sample = 3;
        snap->outputs = {0.2f, 0.1f, 0.7f};
        snap->target = {0.0f, 1.0f, 0.0f};
        snap->layers = {makeScores("layers.1", 1, 4)};
        view.setSnapshot(snap);
        auto* info = view.findChild<QLabel*>(QStringLiteral("attentionInfo"));
        QVERIFY(info);
        // The pickers and the long info line (wrapped) are in a column beside the heatmap,
        // which keeps the view's height (issue 43: above it they left it 113 px of plot).
        view.resize(420, 400);
        QApplication::processEvents();
        auto* pickers = view.findChild<AttentionPickers*>();
        QVERIFY(pickers);
        QVERIFY2(pickers->width() <= view.width() / 2,
                 qPrintable(QString::number(pickers->width())));
        auto* map = view.findChild<QWidget*>(QStringLiteral("attentionHeatmap"));
        QVERIFY(map);
        QVERIFY2(map->height() >= view.height() - 20, qPrintable(QString::number(map->height())));
        QVERIFY(info->width() > 100);
        QVERIFY2(info->text().contains(QStringLiteral("true buy · predicted sell")),
                 qPrintable(info->text()));
        QVERIFY(info->text().contains(QStringLiteral("sell 0.70")));
        // Its count grouped as every count of the window ("2435 validation samples" before).
        snap = std::make_shared<AttentionSnapshot>(*snap);
        snap->validationSamples = 2435;
        view.setSnapshot(snap);
        QVERIFY2(info->text().contains(QStringLiteral("2,435 validation samples")),
                 qPrintable(info->text()));
        // No title row over the map (the pickers beside it name layer, head and sample): its
        // 20-odd px went to the plot, which at 1280x720 under the Price Chart tab needs them.
        auto* heatmap = view.findChild<AttentionHeatmap*>(QStringLiteral("attentionHeatmap"));
        QVERIFY(heatmap);
        heatmap->replot();
        QVERIFY2(heatmap->axisRect()->top() < 20,
                 qPrintable(QString::number(heatmap->axisRect()->top())));
    }
};

QTEST_MAIN(TestAttentionView)
#include "tst_attention_view.moc"
