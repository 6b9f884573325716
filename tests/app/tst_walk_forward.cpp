// The walk-forward driver on the run engine (app/engine/WalkForward.h), on a cut of the bundled
// EURUSD H1 file with a tiny network: each fold's run trains on the fold's fitted samples and
// early-stops on its own validation (never its test window), the folds are announced in
// order around their runs' events, the fold figures are those of the run's best epoch, the
// stitched series is every test sample once in bar order with the metrics' argmax signal, and
// the stitched figures are the folds' together; with a step longer than the test windows the
// stitched signals are traded only inside the windows (no trade spans an untested bar); CPCV
// splits train on their blocks and their paths stitch every sample once; a split's validation of
// several blocks is traded.
// Before Qt, whose `signals` keyword macro would rewrite a parameter name in it.
#include "model/trading/TradingEvaluation.h"

#include <QtTest>

#include <cmath>
#include <fstream>
#include <string>

#include "app/engine/Cpcv.h"
#include "app/engine/WalkForward.h"
#include "common/TestUtil.h"
#include "model/FoldData.h"
#include "model/data/DataConfig.h"

using namespace nnwb;

namespace {

struct Recorder : WalkForwardEvents {
    std::vector<std::string> log;
    std::vector<std::vector<EpochReport>> epochs;  // per fold
    std::vector<size_t> trainSamples, validationSamples;
    std::vector<int64_t> lastValidationTime;
    // The fold's test window evaluated again here with the best and the last epoch's weights.
    const WalkForwardData* data = nullptr;
    RunEngine* engine = nullptr;
    std::vector<double> bestLoss, lastLoss;
    void foldStarted(const FoldRecord& r) override {
        log.push_back("start " + std::to_string(r.index));
        epochs.emplace_back();
    }
    void started(RunEngine& run) override {
        log.push_back("run");
        engine = &run;
        const DataSplit& s = run.data().split;
        trainSamples.push_back(s.train.size());
        validationSamples.push_back(s.validation.size());
        lastValidationTime.push_back(s.validation.time.empty() ? 0 : s.validation.time.back());
    }
    void epoch(const EpochReport& r) override { epochs.back().push_back(r); }
    void foldEnded(const FoldRecord& r) override {
        log.push_back("end " + std::to_string(r.index));
        if (!data || !engine || r.end != RunEnd::Completed) return;
        const FoldData fold = loadFoldData(*data, r.index);
        engine->keeper().lastGood().restore(engine->network());
        lastLoss.push_back(engine->trainer().evaluate(fold.test).loss);
        engine->keeper().best().restore(engine->network());
        bestLoss.push_back(engine->trainer().evaluate(fold.test).loss);
    }
};

}  // namespace

