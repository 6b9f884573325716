// Task metrics: a known list of signals and targets with known accuracy, missed patterns,
// confusion matrix and loss; edge cases (no signals, no patterns, ties) and the MQL5-style
// running averages carried across epochs.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "common/FuzzyCompare.h"
#include "model/Metrics.h"

using namespace nnwb;

namespace {

// outputs (argmax = predicted class) and targets [none, buy, sell] for eight samples.
const std::vector<float> kOutputs = {
    0.1f, 0.8f, 0.1f,  // 1: buy
    0.2f, 0.3f, 0.5f,  // 2: sell
    0.7f, 0.2f, 0.1f,  // 3: none
    0.9f, 0.0f, 0.1f,  // 4: none
    0.1f, 0.2f, 0.7f,  // 5: sell
    0.3f, 0.4f, 0.3f,  // 6: buy
    0.5f, 0.4f, 0.1f,  // 7: none
    -1.f, -2.f, 0.0f,  // 8: sell
};
const std::vector<float> kTargets = {
    0, 1, 0,  // 1: buy fractal   -> buy signal hits
    0, 1, 0,  // 2: buy fractal   -> sell signal: wrong signal and a missed pattern
    0, 0, 1,  // 3: sell fractal  -> no signal: missed
    1, 0, 0,  // 4: nothing       -> nothing
    1, 0, 0,  // 5: nothing       -> sell signal: wrong
    0, 1, 1,  // 6: outside bar   -> buy signal hits
    0, 1, 1,  // 7: outside bar   -> no signal: missed (counted once)
    0, 0, 1,  // 8: sell fractal  -> sell signal hits
};
const std::vector<float> kLoss = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f};

void step(double& v, double x) {
    v = (1.0 - 1.0 / 10000) * v + x / 10000;
}

void checkKnown(const EpochMetrics& m) {
    ASSERT_EQ(m.samples, size_t(8));
    ASSERT_EQ(m.signalCount, size_t(5));
    ASSERT_EQ(m.patterns, size_t(6));
    ASSERT_FUZZY_EQ(m.accuracyPct, 60.0);  // 3 of 5 signals right
    ASSERT_FUZZY_EQ(m.missedPct, 50.0);    // 3 of 6 patterns without the right signal
    ASSERT_TRUE(std::fabs(m.loss - 0.45) < 1e-7);
    using Row = std::array<int64_t, 3>;
    ASSERT_EQ(m.confusion[0], (Row{1, 0, 1}));
    ASSERT_EQ(m.confusion[1], (Row{0, 2, 1}));
    ASSERT_EQ(m.confusion[2], (Row{2, 0, 1}));
}

}  // namespace

TEST(Metrics, knownSignals) {
    MetricsAccumulator acc;
    acc.add(kOutputs.data(), kTargets.data(), kLoss.data(), 8);
    checkKnown(acc.result());
}

TEST(Metrics, batchesGiveTheSameFigures) {
    MetricsAccumulator acc;
    acc.add(kOutputs.data(), kTargets.data(), kLoss.data(), 3);
    acc.add(kOutputs.data() + 9, kTargets.data() + 9, kLoss.data() + 3, 1);
    acc.add(kOutputs.data() + 12, kTargets.data() + 12, kLoss.data() + 4, 4);
    checkKnown(acc.result());
}

TEST(Metrics, emptyAndDegenerate) {
    MetricsAccumulator none;
    const EpochMetrics e = none.result();
    ASSERT_EQ(e.samples, size_t(0));
    ASSERT_FUZZY_EQ(e.loss, 0.0);
    ASSERT_FUZZY_EQ(e.accuracyPct, 0.0);
    ASSERT_FUZZY_EQ(e.missedPct, 0.0);
    // No signals (ties go to "none") and no patterns.
    const std::vector<float> out = {0.5f, 0.5f, 0.5f, 0.2f, 0.1f, 0.1f};
    const std::vector<float> tgt = {1, 0, 0, 1, 0, 0};
    MetricsAccumulator acc;
    acc.add(out.data(), tgt.data(), nullptr, 2);
    const EpochMetrics m = acc.result();
    ASSERT_EQ(m.signalCount, size_t(0));
    ASSERT_EQ(m.patterns, size_t(0));
    ASSERT_FUZZY_EQ(m.accuracyPct, 0.0);
    ASSERT_FUZZY_EQ(m.missedPct, 0.0);
    ASSERT_EQ(m.confusion[0][0], int64_t(2));
    // A tie between buy and sell goes to buy (the first maximum).
    const std::vector<float> tie = {0.1f, 0.6f, 0.6f};
    const std::vector<float> sell = {0, 0, 1};
    MetricsAccumulator t;
    t.add(tie.data(), sell.data(), nullptr, 1);
    ASSERT_EQ(t.result().confusion[2][1], int64_t(1));
    ASSERT_FUZZY_EQ(t.result().missedPct, 100.0);
}

TEST(Metrics, runningAveragesCarryAcrossEpochs) {
    RunningAverages run;
    double loss = 0, acc = 0, missed = 0;
    const double accX[] = {100, 0, 0, 100, 100};      // signals: samples 1, 2, 5, 6, 8
    const double missX[] = {0, 100, 100, 0, 100, 0};  // patterns: 1, 2, 3, 6, 7, 8
    for (int epoch = 0; epoch < 3; ++epoch) {
        MetricsAccumulator a(3, &run);
        a.add(kOutputs.data(), kTargets.data(), kLoss.data(), 8);
        for (float l : kLoss) step(loss, l);
        for (double x : accX) step(acc, x);
        for (double x : missX) step(missed, x);
        const EpochMetrics m = a.result();
        checkKnown(m);  // the exact per-epoch figures are unaffected
        ASSERT_TRUE(run.started);
        ASSERT_TRUE(std::fabs(m.runningLoss - loss) < 1e-12);
        ASSERT_TRUE(std::fabs(m.runningAccuracyPct - acc) < 1e-12);
        ASSERT_TRUE(std::fabs(m.runningMissedPct - missed) < 1e-12);
        ASSERT_FUZZY_EQ(run.loss, m.runningLoss);
    }
    ASSERT_TRUE(acc > 0.085 && acc < 0.09);  // 3 epochs x 3 hits of 100 at 1/10000 each
}
