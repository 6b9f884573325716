// RunEngine (app/engine/RunEngine.h) and the run store: a continued run (the window's Continue)
// is recorded with the epochs it goes on from, so the Runs table's best validation loss (the
// store's list), `runs show`'s best epoch and its per-epoch table, the stored trading figures'
// epoch and the curves an opened run shows all name the same best epoch (issue 41 §2: the
// table showed the best of the continued epochs only, `runs show` an earlier epoch).
#include <QtTest>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/engine/BenchSession.h"
#include "app/engine/RunEngine.h"
#include "app/engine/RunSubject.h"
#include "app/runs/RunStore.h"
#include "common/BarExperiments.h"
#include "common/DataCut.h"
#include "common/TestUtil.h"
#include "model/ModelBundle.h"
#include "model/PopulationSpec.h"
#include "model/data/DataConfig.h"

using namespace nnwb;
using nlohmann::json;

class TstRunEngine : public QObject {
    Q_OBJECT
    std::string dir_, data_;

    json experiment(int epochs) const {
        return nnwb::test::balancedConvExperiment("continued", data_, epochs);
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = nnwb::test::tempDir();
        // The bundled file cut to its header and 900 bars.
        data_ = nnwb::test::writeDataCut(dir_ + "/EURUSD_H1.csv", 900);
    }

    void aContinuedRunIsRecordedWithTheEpochsItGoesOnFrom() {
        const Experiment e = Experiment::fromJson(experiment(2), dir_);
        std::vector<EpochReport> shown;  // what the window's Metrics view gets
        RunEventHandlers events;
        events.onEpoch = [&](const EpochReport& r) { shown.push_back(r); };
        RecordingOptions rec;
        rec.dbPath = dir_ + "/runs.sqlite";
        RunEngine engine(e);
        QVERIFY(engine.train(2, StartMode::Restart, rec, events).end == RunEnd::Completed);
        const int64_t firstId = engine.recordedRunId();
        QVERIFY(engine.train(1, StartMode::ContinueCurrent, rec, events).end == RunEnd::Completed);
        const int64_t continuedId = engine.recordedRunId();
        QVERIFY(continuedId > firstId);
        QCOMPARE(shown.size(), size_t(3));
        const int best = shown.back().bestEpoch;  // Metrics' mark
        // The case of the issue: the best epoch is one the continued call did not train.
        QVERIFY2(best < 3, qPrintable(QString("best epoch %1").arg(best)));
        const double bestLoss =
            std::min_element(shown.begin(), shown.end(), [](const auto& a, const auto& b) {
                return a.validation.loss < b.validation.loss;
            })->validation.loss;
        QCOMPARE(shown[size_t(best - 1)].validation.loss, bestLoss);

        RunStore store(rec.dbPath);
        const std::optional<StoredRun> run = store.get(continuedId);
        QVERIFY(run.has_value());
        QCOMPARE(run->bestEpoch, std::optional<int>(best));  // runs show's best epoch
        QCOMPARE(run->trading.at("epoch").get<int>(), best);
        QCOMPARE(run->epochsPlanned, 3);
        QCOMPARE(run->epochsDone, 3);  // was 1: only the continued epoch
        QCOMPARE(run->epochs.size(), size_t(3));
        for (size_t i = 0; i < 3; ++i) {
            QCOMPARE(run->epochs[i].report.epoch, int(i) + 1);
            QVERIFY(run->epochs[i].report.validation.loss == shown[i].validation.loss);
            QCOMPARE(run->epochs[i].report.isBest, int(i) + 1 == best);  // the opened curves
        }
        // The Runs table's and `runs list`'s best validation loss: the best epoch's.
        for (const StoredRun& listed : store.list())
            if (listed.id == continuedId) QVERIFY(listed.bestValLoss == std::optional(bestLoss));
        // The first run keeps its own two epochs.
        QCOMPARE(store.get(firstId)->epochs.size(), size_t(2));
    }