class WalkForwardTest : public QObject {
    Q_OBJECT
    Experiment experiment_;

private Q_SLOTS:
    void initTestCase() {
        const std::string dir = nnwb::test::tempDir();
        std::ifstream in(defaultDataFile());
        std::ofstream out(dir + "/cut.csv");
        std::string line;
        for (int i = 0; i < 801 && std::getline(in, line); ++i) out << line << "\n";
        out.close();
        const nlohmann::json e = {
            {"formatVersion", 2},
            {"name", "wf engine"},
            {"data", {{"file", "cut.csv"}, {"window", 5}, {"fractal", "5bar"}}},
            {"model",
             {{"layers",
               {{{"type", "dense"}, {"neurons", 6}, {"activation", "tanh"}},
                {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
            {"training",
             {{"epochs", 4},
              {"batchSize", 16},
              {"seed", 9},
              {"earlyStopping", {{"enabled", true}, {"patience", 1}}}}},
            {"validation",
             {{"mode", "walkforward"},
              {"scheme", "rolling"},
              {"trainLength", 300},
              {"testLength", 90},
              {"folds", 4},
              {"embargo", 1},
              {"earlyStoppingShare", 0.25}}}};
        experiment_ = Experiment::fromJson(e, dir);
    }

    void foldsTrainOnTheirOwnPartsAndStitch() {
        WalkForward wf(experiment_);
        const FoldPlan& plan = wf.plan();
        QCOMPARE(plan.folds.size(), size_t(4));
        QCOMPARE(plan.purge, size_t(2));  // the 5-bar rule's horizon
        Recorder events;
        events.data = &wf.data();
        const WalkForwardResult r = wf.run(RecordingOptions::none(), events);
        QCOMPARE(int(r.end), int(RunEnd::Completed));
        QCOMPARE(events.bestLoss.size(), size_t(4));
        int before = 0;  // folds whose best epoch is not their last
        QCOMPARE(r.folds.size(), size_t(4));
        const std::vector<std::string> order{"start 0", "run", "end 0", "start 1", "run", "end 1",
                                             "start 2", "run", "end 2", "start 3", "run", "end 3"};
        QCOMPARE(events.log, order);
        const std::vector<int64_t>& time = wf.data().bars->time;
        size_t stitched = 0;
        for (size_t k = 0; k < 4; ++k) {
            const FoldRecord& f = r.folds[k];
            const Fold& p = plan.folds[k];
            QCOMPARE(f.name, std::string("wf engine fold ") + std::to_string(k + 1) + "/4");
            // The run saw the fold's fitted samples and its validation, nothing of its test.
            QCOMPARE(events.trainSamples[k], p.trainLast - p.trainFirst + 1);
            QCOMPARE(events.validationSamples[k], p.validationLast - p.validationFirst + 1);
            QVERIFY(events.lastValidationTime[k] < time[p.testFirst]);
            QCOMPARE(f.test.samples, p.testSamples());
            // The figures of the best epoch, which the run's events reported.
            QCOMPARE(f.epochs, int(events.epochs[k].size()));
            QVERIFY(f.bestEpoch >= 1 && f.bestEpoch <= f.epochs);
            const EpochReport& best = events.epochs[k][size_t(f.bestEpoch - 1)];
            QCOMPARE(best.epoch, f.bestEpoch);
            QCOMPARE(f.validation.loss, best.validation.loss);
            QCOMPARE(f.validation.samples, events.validationSamples[k]);
            QCOMPARE(events.epochs[k].back().bestEpoch, f.bestEpoch);
            // The test window was predicted with the best epoch's weights.
            QCOMPARE(f.test.loss, events.bestLoss[k]);
            if (f.bestEpoch < f.epochs) {
                ++before;
                QVERIFY(f.test.loss != events.lastLoss[k]);
            }
            stitched += f.test.samples;
        }
        QVERIFY(before > 0);  // else the check above would not tell best from last
        // The stitched series: every test bar once, in order, with the argmax signal.
        const SignalSeries& s = r.outOfSample;
        QCOMPARE(s.size(), stitched);
        QCOMPARE(s.bar.front(), plan.folds.front().testFirst);
        QCOMPARE(s.bar.back(), plan.lastSample);
        for (size_t i = 0; i < s.size(); ++i) {
            if (i > 0) QCOMPARE(s.bar[i], s.bar[i - 1] + 1);  // contiguous windows
            const auto& o = s.outputs[i];
            const int argmax = o[1] > o[0] ? (o[2] > o[1] ? 2 : 1) : (o[2] > o[0] ? 2 : 0);
            QCOMPARE(s.signal[i], argmax);
        }
        size_t signalSum = 0, patterns = 0;
        double lossSum = 0;
        for (const FoldRecord& f : r.folds) {
            signalSum += f.test.signalCount;
            patterns += f.test.patterns;
            lossSum += f.test.loss * double(f.test.samples);
        }
        QCOMPARE(r.stitched.samples, stitched);
        QCOMPARE(r.stitched.signalCount, signalSum);
        QCOMPARE(r.stitched.patterns, patterns);
        QVERIFY(std::abs(r.stitched.loss - lossSum / double(stitched)) < 1e-12);
        size_t signalsInSeries = 0;
        for (int sig : s.signal) signalsInSeries += sig != 0;
        QCOMPARE(signalsInSeries, signalSum);
    }

    // Step mode leaves untested bars between the test windows; trading the stitched signals
    // closes a position at the end of each window and trades nothing in between, even with
    // signals that would hold a position to the range's end (no opposite exit, no time exit).
    void stepModeTradesOnlyInsideTheTestWindows() {
        Experiment e = experiment_;
        e.validation.scheme = "anchored";
        e.validation.folds = 0;
        e.validation.trainLength = 300;
        e.validation.testLength = 90;
        e.validation.step = 150;
        e.training.epochs = 1;
        WalkForward wf(e);
        const FoldPlan& plan = wf.plan();
        QVERIFY(!plan.contiguous);
        QVERIFY(plan.folds.size() >= 2);
        Recorder events;
        const WalkForwardResult r = wf.run(RecordingOptions::none(), events);
        QCOMPARE(int(r.end), int(RunEnd::Completed));
        TradingSettings t;
        t.exitOnOpposite = false;
        t.threshold = 0;
        t.spreadSource = "given";
        t.spreadPoints = 10;
        t.randomDraws = 2;
        // Every bar signals buy: one long per window, entered at its second bar's open.
        SignalSeries buys = r.outOfSample;
        for (size_t i = 0; i < buys.size(); ++i) buys.signal[i] = 1, buys.outputs[i] = {0, 1, 0};
        const BarSeries& bars = *wf.data().bars;
        for (const SignalSeries* s : {&r.outOfSample, static_cast<const SignalSeries*>(&buys)}) {
            const TradingReport report = evaluateTrading(bars, *s, t);
            for (const Trade& trade : report.trades) {
                bool inside = false;
                for (const Fold& f : plan.folds)
                    inside |= trade.entryBar > f.testFirst && trade.exitBar <= f.testLast;
                QVERIFY2(inside, qPrintable(QString("trade %1..%2 leaves its test window")
                                                .arg(trade.entryBar)
                                                .arg(trade.exitBar)));
            }
            // The equity covers every bar of the range, flat between the windows.
            QCOMPARE(report.equity.bar.size(), s->bar.back() - s->bar.front() + 1);
            for (size_t k = 1; k < plan.folds.size(); ++k)
                for (size_t b = plan.folds[k - 1].testLast + 1; b < plan.folds[k].testFirst; ++b)
                    QCOMPARE(report.equity.position[b - s->bar.front()], 0);
            QVERIFY(std::abs(report.equity.points.back() - report.strategy.netPoints) < 1e-6);
        }
        const TradingReport all = evaluateTrading(bars, buys, t);
        QCOMPARE(all.trades.size(), plan.folds.size());
        for (size_t k = 0; k < all.trades.size(); ++k) {
            QCOMPARE(all.trades[k].entryBar, plan.folds[k].testFirst + 1);
            QCOMPARE(all.trades[k].exitBar, plan.folds[k].testLast);
            QCOMPARE(std::string(exitReasonName(all.trades[k].exitReason)), std::string("end"));
        }
    }

    void aStopEndsTheWalkForward() {
        WalkForward wf(experiment_);
        TrainControl control;
        control.requestStop();
        Recorder events;
        const WalkForwardResult r = wf.run(RecordingOptions::none(), events, &control);
        QCOMPARE(int(r.end), int(RunEnd::Stopped));
        QVERIFY(r.folds.empty());
        QVERIFY(r.outOfSample.empty());
    }

    // CPCV (app/engine/Cpcv.h): each split's run trains on exactly its plan's fitted and
    // validation samples; each path's series is every sample once in bar order, each group's
    // signals and figures those its split's model gave that group (the split evaluated again
    // here on the group alone); WalkForward::run refuses the plan.
    void cpcvSplitsTrainOnTheirBlocksAndPathsStitch() {
        Experiment e = experiment_;
        e.validation = ValidationConfig();
        e.validation.mode = "walkforward";
        e.validation.scheme = "cpcv";
        e.validation.groups = 4;
        e.validation.testGroups = 2;
        e.validation.embargo = 2;
        e.training.epochs = 2;
        WalkForward wf(e);
        const CpcvPlan& plan = wf.data().cpcv;
        QCOMPARE(plan.splits.size(), size_t(6));
        QCOMPARE(plan.paths.size(), size_t(3));
        Recorder events;
        const WalkForwardResult refused = wf.run(RecordingOptions::none(), events);
        QCOMPARE(int(refused.end), int(RunEnd::Failed));
        QVERIFY2(refused.error.rfind("validation.scheme: cpcv", 0) == 0, refused.error.c_str());
        const std::vector<FoldOutcome> outcomes =
            runCpcvSplits(wf, RecordingOptions::none(), events);
        QCOMPARE(outcomes.size(), size_t(6));
        for (size_t s = 0; s < 6; ++s) {
            QCOMPARE(events.trainSamples[s], plan.splits[s].trainSamples());
            QCOMPARE(events.validationSamples[s], plan.splits[s].validationSamples());
            QCOMPARE(outcomes[s].outputs.size(), 3 * plan.splits[s].testSamples());
            QCOMPARE(outcomes[s].groupTest.size(), size_t(2));
        }
        const CpcvResult r = stitchCpcv(plan, outcomes);
        QCOMPARE(int(r.end), int(RunEnd::Completed));
        QCOMPARE(r.paths.size(), size_t(3));
        const size_t samples = plan.lastSample - plan.firstSample + 1;
        for (const CpcvPath& path : r.paths) {
            QCOMPARE(path.outOfSample.bar.size(), samples);
            QCOMPARE(path.metrics.samples, samples);
            double loss = 0;
            for (size_t i = 0; i < samples; ++i)
                QCOMPARE(path.outOfSample.bar[i], plan.firstSample + i);
            for (size_t g = 0; g < 4; ++g) {
                const size_t s = path.splits[g];
                const FoldOutcome& o = outcomes[s];
                const size_t at = plan.testOffset(s, g),
                             first = plan.group[g].first - plan.firstSample;
                for (size_t i = 0; i < plan.group[g].size(); ++i)
                    QCOMPARE(path.outOfSample.outputs[first + i][1], o.outputs[3 * (at + i) + 1]);
                const size_t position = plan.splits[s].testGroups[0] == g ? 0 : 1;
                loss += o.groupTest[position].loss * double(plan.group[g].size());
            }
            QVERIFY(std::fabs(path.metrics.loss - loss / double(samples)) < 1e-9);
        }
        // The split's record of test figures is its two groups together.
        const FoldOutcome& o = outcomes[0];
        const double n0 = double(plan.splits[0].test[0].size()),
                     n1 = double(plan.splits[0].test[1].size());
        QVERIFY(std::fabs(o.record.test.loss -
                          (o.groupTest[0].loss * n0 + o.groupTest[1].loss * n1) / (n0 + n1)) <
                1e-5);
    }

    // A split whose early-stopping validation lies on both sides of a test group (several
    // blocks) trades it: its run's trading figures exist (null before), their range is the
    // blocks' hull, the return series covers the hull and is flat between the blocks.
    void cpcvValidationOfSeveralBlocksIsTraded() {
        Experiment e = experiment_;
        e.validation = ValidationConfig();
        e.validation.mode = "walkforward";
        e.validation.scheme = "cpcv";
        e.validation.groups = 4;
        e.validation.testGroups = 1;
        e.validation.earlyStoppingShare = 0.5;
        e.training.epochs = 1;
        WalkForward wf(e);
        const CpcvPlan& plan = wf.data().cpcv;
        size_t k = plan.splits.size();
        for (size_t s = 0; s < plan.splits.size() && k == plan.splits.size(); ++s)
            if (plan.splits[s].validation.size() > 1) k = s;
        QVERIFY2(k < plan.splits.size(), "no split with a validation of several blocks");
        const std::vector<BarRange>& blocks = plan.splits[k].validation;
        const FoldData fold = loadFoldData(wf.data(), k);
        QVERIFY2(fold.data->ok, fold.data->error.c_str());
        QCOMPARE(fold.data->validationBlocks.size(), blocks.size());
        RunEngine engine(e, fold.data);
        struct : WalkForwardEvents {
        } events;
        const RunResult run = engine.train(1, StartMode::Restart, RecordingOptions::none(), events);
        QCOMPARE(int(run.end), int(RunEnd::Completed));
        const nlohmann::json& t = engine.tradingWithReturns();
        QVERIFY2(t.is_object() && t.contains("strategy"), t.dump().c_str());
        QCOMPARE(t["range"]["firstBar"].get<size_t>(), blocks.front().first);
        QCOMPARE(t["range"]["lastBar"].get<size_t>(), blocks.back().last);
        QCOMPARE(t["returnSeries"]["pct"].size(), blocks.back().last - blocks.front().first);
        // Flat between the blocks (the test group and its purge): no return there.
        const std::vector<double> pct = t["returnSeries"]["pct"];
        for (size_t bar = blocks[0].last + 1; bar < blocks[1].first; ++bar)
            QCOMPARE(pct[bar - blocks.front().first - 1], 0.0);
    }

    void badSettingsThrowNamingThem() {
        Experiment e = experiment_;
        e.validation.folds = 40;
        try {
            WalkForward wf(e);
            QFAIL("planned 40 folds of 90 bars in 800 bars");
        } catch (const DataLoadError& ex) {
            QVERIFY2(std::string(ex.what()).rfind("validation.folds: 40 test windows", 0) == 0,
                     ex.what());
        }
    }
};

QTEST_GUILESS_MAIN(WalkForwardTest)
#include "tst_walk_forward.moc"
