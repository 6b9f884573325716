// The sweep's pruners against their definitions on scripted learning curves: ASHA (Li et al.
// 2018, Optuna's SuccessiveHalvingPruner rule) prunes exactly the trials that are not in the top
// floor(n / eta) at a rung, only at rungs min * eta^k below max; the median pruner (Optuna's
// MedianPruner) waits for nStartup complete trials and the warm-up and then prunes a trial whose
// best value so far is worse than the complete trials' median at that epoch.
#include <gtest/gtest.h>

#include <set>

#include "model/sweep/Pruner.h"

using namespace nnwb::sweep;

namespace {

// Runs scripted trials one after another (each to its end or its pruning) and returns the
// epoch each was pruned at (0: completed).
std::vector<int> runSequential(const Pruner& pruner,
                               const std::vector<std::vector<double>>& curves) {
    History h;
    std::vector<int> prunedAt;
    for (size_t i = 0; i < curves.size(); ++i) {
        TrialRecord t;
        t.number = int(i);
        t.state = TrialState::Running;
        h.push_back(t);
        int at = 0;
        for (size_t e = 0; e < curves[i].size(); ++e) {
            h.back().intermediate[int(e) + 1] = curves[i][e];
            if (pruner.shouldPrune(h, int(i), int(e) + 1)) {
                at = int(e) + 1;
                break;
            }
        }
        h.back().state = at ? TrialState::Pruned : TrialState::Complete;
        if (!at) h.back().value = curves[i].back();
        prunedAt.push_back(at);
    }
    return prunedAt;
}

}  // namespace

TEST(SweepPruners, ashaRungsAreMinTimesEtaPowers) {
    EXPECT_EQ(ashaRungs({1, 3, 27}, 100), (std::vector<int>{1, 3, 9}));
    EXPECT_EQ(ashaRungs({2, 2, 20}, 100), (std::vector<int>{2, 4, 8, 16}));
    EXPECT_EQ(ashaRungs({1, 3, 0}, 10), (std::vector<int>{1, 3, 9}));
    EXPECT_THROW(makeAshaPruner({0, 3, 9}), std::invalid_argument);
    EXPECT_THROW(makeAshaPruner({1, 1, 9}), std::invalid_argument);
}

TEST(SweepPruners, ashaPrunesExactlyTheTrialsOutsideTheTopThirdOfEachRung) {
    // eta 3, rungs at epochs 1 and 3 of 9. Epoch-1 values 5 3 4 1 6 2 7 .5 8; the survivors'
    // epoch-3 values 4, 2.5, .9, 1.5, .6 (epoch 2 in between: no rung there).
    const std::vector<std::vector<double>> curves = {
        {5, 4.5, 4.0, 3.9, 3.8, 3.7, 3.6, 3.5, 3.4},   // 0
        {3, 2.8, 2.5, 2.4, 2.3, 2.2, 2.1, 2.0, 1.9},   // 1
        {4, 3.5, 3.0},                                 // 2: pruned at 1 (4 > best 3 of 3)
        {1, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3},  // 3
        {6},                                           // 4: pruned at 1 (1 is the top of 5)
        {2, 1.8, 1.5},                                 // 5: at 1 top 2 of 6; at 3 only 0.9 passes
        {7},                                           // 6: pruned at 1
        {0.5, 0.55, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05},  // 7
        {8},                                              // 8: pruned at 1 (top 3 of 9: .5 1 2)
    };
    auto asha = makeAshaPruner({1, 3, 9});
    EXPECT_EQ(runSequential(*asha, curves), (std::vector<int>{0, 0, 1, 0, 1, 3, 1, 0, 1}));
    // Interleaved: trials 0..3 report epoch 1 before any reports epoch 2.
    History h;
    for (int i = 0; i < 4; ++i) {
        TrialRecord t;
        t.number = i;
        t.intermediate[1] = curves[size_t(i)][0];
        h.push_back(t);
    }
    // All four have reported; n = 4, top floor(4/3) = 1: only trial 3 (value 1) passes now.
    std::set<int> pruned;
    for (int i = 0; i < 4; ++i)
        if (asha->shouldPrune(h, i, 1)) pruned.insert(i);
    EXPECT_EQ(pruned, (std::set<int>{0, 1, 2}));
    EXPECT_FALSE(asha->shouldPrune(h, 3, 2));  // epoch 2 is no rung
}

TEST(SweepPruners, medianPrunesWorseThanTheMedianAfterStartupAndWarmup) {
    // Five complete trials: epoch 1 values 2..6 (median 4), epoch 2 values 1..5 (median 3).
    std::vector<std::vector<double>> curves;
    for (int i = 1; i <= 5; ++i) curves.push_back({double(i) + 1, double(i), double(i) - 0.5});
    // Kept: 2 <= 4 at epoch 1, best 2 <= 3 at epoch 2; it completes, so the medians become
    // 3.5 (epoch 1) and 3.25 (epoch 2).
    curves.push_back({2.0, 3.5, 0.1});
    curves.push_back({4.5, 3.5, 0.1});  // 4.5 > 3.5: pruned at 1
    curves.push_back({3.4, 3.3, 0.1});  // 3.4 <= 3.5 kept; best 3.3 > 3.25: pruned at 2
    auto median = makeMedianPruner({5, 0});
    EXPECT_EQ(runSequential(*median, curves), (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2}));
    // With a warm-up of one epoch the seventh trial survives epoch 1 and is pruned at 2.
    auto warm = makeMedianPruner({5, 1});
    EXPECT_EQ(runSequential(*warm, curves)[6], 2);
    // With six startup trials nothing is pruned before the sixth completes.
    auto late = makeMedianPruner({6, 0});
    EXPECT_EQ(runSequential(*late, curves), (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2}));
    auto later = makeMedianPruner({7, 0});
    EXPECT_EQ(runSequential(*later, curves)[6], 0);
}
