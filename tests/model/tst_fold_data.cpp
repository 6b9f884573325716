// A walk-forward fold's data (DataPipeline's buildDataSplitForRanges): the samples of explicit
// ranges, normalized with statistics of the training part's windows only: changing any bar
// after the training part (the validation and test parts, the rest of the file) changes
// neither the statistics nor the training samples; the holdout split is the same function on
// the holdout ranges.
#include <gtest/gtest.h>

#include "common/RandomBars.h"
#include "model/data/DataPipeline.h"
#include "model/data/DateTime.h"
#include "model/data/Features.h"
#include "model/data/Normalization.h"

using namespace nnwb;

namespace {

BarSeries makeBars(size_t n, uint32_t seed = 7) {
    return test::randomWalkBars(n, seed, "/tmp/fold.csv", true);
}

// The bars with every bar from `from` on moved: prices tripled and shifted, volumes changed.
BarSeries changedFrom(BarSeries b, size_t from) {
    for (size_t i = from; i < b.size(); ++i) {
        b.open[i] = b.open[i] * 3 + 1;
        b.high[i] = b.high[i] * 3 + 1.01;
        b.low[i] = b.low[i] * 3 + 0.99;
        b.close[i] = b.close[i] * 3 + 1;
        b.volume[i] += 1000;
    }
    return b;
}

SampleRanges foldRanges() {
    SampleRanges r;
    r.trainFirst = 60;
    r.trainLast = 300;
    r.validationFirst = 302;
    r.validationLast = 340;
    r.testFirst = 345;
    r.testLast = 420;
    return r;
}

}  // namespace

TEST(FoldData, statisticsFromTheTrainingPartOnly) {
    DataConfig c;
    c.window = 10;
    const BarSeries bars = makeBars(500);
    const SampleRanges ranges = foldRanges();
    const DataResult r = buildDataSplitForRanges(c, bars, ranges);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.split.train.size(), size_t(241));
    EXPECT_EQ(r.split.validation.size(), size_t(39));
    EXPECT_EQ(r.test.size(), size_t(76));
    EXPECT_EQ(r.testFirstBar, size_t(345));
    EXPECT_EQ(r.test.time.front(), bars.time[345]);
    EXPECT_EQ(r.test.time.back(), bars.time[420]);
    // The statistics of the training windows' bars (60 - 9 .. 300), nothing later.
    const FeatureMatrix m = computeFeatures(bars, c.features);
    const ZScoreStats expected = fitZScore(m, 51, 300);
    ASSERT_EQ(r.stats.mean, expected.mean);
    ASSERT_EQ(r.stats.stddev, expected.stddev);
    // Every bar after the training part changed (validation, test and the rest): the same
    // statistics and training samples; the test samples do change.
    for (size_t from : {size_t(301), size_t(345), size_t(421)}) {
        const DataResult moved = buildDataSplitForRanges(c, changedFrom(bars, from), ranges);
        ASSERT_TRUE(moved.ok) << moved.error;
        EXPECT_EQ(moved.stats.mean, r.stats.mean) << from;
        EXPECT_EQ(moved.stats.stddev, r.stats.stddev) << from;
        EXPECT_EQ(moved.split.train.x, r.split.train.x) << from;
        if (from <= 420) {
            EXPECT_NE(moved.test.x, r.test.x) << from;
        }
    }
    // A bar inside the training part does move them (the check above can fail).
    const DataResult inside = buildDataSplitForRanges(c, changedFrom(bars, 250), ranges);
    EXPECT_NE(inside.stats.mean, r.stats.mean);
    // The test samples are the file's features normalized with the training statistics.
    FeatureMatrix n = m;
    applyZScore(n, r.stats);
    const size_t last = 345, perRow = size_t(m.features);
    for (size_t k = 0; k < perRow; ++k)
        EXPECT_FLOAT_EQ(r.test.x[9 * perRow + k], float(n.at(last, int(k))));
}

