// Model bundles and predictions: a bundle saved from a run on real bars carries the data
// settings, statistics, outputs, epoch and version and loads back; a plain weights file is
// not a bundle but still loads for training; the Predictor rebuilds the run's validation
// samples bit for bit and, on the CPU backend, gives bit-equal outputs and the same metrics
// as the run's validation pass; bars the model cannot use are refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <memory>
#include <string>

#include "common/FuzzyCompare.h"
#include "common/TestUtil.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/ModelBundle.h"
#include "model/NetworkWeights.h"
#include "model/PredictionReport.h"
#include "model/Predictor.h"
#include "model/TrainingSession.h"
#include "model/data/DataConfig.h"
#include "model/data/DataPipeline.h"
#include "model/data/DateTime.h"

using namespace nnwb;

namespace {

// A small stack with a sequence-wide norm (its output depends on the whole sample) on the
// bundled EURUSD H1 bars: trains one epoch in about a second on the CPU backend.
Experiment smallExperiment() {
    nlohmann::json j = {
        {"formatVersion", 1},
        {"name", "bundle test"},
        {"data",
         {{"file", defaultDataFile()},
          {"window", 8},
          {"validationShare", 0.2},
          {"indicators", "mt5"},
          {"positionalEncoding", true}}},
        {"model",
         {{"layers",
           {{{"type", "conv"},
             {"window", 12},
             {"step", 12},
             {"filters", 8},
             {"activation", "sigmoid"}},
            {{"type", "attention"}, {"key_size", 4}, {"norm", "sequence"}},
            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
        {"training", {{"epochs", 1}, {"batchSize", 32}, {"seed", 7}, {"device", "cpu"}}}};
    return Experiment::fromJson(j);
}

}  // namespace

TEST(ModelBundle, bundleRoundTripAndBitEqualValidation) {
    const Experiment exp = smallExperiment();
    TrainingSession session(exp);
    const ExperimentData& data = session.data();
    ASSERT_TRUE(data.priceData);
    const EpochReport rep = session.trainer().runEpoch();
    ASSERT_TRUE(rep.validation.samples > 0);

    const std::string dir = test::tempDir();
    const std::string path = dir + "/model.safetensors";
    makeModelBundle(exp, data, readWeights(session.network()), session.network().toJson(),
                    rep.epoch)
        .save(path);
    const ModelBundle b = ModelBundle::load(path);
    ASSERT_EQ(b.epoch, 1);
    ASSERT_EQ(b.appVersion, std::string(appVersion()));
    ASSERT_EQ(b.outputs, (std::vector<std::string>{"none", "buy", "sell"}));
    ASSERT_EQ(b.data.window, 8);
    ASSERT_EQ(int(b.data.features.definitions), int(IndicatorDefinitions::Mt5));
    ASSERT_TRUE(b.data.positionalEncoding);
    ASSERT_EQ(b.data.file, std::string("EURUSD_H1_2017-2018.csv"));
    ASSERT_EQ(b.timeframe, int64_t(3600));
    ASSERT_EQ(b.batchSize, 32);
    ASSERT_EQ(b.features, data.featureNames);
    ASSERT_EQ(b.stats.mean, data.stats.mean);  // exact: JSON keeps every bit of a double
    ASSERT_EQ(b.stats.stddev, data.stats.stddev);
    ASSERT_EQ(b.validationFirst, data.bars->time[data.validationFirstBar]);
    ASSERT_EQ(b.validationLast, data.bars->time[data.validationLastBar]);
    ASSERT_EQ(b.validationSamples, data.split.validation.size());

    // The inputs of the validation range are the run's validation samples, bit for bit.
    const PredictionInputs in =
        buildPredictionInputs(b, *data.bars, b.validationFirst, b.validationLast);
    const SampleSet& val = data.split.validation;
    ASSERT_EQ(in.samples.size(), val.size());
    ASSERT_TRUE(std::memcmp(in.samples.x.data(), val.x.data(), val.x.size() * 4) == 0);
    ASSERT_TRUE(std::memcmp(in.samples.y.data(), val.y.data(), val.y.size() * 4) == 0);

    // Reference: the run's network over its validation part in the run's batches.
    Network& net = session.network();
    Backend& be = session.backend();
    Buffer x = be.alloc(val.inputShape.size() * 32);
    std::vector<float> want(val.size() * 3);
    for (size_t first = 0; first < val.size(); first += 32) {
        const size_t count = std::min<size_t>(32, val.size() - first);
        be.upload(x, val.input(first), count * val.inputShape.size());
        BufRef y = net.forward(x, static_cast<int>(count), false);
        be.download(y, want.data() + first * 3, count * 3);
    }

    Predictor p(b, "cpu");
    const PredictionResult r = p.run(in, *data.bars);
    ASSERT_EQ(r.rows.size(), val.size());
    ASSERT_EQ(r.labelled, val.size());
    for (size_t i = 0; i < r.rows.size(); ++i) {
        if (std::memcmp(r.rows[i].outputs.data(), want.data() + 3 * i, 12) != 0)
            FAIL() << "row " << i << " (" << formatBarTime(r.rows[i].time)
                   << "): " << std::setprecision(9) << r.rows[i].outputs[0] << " "
                   << r.rows[i].outputs[1] << " " << r.rows[i].outputs[2] << ", the run's pass "
                   << want[3 * i] << " " << want[3 * i + 1] << " " << want[3 * i + 2];
    }
    // The metrics equal the run's validation figures exactly.
    ASSERT_EQ(r.metrics.samples, rep.validation.samples);
    ASSERT_FUZZY_EQ(r.metrics.loss, rep.validation.loss);
    ASSERT_FUZZY_EQ(r.metrics.accuracyPct, rep.validation.accuracyPct);
    ASSERT_FUZZY_EQ(r.metrics.missedPct, rep.validation.missedPct);
    ASSERT_EQ(r.metrics.confusion, rep.validation.confusion);
    ASSERT_EQ(r.metrics.signalCount, rep.validation.signalCount);

    // The whole file: every bar with a full window, the last one without a label.
    const PredictionResult all = p.predict(*data.bars);
    ASSERT_EQ(all.rows.front().bar, firstPredictableBar(b));
    ASSERT_EQ(all.rows.back().bar, data.bars->size() - 1);
    ASSERT_TRUE(!all.rows.back().labelled);
    ASSERT_EQ(labelName(all.rows.back()), std::string());
    ASSERT_EQ(all.labelled, all.rows.size() - 1);
    const std::string csv = predictionCsv(all);
    ASSERT_TRUE(csv.rfind("time,close,none,buy,sell,signal,label\n", 0) == 0);
    ASSERT_EQ(size_t(std::count(csv.begin(), csv.end(), '\n')), all.rows.size() + 1);
}

TEST(ModelBundle, plainWeightsAreNotABundleButStillLoad) {
    const Experiment exp = smallExperiment();
    TrainingSession session(exp);
    const std::string path = test::tempDir() + "/plain.safetensors";
    saveWeightsFile(session.network(), path);
    try {
        ModelBundle::load(path);
        FAIL() << "a plain weights file loaded as a bundle";
    } catch (const ModelBundleError& e) {
        ASSERT_TRUE(std::string(e.what()).find("not a model bundle") != std::string::npos)
            << e.what();
        ASSERT_TRUE(std::string(e.what()).find(path) != std::string::npos) << e.what();
    }
    // A bundle is a weights file too: training loads it like a plain one.
    const std::string bundlePath = test::tempDir() + "/bundle.safetensors";
    makeModelBundle(exp, session.data(), readWeights(session.network()), session.network().toJson(),
                    0)
        .save(bundlePath);
    loadWeightsFile(session.network(), bundlePath);
    loadWeightsFile(session.network(), path);
}

// Found by a hostile pass (issue 41): a negative standard deviation, time frame "0" and NaN
// weights loaded as a model.
TEST(ModelBundle, impossibleValuesAreRefusedWithTheKey) {
    const Experiment exp = smallExperiment();
    TrainingSession session(exp);
    const ModelBundle b = makeModelBundle(exp, session.data(), readWeights(session.network()),
                                          session.network().toJson(), 1);
    const std::string path = test::tempDir() + "/impossible.safetensors";
    auto refusal = [&](TensorMap tensors, const std::map<std::string, std::string>& meta) {
        saveSafetensors(path, tensors, meta);
        try {
            ModelBundle::load(path);
        } catch (const ModelBundleError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    ASSERT_EQ(refusal(b.tensors, b.metadata()), "accepted");
    auto meta = b.metadata();
    nlohmann::json norm = nlohmann::json::parse(meta["normalization"]);
    norm["stddev"][1] = -2.0;
    meta["normalization"] = norm.dump();
    std::string why = refusal(b.tensors, meta);
    EXPECT_NE(
        why.find(path + ": __metadata__.normalization.stddev[1]: must be a finite number >= 0"),
        std::string::npos)
        << why;
    meta = b.metadata();
    meta["timeframe"] = "0";
    why = refusal(b.tensors, meta);
    EXPECT_NE(why.find("__metadata__.timeframe: must be an integer from 1"), std::string::npos)
        << why;
    TensorMap nan = b.tensors;
    nan.begin()->second.values.back() = std::nanf("");
    why = refusal(nan, b.metadata());
    EXPECT_NE(why.find("tensor " + nan.begin()->first + ": value"), std::string::npos) << why;
    EXPECT_NE(why.find("is NaN"), std::string::npos) << why;
}

TEST(ModelBundle, barsTheModelCannotUseAreRefused) {
    const Experiment exp = smallExperiment();
    TrainingSession session(exp);
    const ModelBundle b = makeModelBundle(exp, session.data(), readWeights(session.network()),
                                          session.network().toJson(), 0);
    const BarSeries& all = *session.data().bars;
    ASSERT_TRUE(b.usesVolume());
    auto reason = [&](const BarSeries& bars) {
        try {
            buildPredictionInputs(b, bars);
        } catch (const PredictionInputError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    BarSeries noVolume = all;
    noVolume.hasVolume = false;
    ASSERT_TRUE(reason(noVolume).find("tick volume") != std::string::npos)
        << reason(noVolume).c_str();
    BarSeries m30 = all;
    m30.timeframe = 1800;
    ASSERT_TRUE(reason(m30).find("M30") != std::string::npos) << reason(m30).c_str();
    ASSERT_TRUE(reason(m30).find("H1") != std::string::npos) << reason(m30).c_str();
    BarSeries few = all;
    // The training minimum: one window after the warm-up plus the bar its label needs.
    const size_t need = firstPredictableBar(b) + 2;
    ASSERT_EQ(need, barsNeeded(b.data).minimum);
    for (auto* v : {&few.open, &few.high, &few.low, &few.close, &few.volume}) v->resize(need - 1);
    few.time.resize(need - 1);
    const std::string tooFew = reason(few);
    ASSERT_TRUE(tooFew.find("too few bars") != std::string::npos) << tooFew.c_str();
    ASSERT_TRUE(tooFew.find("at least " + std::to_string(need)) != std::string::npos)
        << tooFew.c_str();
    few.time.push_back(all.time[need - 1]);
    for (auto* v : {&few.open, &few.high, &few.low, &few.close, &few.volume}) v->push_back(1.0);
    ASSERT_EQ(reason(few), std::string());
}
