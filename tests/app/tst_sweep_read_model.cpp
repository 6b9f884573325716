// The sweep read model's ranks of the trials' values (app/sweep/SweepReadModel.h, issue 42 §6):
// oriented by the objective's goal in one place, which the Sweeps tab's parallel coordinates
// colour by (before, ui/ParallelCoordinates.cpp oriented the values itself): 0 the best .. 1 the
// worst, equal values sharing the better place, none without a value.
#include <QtTest>

#include <optional>
#include <vector>

#include "app/sweep/SweepReadModel.h"

using namespace nnwb;

namespace {

std::vector<TrialRow> trialsWith(const std::vector<std::optional<double>>& values) {
    std::vector<TrialRow> out;
    for (size_t k = 0; k < values.size(); ++k) {
        TrialRow t;
        t.number = int(k + 1);
        t.value = values[k];
        out.push_back(t);
    }
    return out;
}

}  // namespace

class SweepReadModelTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ranksFollowTheGoal() {
        const auto trials = trialsWith({0.3, std::nullopt, 0.1, 0.2, 0.1});
        const auto low = sweepValueRanks(trials, true);  // minimised: 0.1 best
        QCOMPARE(low.size(), size_t(5));
        QCOMPARE(*low[2], 0.0);
        QCOMPARE(*low[4], 0.0);  // equal values, the better place
        QCOMPARE(*low[3], 2.0 / 3.0);  // third of four: 2 of 0..3
        QCOMPARE(*low[0], 1.0);
        QVERIFY(!low[1]);
        const auto high = sweepValueRanks(trials, false);  // maximised: 0.3 best
        QCOMPARE(*high[0], 0.0);
        QCOMPARE(*high[3], 1.0 / 3.0);
        QCOMPARE(*high[2], 2.0 / 3.0);
        QCOMPARE(*high[4], 2.0 / 3.0);
        QVERIFY(!high[1]);
    }

    void oneValueIsTheBest() {
        const auto r = sweepValueRanks(trialsWith({std::nullopt, -4.0}), false);
        QVERIFY(!r[0]);
        QCOMPARE(*r[1], 0.0);
        QVERIFY(sweepValueRanks({}, true).empty());
    }
};

QTEST_GUILESS_MAIN(SweepReadModelTest)
#include "tst_sweep_read_model.moc"