    // Issue 42 §5: the engine computes the trading figures and the model bundle at the end of
    // every run, recorded or not (they were computed only for a recorded run, so an unrecorded
    // comparison showed none): an unrecorded run has the figures a recorded one stores.
    void anUnrecordedRunHasTheTradingFiguresARecordedOneStores() {
        const Experiment e = Experiment::fromJson(experiment(2), dir_);
        RunEventHandlers events;
        RecordingOptions rec;
        rec.dbPath = dir_ + "/trading.sqlite";
        RunEngine recorded(e);
        QVERIFY(recorded.train(2, StartMode::Restart, rec, events).end == RunEnd::Completed);
        const std::optional<StoredRun> stored = RunStore(rec.dbPath).get(recorded.recordedRunId());
        QVERIFY(stored.has_value() && stored->trading.is_object());

        RunEngine unrecorded(e);
        QVERIFY(unrecorded.train(2, StartMode::Restart, RecordingOptions::none(), events).end ==
                RunEnd::Completed);
        QCOMPARE(unrecorded.recordedRunId(), int64_t(0));
        const json& t = unrecorded.trading();
        QVERIFY2(t.is_object() && t.contains("strategy"), t.dump().c_str());
        QVERIFY(!t.contains("returnSeries"));
        QCOMPARE(t.at("epoch"), stored->trading.at("epoch"));
        QCOMPARE(t.at("strategy"), stored->trading.at("strategy"));
        QCOMPARE(t.at("buyAndHold"), stored->trading.at("buyAndHold"));
        QVERIFY(unrecorded.tradingWithReturns().contains("returnSeries"));
        // The bundle of the result: the kept epoch's weights with the data settings.
        const ModelBundle b = unrecorded.resultBundle();
        QCOMPARE(b.epoch, unrecorded.keeper().result().epoch());
        QVERIFY(!b.tensors.empty());
    }

    // Issue 42 §5: `nnwb-cli bench` times the TrainingSession every run trains with: the same
    // network on the same input and output shapes as the run engine builds for the experiment
    // (random samples and no validation part instead of the experiment's data).
    void benchBuildsWhatTrainBuilds() {
        Experiment e = Experiment::fromJson(experiment(1), dir_);
        RunEngine run(e);
        const auto bench = benchSession(e, 1, 64);
        QCOMPARE(bench->network().toJson(), run.network().toJson());
        QCOMPARE(bench->network().parameterCount(), run.network().parameterCount());
        QCOMPARE(bench->split().train.inputShape.size(), run.data().split.train.inputShape.size());
        QCOMPARE(bench->split().train.outputs, run.data().split.train.outputs);
        QCOMPARE(bench->split().train.size(), size_t(64));
        // A population of 3 members, seeds apart, as train --population 3 builds it.
        const auto members = populationMembers(e, 3, {});
        RunEngine population(members);
        const auto benchPopulation = benchSession(e, 3, 64);
        QCOMPARE(benchPopulation->trainer().models(), population.trainer().models());
        QCOMPARE(benchPopulation->network().toJson(), population.network().toJson());
    }

    // Issue 42 §5: one description of what a run trains on (train's first line, the window's
    // status bar), of the engine's run; a population says how many models.
    void aRunsSubjectIsTheEnginesRun() {
        const Experiment e = Experiment::fromJson(experiment(1), dir_);
        RunEngine run(e);
        const RunSubject s = runSubject(run);
        QCOMPARE(s.experiment, std::string("continued"));
        QCOMPARE(s.deviceId, run.session().backend().info().id);
        QCOMPARE(s.parameters, run.network().parameterCount());
        QCOMPARE(s.trainSamples, run.data().split.train.size());
        QCOMPARE(s.validationSamples, run.data().split.validation.size());
        QCOMPARE(runSubjectLine(s),
                 s.experiment + ": " + run.data().description + " on " + s.deviceId + " (" +
                     s.deviceName + "), " + std::to_string(s.parameters) + " parameters, " +
                     std::to_string(s.trainSamples) + " training / " +
                     std::to_string(s.validationSamples) + " validation samples");
        RunEngine population(populationMembers(e, 2, {}));
        const std::string line = runSubjectLine(runSubject(population));
        QVERIFY2(line.find(", a population of 2 models of " + std::to_string(s.parameters) +
                           " parameters, ") != std::string::npos,
                 line.c_str());
    }
};

QTEST_GUILESS_MAIN(TstRunEngine)
#include "tst_run_engine.moc"
