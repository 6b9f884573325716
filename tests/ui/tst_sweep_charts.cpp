// GUI: the Sweeps tab's charts say what they draw without hiding it (issue 41): the learning
// curves have a legend naming the coloured trials and what grey means (they had none), and the
// Pareto chart's legend is in a row of its own, clear of the points (it covered them).
#include <QtTest>

#include "ui/SweepCurvesChart.h"
#include "ui/SweepParetoChart.h"

using namespace nnwb;

namespace {
SweepSnapshot snapshot() {
    SweepSnapshot s;
    s.objective = "validation.loss";
    s.secondObjective = "parameters";
    for (int n = 0; n < 20; ++n) {
        TrialRow t;
        t.number = n;
        t.state = n % 5 == 4 ? sweep::TrialState::Pruned : sweep::TrialState::Complete;
        t.epochs = {{1, 1.0 + n * 0.01}, {2, 0.9 + n * 0.01}};
        t.value = 0.9 + n * 0.01;
        t.secondValue = 100.0 + 10 * (20 - n);
        s.trials.push_back(t);
    }
    s.report["pareto"] = nlohmann::json::array();
    for (int n : {0, 1, 2})
        s.report["pareto"].push_back({{"value", 0.9 + n * 0.01}, {"secondValue", 300.0 - n}});
    return s;
}

bool overlaps(const QRect& a, const QRect& b) {
    return a.intersects(b);
}
}  // namespace

class TestSweepCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void curvesHaveALegend() {
        SweepCurvesChart chart;
        chart.resize(600, 300);
        chart.show();
        chart.setSnapshot(snapshot());
        chart.replot();
        QVERIFY(chart.legend->visible());
        QStringList names;
        for (int i = 0; i < chart.legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(chart.legend->item(i)))
                names << item->plottable()->name();
        QVERIFY2(names.contains(QStringLiteral("trial 0")), qPrintable(names.join(", ")));
        QCOMPARE(names.count(QStringLiteral("pruned")), 1);  // grey said once
        QVERIFY(names.size() <= SweepCurvesChart::kLegendTrials + 1);
        QVERIFY(!overlaps(chart.legend->outerRect(), chart.axisRect()->rect()));
    }

    void paretoLegendCoversNoPoint() {
        SweepParetoChart chart;
        chart.resize(600, 300);
        chart.show();
        chart.setSnapshot(snapshot());
        chart.replot();
        QVERIFY(chart.legend->visible());
        QVERIFY2(!overlaps(chart.legend->outerRect(), chart.axisRect()->rect()),
                 "the legend lies over the plotted points");
    }
};

QTEST_MAIN(TestSweepCharts)
#include "tst_sweep_charts.moc"
