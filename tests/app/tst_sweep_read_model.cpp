// The sweep read model's ranks of the trials' values (app/sweep/SweepReadModel.h, issue 42 §6):
// oriented by the objective's goal in one place, which the Sweeps tab's parallel coordinates
// colour by (before, ui/ParallelCoordinates.cpp oriented the values itself): 0 the best .. 1 the
// worst, equal values sharing the better place, none without a value. And one number format for
// an objective value (sweepValueText): sweep show's best line, leaderboard and Pareto front
// write it as the Sweeps tab does (tst_sweep_value_text); before, the best line printed the
// JSON's 17 digits.
#include <QtTest>

#include <optional>
#include <vector>

#include "app/sweep/SweepReadModel.h"
#include "app/sweep/SweepReport.h"

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
        QCOMPARE(*low[4], 0.0);        // equal values, the better place
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

    void oneFormatOfAValue() {
        QCOMPARE(sweepValueText(0.123456789), std::string("0.123457"));
        QCOMPARE(sweepValueText(-1234567.0), std::string("-1.23457e+06"));
        QCOMPARE(sweepValueText(3.0), std::string("3"));
        const nlohmann::json trial = {
            {"number", 3},          {"run", 12},
            {"value", 0.123456789}, {"secondValue", 2.0 / 3.0},
            {"epochs", 2},          {"params", {{"training.batchSize", 16}}}};
        const nlohmann::json report = {
            {"id", 1},
            {"name", "s"},
            {"status", "complete"},
            {"method", "grid"},
            {"pruner", "none"},
            {"counts",
             {{"complete", 1}, {"pruned", 0}, {"failed", 0}, {"running", 0}, {"queued", 0}}},
            {"runCap", 1},
            {"objective", {{"metric", "validation.loss"}, {"goal", "min"}}},
            {"secondObjective", {{"metric", "parameters"}, {"goal", "min"}}},
            {"best", trial},
            {"leaderboard", {trial}},
            {"pareto", {trial}},
            {"importance", nlohmann::json::array()}};
        const QString text = QString::fromStdString(sweepReportText(report, 10));
        QVERIFY2(text.contains("best: trial 3  0.123457  {"), qPrintable(text));
        QVERIFY2(text.contains("     3  12      0.123457      "), qPrintable(text));
        QVERIFY2(text.contains("  trial 3      0.123457      0.666667    "), qPrintable(text));
        QVERIFY2(!text.contains("0.1234567"), qPrintable(text));
    }
};

QTEST_GUILESS_MAIN(SweepReadModelTest)
#include "tst_sweep_read_model.moc"
