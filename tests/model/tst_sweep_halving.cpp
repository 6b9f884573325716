// Successive halving in rungs for a sweep run in generations on a cluster (docs/slurm.md): the
// arrays' epoch budgets are ASHA's rungs below the trials' epochs and then the epochs
// themselves; at a rung the best max(1, floor(n / eta)) of the n trials that reached it go on
// (ties by task), trials that failed before the rung or had nothing left to train neither count
// nor go on.
#include <gtest/gtest.h>

#include "model/sweep/SuccessiveHalving.h"

using namespace nnwb::sweep;

namespace {

RungEntry at(int task, double value) {
    RungEntry e;
    e.task = task;
    e.value = value;
    return e;
}

RungEntry failed(int task) {
    RungEntry e;
    e.task = task;
    return e;
}

}  // namespace

TEST(SweepHalving, stagesAreTheRungsThenTheTrialsEpochs) {
    const AshaOptions a{1, 3, 0};
    EXPECT_EQ(halvingStages(&a, 9), (std::vector<int>{1, 3, 9}));
    EXPECT_EQ(halvingStages(&a, 10), (std::vector<int>{1, 3, 9, 10}));
    EXPECT_EQ(halvingStages(&a, 2), (std::vector<int>{1, 2}));
    EXPECT_EQ(halvingStages(&a, 1), (std::vector<int>{1}));
    const AshaOptions capped{2, 2, 8};  // maxResource 8: no rung at 8 or beyond
    EXPECT_EQ(halvingStages(&capped, 20), (std::vector<int>{2, 4, 20}));
    EXPECT_EQ(halvingStages(nullptr, 7), (std::vector<int>{7}));
}

TEST(SweepHalving, theBestThirdGoesOn) {
    // Nine trials, eta 3: the three lowest values go on, in task order.
    std::vector<RungEntry> e;
    const double values[] = {5, 3, 4, 1, 6, 2, 7, 0.5, 8};
    for (int i = 0; i < 9; ++i) e.push_back(at(10 + i, values[i]));
    EXPECT_EQ(promoteFromRung(e, 3), (std::vector<int>{13, 15, 17}));
    EXPECT_EQ(promoteFromRung(e, 2), (std::vector<int>{11, 13, 15, 17}));
}

TEST(SweepHalving, atLeastTheBestGoesOn) {
    EXPECT_EQ(promoteFromRung({at(0, 0.3), at(1, 0.1), at(2, 0.2)}, 3), (std::vector<int>{1}));
    EXPECT_EQ(promoteFromRung({at(4, 0.3), at(5, 0.2)}, 3), (std::vector<int>{5}));
    EXPECT_EQ(promoteFromRung({at(7, 0.3)}, 3), (std::vector<int>{7}));
    EXPECT_TRUE(promoteFromRung({}, 3).empty());
}

TEST(SweepHalving, failedAndFinishedTrialsNeitherCountNorGoOn) {
    // Six entries, but only three reached the rung: floor(3 / 3) = 1 goes on, not 2.
    RungEntry done = at(3, 0.01);
    done.finished = true;  // early stopping ended it before the rung: nothing left to train
    const std::vector<RungEntry> e = {failed(0), at(1, 0.5), failed(2),
                                      done,      at(4, 0.4), at(5, 0.6)};
    EXPECT_EQ(promoteFromRung(e, 3), (std::vector<int>{4}));
    EXPECT_TRUE(promoteFromRung({failed(0), failed(1)}, 3).empty());
}

TEST(SweepHalving, tiesGoToTheLowerTask) {
    EXPECT_EQ(promoteFromRung({at(2, 0.5), at(0, 0.5), at(1, 0.5)}, 3), (std::vector<int>{0}));
}