TEST(FoldData, holdoutIsTheSameFunctionOnItsRanges) {
    DataConfig c;
    c.window = 12;
    const BarSeries bars = makeBars(400, 3);
    const DataResult holdout = buildDataSplitFromBars(c, bars);
    ASSERT_TRUE(holdout.ok) << holdout.error;
    SampleRanges ranges;
    ranges.trainFirst = holdout.trainFirstBar;
    ranges.trainLast = holdout.trainLastBar;
    ranges.validationFirst = holdout.validationFirstBar;
    ranges.validationLast = holdout.validationLastBar;
    const DataResult same = buildDataSplitForRanges(c, bars, ranges);
    ASSERT_TRUE(same.ok) << same.error;
    EXPECT_EQ(same.split.train.x, holdout.split.train.x);
    EXPECT_EQ(same.split.validation.x, holdout.split.validation.x);
    EXPECT_EQ(same.split.validation.y, holdout.split.validation.y);
    EXPECT_EQ(same.stats.mean, holdout.stats.mean);
    EXPECT_EQ(same.test.size(), size_t(0));
    EXPECT_EQ(holdout.test.size(), size_t(0));
}

TEST(FoldData, rangesOutsideTheSamplesAreRefused) {
    DataConfig c;
    c.window = 10;
    const BarSeries bars = makeBars(300);
    SampleRanges r = foldRanges();
    r.testLast = 299;  // the last bar has no label
    r.testFirst = 290;
    r.trainLast = 200;
    r.validationFirst = 1;
    r.validationLast = 0;
    const DataResult bad = buildDataSplitForRanges(c, bars, r);
    EXPECT_FALSE(bad.ok);
    EXPECT_NE(bad.error.find("outside the file's samples"), std::string::npos) << bad.error;
    r.testLast = 298;
    EXPECT_TRUE(buildDataSplitForRanges(c, bars, r).ok);
}

// A CPCV split's data (buildDataSplitForBlocks): two training blocks around a test block; the
// statistics are those of the rows the training blocks' windows read (51..150 and 241..400 for
// window 10), not of their hull; moving the bars after the training blocks changes neither them
// nor the training samples; the samples come in block order.
TEST(FoldData, blocksTakeStatisticsFromTheirTrainingWindowsOnly) {
    DataConfig c;
    c.window = 10;
    const BarSeries bars = makeBars(500);
    SampleBlocks blocks;
    blocks.train = {{60, 150}, {250, 400}};
    blocks.validation = {{405, 420}, {440, 450}};
    blocks.test = {{160, 240}};
    const DataResult r = buildDataSplitForBlocks(c, bars, blocks);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.split.train.size(), size_t(91 + 151));
    EXPECT_EQ(r.split.validation.size(), size_t(16 + 11));
    EXPECT_EQ(r.test.size(), size_t(81));
    EXPECT_EQ(r.split.train.time[90], bars.time[150]);
    EXPECT_EQ(r.split.train.time[91], bars.time[250]);
    EXPECT_EQ(r.split.validation.time[16], bars.time[440]);
    const FeatureMatrix m = computeFeatures(bars, c.features);
    const ZScoreStats expected = fitZScore(m, std::vector<BarRange>{{51, 150}, {241, 400}});
    EXPECT_EQ(r.stats.mean, expected.mean);
    EXPECT_EQ(r.stats.stddev, expected.stddev);
    EXPECT_NE(r.stats.mean, fitZScore(m, 51, 400).mean);  // not the hull's
    // Every bar after the last training block moved: nothing of the training part changes.
    // (Bars of the test block between the training blocks cannot show this: the exponential
    // averages of MACD carry every earlier bar into the second block's features.)
    const BarSeries moved = changedFrom(bars, 401);
    const DataResult s = buildDataSplitForBlocks(c, moved, blocks);
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_EQ(s.stats.mean, r.stats.mean);
    EXPECT_EQ(s.split.train.x, r.split.train.x);
    EXPECT_NE(s.split.validation.x, r.split.validation.x);
}
