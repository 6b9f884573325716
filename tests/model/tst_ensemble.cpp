// Seed ensembles (model/ensemble/, docs/ensembles.md): the combined output is the members'
// mean, its agreement the share of members voting for its class and its spread their standard
// deviation of that class's output (worked by hand); an ensemble bundle saves and loads every
// member's weights and figures; an ensemble of 1, members of different architectures and a
// member count that disagrees with the weights are refused naming the key or tensor, and a
// refused save leaves the file as it was; the trading setting minAgreement keeps an ensemble's
// weakly agreed signals from acting and is refused outside [0, 1].
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "common/TestUtil.h"
#include "model/Experiment.h"
#include "model/ModelBundle.h"
#include "model/NetworkWeights.h"
#include "model/TrainingSession.h"
#include "model/ensemble/EnsembleBundle.h"
#include "model/ensemble/EnsemblePrediction.h"
#include "model/trading/TradingEvaluation.h"

using namespace nnwb;

namespace {

Experiment tinyExperiment() {
    nlohmann::json j = {
        {"formatVersion", 2},
        {"name", "ensemble test"},
        {"data", {{"file", defaultDataFile()}, {"window", 4}}},
        {"model",
         {{"layers",
           {{{"type", "dense"}, {"neurons", 5}, {"activation", "tanh"}},
            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
        {"training", {{"epochs", 1}, {"batchSize", 32}, {"seed", 3}, {"device", "cpu"}}}};
    return Experiment::fromJson(j);
}

// Two members of the tiny network: its initial weights and the same plus 0.25.
EnsembleBundle twoMembers() {
    static const EnsembleBundle kBundle = [] {
        const Experiment exp = tinyExperiment();
        TrainingSession session(exp);
        EnsembleBundle b;
        b.common = makeModelBundle(exp, session.data(), {}, session.network().toJson(), 2);
        TensorMap w = readWeights(session.network());
        b.weights.push_back(w);
        for (auto& [name, t] : w)
            for (float& v : t.values) v += 0.25f;
        b.weights.push_back(w);
        b.members = {{"ensemble test seed=3", 3, 2, true, 0.2, 40.0, 60.0},
                     {"ensemble test seed=4", 4, 1, false, 0, 0, 0}};
        return b;
    }();
    return kBundle;
}

std::string refusal(const std::function<void()>& f) {
    try {
        f();
    } catch (const ModelBundleError& e) {
        return e.what();
    }
    return "(not refused)";
}

// Saves `b` without the checks save() makes (a file another program could have written).
std::string writeUnchecked(const EnsembleBundle& b, const std::string& name) {
    const std::string path = test::tempDir() + "/" + name;
    saveSafetensors(path, b.tensors(), b.metadata());
    return path;
}

std::string fileText(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

BarSeries fiveBars() {
    BarSeries b;
    const double close[] = {10.0, 10.2, 10.4, 10.1, 9.8};
    for (size_t i = 0; i < 5; ++i) {
        b.time.push_back(1583143200 + int64_t(i) * 3600);
        b.open.push_back(i ? close[i - 1] : 10.0);
        b.high.push_back(close[i] + 0.1);
        b.low.push_back(close[i] - 0.3);
        b.close.push_back(close[i]);
        b.volume.push_back(0);
    }
    b.point = 0.01;
    b.timeframe = 3600;
    b.source = "/data/TEST.csv";
    return b;
}

}  // namespace

TEST(Ensemble, combinedOutputAgreementAndSpreadByHand) {
    // Members vote buy, buy, sell, none; the mean [0.25, 0.45, 0.3] votes buy.
    const CombinedOutput c = combineOutputs(
        {{0.1f, 0.8f, 0.1f}, {0.2f, 0.6f, 0.2f}, {0.1f, 0.2f, 0.7f}, {0.6f, 0.2f, 0.2f}});
    EXPECT_FLOAT_EQ(c.mean[0], 0.25f);
    EXPECT_FLOAT_EQ(c.mean[1], 0.45f);
    EXPECT_FLOAT_EQ(c.mean[2], 0.3f);
    EXPECT_EQ(c.signal, 1);
    EXPECT_FLOAT_EQ(c.agreement, 0.5f);
    // buy outputs 0.8, 0.6, 0.2, 0.2 around 0.45: squares .1225 .0225 .0625 .0625, mean .0675.
    EXPECT_NEAR(c.spread, std::sqrt(0.0675), 1e-6);
    const CombinedOutput one = combineOutputs({{0.1f, 0.2f, 0.7f}});
    EXPECT_EQ(one.signal, 2);
    EXPECT_FLOAT_EQ(one.agreement, 1.0f);
    EXPECT_FLOAT_EQ(one.spread, 0.0f);
    const float target[3] = {0, 1, 0};
    EXPECT_NEAR(combinedLoss(LossKind::Mse, c.mean, target),
                (0.25 * 0.25 + 0.55 * 0.55 + 0.3 * 0.3) / 3, 1e-6);
    EXPECT_NEAR(combinedLoss(LossKind::CrossEntropy, c.mean, target), -std::log(0.45), 1e-6);
}

TEST(Ensemble, bundleRoundTripKeepsEveryMember) {
    const EnsembleBundle b = twoMembers();
    const std::string path = test::tempDir() + "/ens.safetensors";
    b.save(path);
    const EnsembleBundle back = EnsembleBundle::load(path);
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back.combine, "mean");
    for (size_t m = 0; m < 2; ++m) {
        EXPECT_EQ(back.members[m].name, b.members[m].name);
        EXPECT_EQ(back.members[m].seed, b.members[m].seed);
        EXPECT_EQ(back.members[m].epoch, b.members[m].epoch);
        EXPECT_EQ(back.members[m].hasValidation, b.members[m].hasValidation);
        ASSERT_EQ(back.weights[m].size(), b.weights[m].size());
        for (const auto& [name, t] : b.weights[m]) {
            EXPECT_EQ(back.weights[m].at(name).shape, t.shape);
            EXPECT_EQ(back.weights[m].at(name).values, t.values) << name;
        }
        EXPECT_EQ(back.member(m).epoch, b.members[m].epoch);
    }
    EXPECT_DOUBLE_EQ(back.members[0].validationAccuracy, 40.0);
    EXPECT_EQ(back.common.model, b.common.model);
    EXPECT_EQ(back.common.stats.mean, b.common.stats.mean);
    // Read as one network's bundle it is refused, not half-read.
    EXPECT_NE(refusal([&] { ModelBundle::load(path); }).find("an ensemble bundle"),
              std::string::npos);
    ModelBundle single;
    EnsembleBundle ens;
    loadAnyBundle(path, single, ens);
    EXPECT_EQ(ens.size(), 2u);
    EXPECT_EQ(single.model, b.common.model);
}

TEST(Ensemble, badBundlesAreRefusedNamingTheKeyOrTensor) {
    EnsembleBundle one = twoMembers();
    one.weights.pop_back();
    one.members.pop_back();
    const std::string onePath = writeUnchecked(one, "one.safetensors");
    EXPECT_NE(refusal([&] {
                  EnsembleBundle::load(onePath);
              }).find(onePath + ": __metadata__.ensemble.members: an ensemble of 1 member"),
              std::string::npos)
        << refusal([&] { EnsembleBundle::load(onePath); });

    EnsembleBundle other = twoMembers();  // member 2 with a wider first layer
    HostTensor& w = other.weights[1].begin()->second;
    w.shape.back() += 1;
    w.values.resize(w.values.size() / size_t(w.shape.back() - 1) * size_t(w.shape.back()), 0.f);
    const std::string otherPath = writeUnchecked(other, "other.safetensors");
    const std::string otherError = refusal([&] { EnsembleBundle::load(otherPath); });
    EXPECT_NE(otherError.find("tensor members.1." + other.weights[1].begin()->first +
                              ": member 2's shape"),
              std::string::npos)
        << otherError;
    EXPECT_NE(otherError.find("share one architecture"), std::string::npos) << otherError;

    EnsembleBundle three = twoMembers();  // says 3 members, holds the weights of 2
    three.members.push_back(three.members.back());
    three.weights.push_back({});
    const std::string threePath = writeUnchecked(three, "three.safetensors");
    EXPECT_NE(refusal([&] { EnsembleBundle::load(threePath); })
                  .find("__metadata__.ensemble.members: 3, but the file holds the weights of 2 "
                        "members"),
              std::string::npos)
        << refusal([&] { EnsembleBundle::load(threePath); });

    // A refused save changes nothing: the good file stays byte for byte.
    const std::string path = test::tempDir() + "/kept.safetensors";
    twoMembers().save(path);
    const std::string before = fileText(path);
    EXPECT_NE(refusal([&] { other.save(path); }).find("share one architecture"), std::string::npos);
    EXPECT_NE(refusal([&] { one.save(path); }).find("an ensemble of 1 member"), std::string::npos);
    EXPECT_EQ(fileText(path), before);
}

TEST(Ensemble, minAgreementKeepsWeakVotesFromActing) {
    // A buy on bar 0 agreed by all, a sell on bar 2 by half the members.
    SignalSeries s;
    s.add(0, {0.1f, 0.8f, 0.1f}, 1);
    s.add(1, {0.8f, 0.1f, 0.1f}, 0);
    s.add(2, {0.1f, 0.1f, 0.8f}, 2);
    s.add(3, {0.8f, 0.1f, 0.1f}, 0);
    s.add(4, {0.8f, 0.1f, 0.1f}, 0);
    s.agreement = {1.0f, 1.0f, 0.5f, 1.0f, 1.0f};
    TradingSettings t;
    TradingReport r = evaluateTrading(fiveBars(), s, t);
    ASSERT_EQ(r.trades.size(), 2u);  // long, reversed to short at bar 3
    EXPECT_EQ(r.trades[1].direction, -1);
    t.minAgreement = 0.6;  // the sell still closes the long but does not reverse it
    r = evaluateTrading(fiveBars(), s, t);
    ASSERT_EQ(r.trades.size(), 1u);
    EXPECT_EQ(r.trades[0].direction, 1);
    EXPECT_EQ(r.trades[0].exitBar, 3u);
    t.minAgreement = 0.5;  // at least: half is enough
    EXPECT_EQ(evaluateTrading(fiveBars(), s, t).trades.size(), 2u);
    s.agreement.clear();  // one model's signals always agree
    t.minAgreement = 1.0;
    EXPECT_EQ(evaluateTrading(fiveBars(), s, t).trades.size(), 2u);
}

TEST(Ensemble, minAgreementOutsideZeroToOneIsRefused) {
    EXPECT_DOUBLE_EQ(TradingSettings().minAgreement, 0.0);
    EXPECT_DOUBLE_EQ(TradingSettings::fromJson({{"minAgreement", 0.75}}).minAgreement, 0.75);
    for (double bad : {-0.1, 1.5}) {
        try {
            TradingSettings::fromJson({{"minAgreement", bad}});
            FAIL() << bad << " was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("trading.minAgreement"), std::string::npos)
                << e.what();
        }
    }
    nlohmann::json j = nlohmann::json::object();
    EXPECT_THROW(applyTradingFlag("--min-agreement", "2", j), std::invalid_argument);
    EXPECT_TRUE(applyTradingFlag("--min-agreement", "0.5", j));
    EXPECT_DOUBLE_EQ(j["minAgreement"].get<double>(), 0.5);
}
