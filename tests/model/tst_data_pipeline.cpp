// Data pipeline and its configuration: JSON round trip and error messages, sample layout
// (window, targets, sample times), the chronological split without overlapping windows,
// z-score statistics from the training part only, positional encoding, error paths.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "common/FuzzyCompare.h"
#include "common/RandomBars.h"
#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/data/DataPipeline.h"
#include "model/data/DateTime.h"
#include "model/data/Fractals.h"
#include "model/data/PositionalEncoding.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;
using nlohmann::json;

namespace {

const int64_t kT0 = fromCalendar(2022, 5, 2);

// Hourly bars from kT0.
BarSeries makeBars(size_t n, uint32_t seed = 1) {
    return test::randomWalkBars(n, seed, "/tmp/synthetic.csv", false);
}

size_t barOf(int64_t t) {
    return size_t((t - kT0) / 3600);
}

std::string expectThrow(const json& j) {
    try {
        DataConfig::fromJson(j);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no exception)";
}

}  // namespace

TEST(DataPipeline, configDefaultsAndRoundTrip) {
    const DataConfig d = DataConfig::fromJson(json::object());
    ASSERT_EQ(d.source, std::string("file"));
    ASSERT_EQ(d.window, 20);
    ASSERT_FUZZY_EQ(d.validationShare, 0.2);
    ASSERT_EQ(d.featureCount(), 12);
    ASSERT_EQ(d.normalization, std::string("zscore"));
    ASSERT_EQ(d.positionalEncoding, false);
    ASSERT_EQ(d.fractal, std::string("3bar"));
    ASSERT_EQ(d.features.rsiPeriod, 14);
    ASSERT_EQ(d.features.macdSignal, 9);

    DataConfig c;
    c.file = "data/x.csv";
    c.window = 7;
    c.validationShare = 0.3;
    c.features.setEnabled(Feature::Month, false);
    c.features.atrPeriod = 5;
    c.features.macdSignal = 4;
    c.normalization = "none";
    c.positionalEncoding = true;
    c.fractal = "5bar";
    c.extra["synthetic"] = {{"bars", 5000}};
    const json j = c.toJson();
    ASSERT_EQ(j["features"]["month"].get<bool>(), false);
    ASSERT_EQ(j["features"]["macdSignalPeriod"].get<int>(), 4);
    ASSERT_EQ(j["synthetic"]["bars"].get<int>(), 5000);
    const DataConfig r = DataConfig::fromJson(j);
    ASSERT_EQ(r.toJson(), j);
    ASSERT_EQ(r.featureCount(), 11);
    ASSERT_EQ(int(r.fractalRule()), int(FractalRule::FiveBar));
}
TEST(DataPipeline, configErrorsNameTheKey) {
    ASSERT_EQ(expectThrow({{"window", 1}}), std::string("data.window: must be an integer >= 2"));
    ASSERT_EQ(expectThrow({{"window", "20"}}), std::string("data.window: must be an integer >= 2"));
    ASSERT_EQ(expectThrow({{"window", 20.5}}), std::string("data.window: must be an integer >= 2"));
    ASSERT_EQ(expectThrow({{"validationShare", 0.95}}),
              std::string("data.validationShare: must be a number from 0 to 0.9"));
    ASSERT_EQ(expectThrow({{"source", "db"}}),
              std::string("data.source: must be \"file\" or \"synthetic\""));
    ASSERT_EQ(expectThrow({{"file", 3}}), std::string("data.file: must be a string (a path)"));
    ASSERT_EQ(expectThrow({{"normalization", "minmax"}}),
              std::string("data.normalization: must be \"zscore\" or \"none\""));
    ASSERT_EQ(expectThrow({{"fractal", "7bar"}}),
              std::string("data.fractal: must be \"3bar\" or \"5bar\""));
    ASSERT_EQ(expectThrow({{"positionalEncoding", 1}}),
              std::string("data.positionalEncoding: must be true or false"));
    ASSERT_EQ(expectThrow({{"features", {{"rsiPeriod", 0}}}}),
              std::string("data.features.rsiPeriod: must be an integer >= 1"));
    ASSERT_EQ(expectThrow({{"features", {{"rsi", "yes"}}}}),
              std::string("data.features.rsi: must be true or false"));
    ASSERT_EQ(expectThrow({{"features", {{"macdFast", 30}}}}),
              std::string("data.features.macdFast: must be smaller than macdSlow"));
    ASSERT_EQ(expectThrow({{"features", 5}}), std::string("data.features: must be an object"));
    ASSERT_EQ(expectThrow(json::array()), std::string("data: must be an object"));
    json allOff = json::object();
    for (int i = 0; i < kFeatureKinds; ++i) allOff[featureKey(Feature(i))] = false;
    ASSERT_EQ(expectThrow({{"features", allOff}}),
              std::string("data.features: at least one feature must be enabled"));
    ASSERT_EQ(DataConfig::fromJson({{"window", 20.0}}).window, 20);  // integral float is fine
}
TEST(DataPipeline, resolvesRelativePaths) {
    DataConfig c;
    c.file = "data/x.csv";
    ASSERT_EQ(c.resolvedFile("/home/u/exp"), std::string("/home/u/exp/data/x.csv"));
    ASSERT_EQ(c.resolvedFile(""), std::string("data/x.csv"));
    c.file = "/abs/x.csv";
    ASSERT_EQ(c.resolvedFile("/home/u/exp"), std::string("/abs/x.csv"));
}
TEST(DataPipeline, samplesWindowsAndTargets) {
    const BarSeries bars = makeBars(300);
    DataConfig c;
    c.window = 10;
    c.normalization = "none";
    const DataResult r = buildDataSplitFromBars(c, bars);
    ASSERT_TRUE(r.ok) << r.error.c_str();
    const SampleSet& tr = r.split.train;
    const SampleSet& va = r.split.validation;
    ASSERT_EQ(tr.inputShape, (Shape{10, 12}));
    ASSERT_EQ(va.inputShape, (Shape{10, 12}));
    ASSERT_EQ(tr.outputs, 3);
    ASSERT_EQ(r.featureNames.size(), size_t(12));
    // First sample: warm-up 33 (MACD signal) + window 10 - 1; last: bar n-2.
    const size_t first = 33 + 10 - 1, last = 298;
    ASSERT_EQ(r.trainFirstBar, first);
    ASSERT_EQ(barOf(tr.time.front()), first);
    ASSERT_EQ(barOf(va.time.back()), last);   // the last bar (no right neighbour) is unused
    const size_t samples = last - first + 1;  // 257
    const size_t nominalVal = size_t(std::llround(samples * 0.2));
    ASSERT_EQ(tr.size(), samples - nominalVal);
    ASSERT_EQ(va.size(), nominalVal - 9);  // W-1 dropped at the boundary
    ASSERT_EQ(r.droppedAtBoundary, size_t(9));
    ASSERT_EQ(tr.time.size(), tr.size());

    const FeatureMatrix m = computeFeatures(bars, c.features);
    const std::vector<uint8_t> flags = fractalFlags(bars.high, bars.low, FractalRule::ThreeBar);
    size_t patterns = 0;
    for (const SampleSet* set : {&tr, &va})
        for (size_t s = 0; s < set->size(); ++s) {
            const size_t t = barOf(set->time[s]);
            // inputs are bars t-W+1 .. t: row W-1 is bar t itself, never t+1
            for (int u = 0; u < 10; ++u)
                for (int k = 0; k < 12; ++k)
                    ASSERT_FUZZY_EQ(set->input(s)[u * 12 + k], float(m.at(t - 9 + size_t(u), k)));
            const float* y = set->target(s);
            const bool buy = flags[t] & kFractalBuy, sell = flags[t] & kFractalSell;
            ASSERT_FUZZY_EQ(y[0], !buy && !sell ? 1.0f : 0.0f);
            ASSERT_FUZZY_EQ(y[1], buy ? 1.0f : 0.0f);
            ASSERT_FUZZY_EQ(y[2], sell ? 1.0f : 0.0f);
            patterns += buy || sell;
        }
    ASSERT_TRUE(patterns > 50);  // the series has fractals of both kinds
}
TEST(DataPipeline, splitHasNoOverlapAndLeaksNothing) {
    DataConfig c;
    c.window = 20;
    c.validationShare = 0.25;
    const BarSeries bars = makeBars(600, 5);
    const DataResult a = buildDataSplitFromBars(c, bars);
    ASSERT_TRUE(a.ok) << a.error.c_str();
    const size_t trainLast = barOf(a.split.train.time.back());
    ASSERT_EQ(trainLast, a.trainLastBar);
    // chronological and disjoint: every validation window starts after the last training
    // sample's bar
    const size_t valFirst = barOf(a.split.validation.time.front());
    ASSERT_EQ(valFirst, a.validationFirstBar);
    ASSERT_EQ(valFirst - 19, trainLast + 1);
    for (size_t s = 1; s < a.split.validation.size(); ++s)
        ASSERT_TRUE(a.split.validation.time[s] > a.split.validation.time[s - 1]);

    // z-score statistics come from training bars only: statistics over the training
    // windows' bars reproduce them, and changing any later bar changes no training input.
    FeatureMatrix m = computeFeatures(bars, c.features);
    const ZScoreStats s = fitZScore(m, a.trainFirstBar - 19, trainLast);
    ASSERT_EQ(a.stats.mean, s.mean);
    ASSERT_EQ(a.stats.stddev, s.stddev);
    BarSeries changed = bars;
    for (size_t i = trainLast + 1; i < changed.size(); ++i) {
        changed.high[i] += 10.0;
        changed.close[i] += 5.0;
        changed.volume[i] = 1e6;
    }
    const DataResult b = buildDataSplitFromBars(c, changed);
    ASSERT_TRUE(b.ok) << b.error.c_str();
    ASSERT_EQ(b.split.train.x, a.split.train.x);
    ASSERT_EQ(b.stats.mean, a.stats.mean);
    ASSERT_TRUE(b.split.validation.x != a.split.validation.x);
    // Training inputs are normalized: each feature has mean ~0 over training bars.
    for (int k = 0; k < 12; ++k) {
        double sum = 0;
        for (size_t i = a.trainFirstBar - 19; i <= trainLast; ++i) {
            const double v = (m.at(i, k) - s.mean[size_t(k)]);
            sum += s.stddev[size_t(k)] > 0 ? v / s.stddev[size_t(k)] : v;
        }
        ASSERT_TRUE(std::fabs(sum) < 1e-6 * double(trainLast));
    }
}
TEST(DataPipeline, noValidationAndFiveBar) {
    DataConfig c;
    c.validationShare = 0.0;
    c.fractal = "5bar";
    c.window = 5;
    const DataResult r = buildDataSplitFromBars(c, makeBars(100));
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_EQ(r.split.validation.size(), size_t(0));
    ASSERT_EQ(barOf(r.split.train.time.back()), size_t(97));  // two right neighbours needed
    ASSERT_EQ(r.split.train.size(), size_t(97 - 37 + 1));
}
TEST(DataPipeline, positionalEncodingIsAdded) {
    DataConfig c;
    c.window = 6;
    const BarSeries bars = makeBars(200);
    const DataResult plain = buildDataSplitFromBars(c, bars);
    c.positionalEncoding = true;
    const DataResult pe = buildDataSplitFromBars(c, bars);
    ASSERT_TRUE(plain.ok && pe.ok);
    for (size_t s : {size_t(0), plain.split.train.size() - 1})
        for (int u = 0; u < 6; ++u)
            for (int k = 0; k < 12; ++k) {
                const size_t i = s * 72 + size_t(u * 12 + k);
                ASSERT_FUZZY_EQ(pe.split.train.x[i],
                                plain.split.train.x[i] + float(positionalEncoding(u, k, 12)));
            }
}
TEST(DataPipeline, errors) {
    DataConfig c;
    c.source = "synthetic";
    DataResult r = buildDataSplit(c, "");
    ASSERT_TRUE(!r.ok);
    ASSERT_TRUE(r.error.find("synthetic") != std::string::npos);
    c.source = "file";
    r = buildDataSplit(c, "");
    ASSERT_EQ(r.error, std::string("data.file: no bar file given"));
    c.file = "bad_high_low.csv";
    r = buildDataSplit(c, NNWB_TEST_FIXTURES);  // the loader's message, unchanged
    ASSERT_EQ(r.error, std::string("bad_high_low.csv:3: high 1.0712 is below low 1.0720"));
    c.file = "mt5_tab.csv";  // 6 bars: far too few
    r = buildDataSplit(c, NNWB_TEST_FIXTURES);
    ASSERT_TRUE(!r.ok);
    ASSERT_EQ(r.error, std::string("mt5_tab.csv: too few bars: this experiment needs at least 54 "
                                   "bars, file has 6 (indicator warm-up 33 + window 20 + 1 bar "
                                   "after it for the fractal label)"));
    c.window = 1;
    ASSERT_EQ(buildDataSplitFromBars(c, makeBars(100)).error,
              std::string("data.window: must be an integer >= 2"));
    c.window = 20;
    c.validationShare = 0.05;
    r = buildDataSplitFromBars(c, makeBars(100));  // 47 samples, 2 validation - 19 < 1
    ASSERT_TRUE(!r.ok);
    ASSERT_TRUE(r.error.find("validation part") != std::string::npos);
}
TEST(DataPipeline, loadsFromFileRelativeToBaseDir) {
    DataConfig c;
    c.file = "mt4.csv";
    c.window = 2;
    c.validationShare = 0;
    c.features.enabled.fill(false);
    c.features.setEnabled(Feature::CloseOpen, true);
    const DataResult r = buildDataSplit(c, NNWB_TEST_FIXTURES);
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_EQ(r.bars.size(), size_t(6));
    ASSERT_EQ(r.split.train.size(), size_t(4));  // bars 1..4
    ASSERT_EQ(r.split.train.inputShape, (Shape{2, 1}));
}
