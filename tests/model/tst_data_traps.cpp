// Silent data traps (issue 24, part 3): a feature constant in training (tick volume 0 on every
// bar of the bundled EURUSD file) is named in a warning and enters the model as 0, so a model
// applied to bars with real volume gives the same outputs; predict names the features whose
// inputs lie far outside the training range (a EURUSD model on XAUUSD); the scale-free features
// follow their formulas and do not change when prices are scaled by 1000; one minimum number of
// bars (warm-up + window + fractal reach) for training and predict.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "common/FuzzyCompare.h"
#include "model/ExperimentData.h"
#include "model/ModelBundle.h"
#include "model/NetworkWeights.h"
#include "model/Predictor.h"
#include "model/TrainingSession.h"
#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/data/DataPipeline.h"
#include "model/data/FeatureChecks.h"
#include "model/data/Features.h"
#include "model/data/Indicators.h"
#include "model/data/Normalization.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

namespace {

// A small untrained model (its initial weights) on the bundled EURUSD H1 bars, with every
// feature of the MQL5 expert (tick volume included, as the defaults had it).
struct SmallRun {
    Experiment experiment;
    std::unique_ptr<TrainingSession> session;
    ModelBundle bundle;
};

std::unique_ptr<SmallRun> smallRun(nlohmann::json features = nlohmann::json::object()) {
    nlohmann::json j = {
        {"formatVersion", 1},
        {"name", "traps"},
        {"data",
         {{"file", defaultDataFile()},
          {"window", 8},
          {"validationShare", 0.2},
          {"indicators", "mt5"},
          {"features", features}}},
        {"model",
         {{"layers",
           {{{"type", "conv"}, {"window", 0}, {"step", 0}, {"filters", 6}, {"activation", "tanh"}},
            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
        {"training", {{"epochs", 1}, {"batchSize", 32}, {"seed", 5}}}};
    auto r = std::make_unique<SmallRun>();
    r->experiment = Experiment::fromJson(j);
    r->session = std::make_unique<TrainingSession>(r->experiment);
    r->bundle =
        makeModelBundle(r->experiment, r->session->data(), readWeights(r->session->network()),
                        r->session->network().toJson(), 1);
    return r;
}

BarSeries lastBars(const BarSeries& all, size_t count) {
    BarSeries b = all;
    const auto first = std::ptrdiff_t(all.size() - count);
    for (auto* v : {&b.open, &b.high, &b.low, &b.close, &b.volume})
        v->erase(v->begin(), v->begin() + first);
    b.time.erase(b.time.begin(), b.time.begin() + first);
    return b;
}

// A series of `n` H1 bars whose prices are `scale` times a fixed pattern.
BarSeries pattern(size_t n, double scale) {
    BarSeries b;
    b.hasVolume = true;
    b.timeframe = 3600;
    for (size_t i = 0; i < n; ++i) {
        const double base = 1.0 + 0.01 * std::sin(0.3 * double(i)) + 0.002 * double(i % 5);
        const double open = base, close = base + 0.003 * std::cos(0.7 * double(i));
        b.time.push_back(1577836800 + int64_t(i) * 3600);
        b.open.push_back(scale * open);
        b.close.push_back(scale * close);
        b.high.push_back(scale * (std::max(open, close) + 0.001 + 0.0005 * double(i % 3)));
        b.low.push_back(scale * (std::min(open, close) - 0.001 - 0.0004 * double(i % 4)));
        b.volume.push_back(100.0 + double(i % 7));
    }
    return b;
}

}  // namespace

// stddev 0 means "no information": 0 after normalization, whatever the value.
TEST(DataTraps, constantFeatureNormalizesToZero) {
    FeatureMatrix m;
    m.bars = 3;
    m.features = 2;
    m.values = {0.0, 1.0, 0.0, 2.0, 0.0, 3.0};
    m.names = {"tickVolume", "hour"};
    const ZScoreStats s = fitZScore(m, 0, 2);
    ASSERT_FUZZY_EQ(s.stddev[0], 0.0);
    ASSERT_TRUE(isConstantStat(s, 0));
    ASSERT_TRUE(!isConstantStat(s, 1));
    ASSERT_FUZZY_EQ(zScoreScale(s)[0], 0.0);
    m.values[0] = 384500.0;  // SPY's volume on bars of a model trained on zeros
    applyZScore(m, s);
    ASSERT_FUZZY_EQ(m.at(0, 0), 0.0);
    ASSERT_FUZZY_EQ(m.at(1, 0), 0.0);
    ASSERT_TRUE(std::fabs(m.at(0, 1) + std::sqrt(1.5)) < 1e-12);
}

// The bundled file has no tick volume: training with tickVolume on warns and names it;
// predict on bars with volume gives exactly the outputs of the same bars with volume 0.
TEST(DataTraps, zeroVolumeIsWarnedAndIgnoredInPredict) {
    const auto run = smallRun();
    const ExperimentData& data = run->session->data();
    bool named = false;
    for (const std::string& w : data.warnings)
        named = named || (w.find("tickVolume") != std::string::npos &&
                          w.find("EURUSD_H1_2017-2018.csv") != std::string::npos);
    ASSERT_TRUE(named) << (data.warnings.empty() ? "no warning" : data.warnings.front());
    ASSERT_TRUE(isConstantStat(run->bundle.stats, 3));  // tickVolume, the 4th feature

    const BarSeries zero = lastBars(*data.bars, 300);
    BarSeries volume = zero;
    for (size_t i = 0; i < volume.size(); ++i) volume.volume[i] = 1000.0 + double(i % 50) * 37;
    Predictor p(run->bundle, "cpu");
    const PredictionResult a = p.predict(zero), b = p.predict(volume);
    ASSERT_EQ(a.rows.size(), b.rows.size());
    for (size_t i = 0; i < a.rows.size(); ++i)
        for (size_t o = 0; o < 3; ++o) ASSERT_FUZZY_EQ(a.rows[i].outputs[o], b.rows[i].outputs[o]);
    // ... and predict says the volume differs from the training constant.
    ASSERT_TRUE(a.outOfRange.empty());
    ASSERT_EQ(b.outOfRange.size(), size_t(1));
    ASSERT_EQ(b.outOfRange[0].feature, std::string("tickVolume"));
    ASSERT_TRUE(b.outOfRange[0].constantInTraining);
    ASSERT_FUZZY_EQ(b.outOfRange[0].share, 1.0);
}

TEST(DataTraps, constantFeaturesOfTheBundledFile) {
    const LoadResult r = loadBarFile(defaultDataFile());
    ASSERT_TRUE(r.ok);
    const auto c = constantFeaturesOfFile(r.bars, FeatureSpec{});
    ASSERT_EQ(c.size(), size_t(1));
    ASSERT_EQ(int(c[0].feature), int(Feature::TickVolume));
    ASSERT_FUZZY_EQ(c[0].value, 0.0);
    const std::string w = constantFeatureWarning("EURUSD.csv", c[0], false);
    ASSERT_TRUE(w.find("EURUSD.csv: feature tickVolume is 0 on every bar") == 0) << w.c_str();
    const FeatureSpec off = withoutConstantFeatures(FeatureSpec{}, c);
    ASSERT_TRUE(!off.isEnabled(Feature::TickVolume));
    ASSERT_EQ(off.count(), 11);
    // The bundled presets fit the file: none of them uses the feature.
    for (const char* preset : {"mql5-fractal-5x8", "mql5-fractal-12x12", "attention-single-head",
                               "gpt-block", "lightweight-convolution", "multihead-attention"}) {
        const Experiment e =
            Experiment::load(std::string(NNWB_RESOURCE_DIR) + "/presets/" + preset + ".json");
        ASSERT_TRUE(!DataConfig::fromJson(e.data).features.isEnabled(Feature::TickVolume))
            << preset;
    }
    const Experiment d =
        Experiment::load(std::string(NNWB_RESOURCE_DIR) + "/experiments/default.json");
    ASSERT_TRUE(!DataConfig::fromJson(d.data).features.isEnabled(Feature::TickVolume));
}

// A EURUSD model on XAUUSD: the price-unit features are named, with share and worst z; on
// its own validation range nothing is.
// A feature constant on the training part only is said to be so, not "on every bar" (issue
// 41: tick volume 0 before the validation part, other values in it, was warned as "0 on every
// bar").
TEST(DataTraps, constantOnTheTrainingPartOnly) {
    const LoadResult r = loadBarFile(defaultDataFile());
    ASSERT_TRUE(r.ok);
    DataConfig c;
    c.window = 8;
    c.validationShare = 0.2;
    c.features.setEnabled(Feature::TickVolume, true);
    auto warningOf = [&](const BarSeries& bars) {
        const DataResult d = buildDataSplitFromBars(c, bars);
        std::string found;
        for (const std::string& w : d.warnings)
            if (w.find("tickVolume") != std::string::npos) found = w;
        return found;
    };
    const std::string all = warningOf(r.bars);
    ASSERT_TRUE(all.find("tickVolume is 0 on every bar:") != std::string::npos) << all.c_str();
    BarSeries later = r.bars;  // volume in the last tenth: the validation part has some
    for (size_t i = later.size() - later.size() / 10; i < later.size(); ++i)
        later.volume[i] = 100.0 + double(i % 7);
    const std::string part = warningOf(later);
    ASSERT_TRUE(part.find("tickVolume is 0 on every bar of the training part") != std::string::npos)
        << part.c_str();
    ASSERT_TRUE(part.find("on every bar:") == std::string::npos) << part.c_str();
}

TEST(DataTraps, outOfRangeInputsAreNamed) {
    const std::string gold = NNWB_SHARED_DATA_DIR "/XAUUSD_H1.csv";
    if (!std::filesystem::exists(gold)) GTEST_SKIP() << "../shared/data/XAUUSD_H1.csv is not here";
    const auto run = smallRun({{"tickVolume", false}});
    const ExperimentData& data = run->session->data();
    const PredictionInputs own =
        buildPredictionInputs(run->bundle, *data.bars, data.bars->time[data.validationFirstBar]);
    ASSERT_TRUE(own.outOfRange.empty());
    const LoadResult g = loadBarFile(gold);
    ASSERT_TRUE(g.ok);
    const PredictionInputs in = buildPredictionInputs(run->bundle, lastBars(g.bars, 5000));
    std::vector<std::string> names;
    for (const auto& f : in.outOfRange) names.push_back(f.feature);
    for (const char* want : {"closeOpen", "highOpen", "lowOpen", "atr", "macdMain"}) {
        const bool found = std::find(names.begin(), names.end(), want) != names.end();
        ASSERT_TRUE(found) << want;
    }
    for (const auto& f : in.outOfRange) {
        ASSERT_TRUE(f.share > kOutOfRangeShare);
        if (f.feature == "atr") {
            ASSERT_TRUE(f.worstZ > 100.0) << outOfRangeText(f);
        }
    }
    // RSI, hour ... are scale-free: not named.
    ASSERT_TRUE(std::find(names.begin(), names.end(), "rsi") == names.end());
    ASSERT_TRUE(std::find(names.begin(), names.end(), "hour") == names.end());
}

// (close-open)/ATR and the rest, by their formulas, and unchanged when prices are x1000.
TEST(DataTraps, scaleFreeFeatures) {
    FeatureSpec spec;
    spec.enabled.fill(false);
    for (Feature f :
         {Feature::CloseOpenAtr, Feature::HighOpenAtr, Feature::LowOpenAtr, Feature::CloseReturn,
          Feature::AtrClose, Feature::MacdMainAtr, Feature::MacdSignalAtr})
        spec.setEnabled(f, true);
    spec.atrPeriod = 5;
    const BarSeries a = pattern(120, 1.0), b = pattern(120, 1000.0);
    const FeatureMatrix ma = computeFeatures(a, spec), mb = computeFeatures(b, spec);
    ASSERT_EQ(ma.names,
              (std::vector<std::string>{"closeOpenAtr", "highOpenAtr", "lowOpenAtr", "closeReturn",
                                        "atrClose", "macdMainAtr", "macdSignalAtr"}));
    ASSERT_EQ(ma.firstValid, macdSignalWarmup(12, 26, 9));
    const std::vector<double> atr = atrSma(a.high, a.low, a.close, 5);
    const MacdSeries md = macdMt5(a.close, 12, 26, 9);
    for (size_t i = ma.firstValid; i < a.size(); ++i) {
        const double want[7] = {(a.close[i] - a.open[i]) / atr[i],
                                (a.high[i] - a.open[i]) / atr[i],
                                (a.low[i] - a.open[i]) / atr[i],
                                (a.close[i] - a.close[i - 1]) / a.close[i - 1],
                                atr[i] / a.close[i],
                                md.main[i] / atr[i],
                                md.signal[i] / atr[i]};
        for (int k = 0; k < 7; ++k) {
            ASSERT_TRUE(std::fabs(ma.at(i, k) - want[k]) <=
                        1e-12 * std::max(1.0, std::fabs(want[k])));
            ASSERT_TRUE(std::fabs(ma.at(i, k) - mb.at(i, k)) <=
                        1e-9 * std::max(1.0, std::fabs(want[k])))
                << ma.names[size_t(k)];
        }
    }
    // Off unless switched on: a data section without the keys keeps the twelve.
    const DataConfig old = DataConfig::fromJson(nlohmann::json::object());
    ASSERT_EQ(old.featureCount(), 12);
    ASSERT_TRUE(!old.features.isEnabled(Feature::CloseOpenAtr));
    Feature f;
    ASSERT_TRUE(featureFromKey("macdSignalAtr", f));
    ASSERT_EQ(int(f), int(Feature::MacdSignalAtr));
    ASSERT_TRUE(featureInfo(Feature::CloseOpenAtr).scaleFree);
    ASSERT_TRUE(!featureInfo(Feature::CloseOpen).scaleFree);
}

// One minimum (warm-up 33 + window 20 + 1): training and predict refuse 53 bars alike,
// and both say "needs at least 54 bars, file has N".
TEST(DataTraps, oneMinimumNumberOfBars) {
    DataConfig cfg;
    cfg.features.definitions = IndicatorDefinitions::Mt5;
    const BarNeeds n = barsNeeded(cfg);
    ASSERT_EQ(n.warmup, size_t(33));
    ASSERT_EQ(n.minimum, size_t(54));
    const LoadResult r = loadBarFile(defaultDataFile());
    ASSERT_TRUE(r.ok);
    cfg.validationShare = 0.0;
    BarSeries b19 = lastBars(r.bars, 19);
    b19.source = "few.csv";
    const DataResult t19 = buildDataSplitFromBars(cfg, b19);
    ASSERT_TRUE(!t19.ok);
    ASSERT_TRUE(t19.error.find("needs at least 54 bars, file has 19") != std::string::npos)
        << t19.error;
    ASSERT_TRUE(!buildDataSplitFromBars(cfg, lastBars(r.bars, 53)).ok);
    ASSERT_TRUE(buildDataSplitFromBars(cfg, lastBars(r.bars, 54)).ok);

    ModelBundle bundle;
    bundle.data = cfg;
    bundle.timeframe = 3600;
    const std::string p53 = checkBarsForBundle(bundle, lastBars(r.bars, 53));
    ASSERT_TRUE(p53.find("needs at least 54 bars, file has 53") != std::string::npos)
        << p53.c_str();
    ASSERT_EQ(checkBarsForBundle(bundle, lastBars(r.bars, 54)), std::string());
    ASSERT_EQ(planSplit(cfg, 19, "few.csv").error, t19.error);
}
