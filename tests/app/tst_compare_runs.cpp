// Comparison runs that really train: two experiments on two devices (the CPU backend and the
// first OpenCL device, PoCL on CI) train concurrently, each in its own thread, and both give
// their per-epoch figures; a run that cannot be built fails alone; a run stops on its own.
// Covers the headless ComparisonRunner (std::thread) and the window's ComparisonController
// (one QThread worker per run).
#include <QtTest>

#include <mutex>
#include <set>
#include <thread>

#include "app/compare/ComparisonRunner.h"
#include "app/core/ComparisonController.h"
#include "common/TestUtil.h"

using namespace nnwb;
using json = nlohmann::json;

namespace {

// The second device: the first OpenCL device where there is one, else the CPU again.
std::string secondDevice() {
    const auto ids = test::openClDeviceIds();
    return ids.empty() ? std::string("cpu") : ids.front();
}

Experiment tiny(const std::string& name, const std::string& device, int epochs = 2) {
    Experiment e = Experiment::fromJson(test::tinyExperimentJson(epochs));
    e.name = name;
    e.training.device = device;
    return e;
}

// A stack that does not fit the 4 x 6 input: the conv window is larger than a sample.
Experiment unbuildable(const std::string& device) {
    Experiment e = tiny("broken", device);
    e.model["layers"][0]["window"] = 50;
    e.model["layers"][0]["step"] = 50;
    return e;
}

}  // namespace

class CompareRuns : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { registerMetaTypes(); }

    void runnerTrainsDevicesConcurrently() {
        const std::vector<Experiment> exps{tiny("a", "cpu"), tiny("b", secondDevice()),
                                           tiny("c", "cpu")};
        auto data = std::make_shared<const ExperimentData>(loadExperimentData(exps[0]));
        QVERIFY2(data->ok, data->error.c_str());
        ComparisonRunner runner(exps, {"a", "b", "c"}, data);
        std::mutex m;
        std::vector<std::thread::id> threadOf(3);
        std::vector<int> epochsSeen(3, 0);
        bool recordHoldsEpoch = true;
        ComparisonRunner::Callbacks cb;
        cb.epoch = [&](size_t i, const RunRecord& r, const EpochReport& e) {
            std::lock_guard<std::mutex> lock(m);
            threadOf[i] = std::this_thread::get_id();
            ++epochsSeen[i];
            recordHoldsEpoch = recordHoldsEpoch && r.epochs.back().epoch == e.epoch;
        };
        runner.run(cb);
        QVERIFY(recordHoldsEpoch);
        const auto records = runner.records();
        for (size_t i = 0; i < 3; ++i) {
            QVERIFY2(records[i].status == RunStatus::Completed, records[i].error.c_str());
            QCOMPARE(records[i].epochs.size(), size_t(2));
            QCOMPARE(epochsSeen[i], 2);
            QVERIFY(records[i].parameters > 0 && !records[i].deviceName.empty());
            QVERIFY(std::isfinite(records[i].epochs[1].validation.loss));
            QVERIFY(records[i].epochs[1].seconds > 0);
        }
        QCOMPARE(records[1].deviceId, secondDevice());
        // Different devices: different threads; the same device: one after the other.
        QCOMPARE(threadOf[0], threadOf[2]);
        if (secondDevice() != "cpu") QVERIFY(threadOf[0] != threadOf[1]);
        // Same data, same seed, same device: the same numbers.
        QCOMPARE(records[0].epochs[1].train.loss, records[2].epochs[1].train.loss);
    }

    void runnerFailingRunLeavesTheOthers() {
        const std::vector<Experiment> exps{unbuildable("cpu"), tiny("good", "cpu")};
        auto data = std::make_shared<const ExperimentData>(loadExperimentData(exps[1]));
        ComparisonRunner runner(exps, {"broken", "good"}, data);
        runner.run();
        const auto records = runner.records();
        QCOMPARE(records[0].status, RunStatus::Failed);
        QVERIFY2(QString::fromStdString(records[0].error).contains("model:"),
                 records[0].error.c_str());
        QCOMPARE(records[1].status, RunStatus::Completed);
        QCOMPARE(records[1].epochs.size(), size_t(2));
    }

    void controllerTrainsTwoDevicesConcurrently() {
        ComparisonController cmp;
        QCOMPARE(cmp.addRun(tiny("cpu run", "cpu"), {}), 0);
        QCOMPARE(cmp.addRun(tiny("second run", secondDevice()), {}), 1);
        QSignalSpy epochs(&cmp, &ComparisonController::epochFinished);
        QSignalSpy done(&cmp, &ComparisonController::allFinished);
        QVERIFY(cmp.start());
        QVERIFY(cmp.isBusy());
        QVERIFY(cmp.isRunning(0) && cmp.isRunning(1));
        QVERIFY(cmp.addRun(tiny("late", "cpu"), {}) < 0);  // no edits while running
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 240000);
        QCOMPARE(epochs.count(), 4);
        for (int i = 0; i < 2; ++i) {
            const RunRecord& r = cmp.record(i);
            QVERIFY2(r.status == RunStatus::Completed, r.error.c_str());
            QCOMPARE(r.epochs.size(), size_t(2));
            QVERIFY(r.parameters > 0);
            QVERIFY(r.epochs[0].validation.samples > 0);
        }
        QCOMPARE(cmp.record(1).deviceId, secondDevice());
    }

    void controllerFailingRunAndStopLeaveTheOthers() {
        ComparisonController cmp;
        cmp.addRun(unbuildable("cpu"), {});
        cmp.addRun(tiny("good", "cpu", 2), {});
        cmp.addRun(tiny("long", "cpu", 20000), {});
        QSignalSpy finished(&cmp, &ComparisonController::runFinished);
        QSignalSpy done(&cmp, &ComparisonController::allFinished);
        QVERIFY(cmp.start());
        // The long run is stopped on its own once the good one has finished.
        QTRY_VERIFY_WITH_TIMEOUT(cmp.record(1).finished(), 60000);
        QVERIFY(cmp.isRunning(2));
        cmp.stop(2);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QCOMPARE(finished.count(), 3);
        QCOMPARE(cmp.record(0).status, RunStatus::Failed);
        QVERIFY2(QString::fromStdString(cmp.record(0).error).contains("Model:"),
                 cmp.record(0).error.c_str());
        QCOMPARE(cmp.record(1).status, RunStatus::Completed);
        QCOMPARE(cmp.record(1).epochs.size(), size_t(2));
        QCOMPARE(cmp.record(2).status, RunStatus::Stopped);
        QVERIFY(cmp.record(2).epochs.size() < 20000);
    }

    // A run added after a comparison has ended belongs to no runner yet: stopping it (or all)
    // does nothing, and it stays pending (the GUI monkey stopped such a run, seed 108771051).
    void controllerStopOfARunAddedAfterwards() {
        ComparisonController cmp;
        cmp.addRun(tiny("one", "cpu"), {});
        QSignalSpy done(&cmp, &ComparisonController::allFinished);
        QVERIFY(cmp.start());
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QCOMPARE(cmp.addRun(tiny("two", "cpu"), {}), 1);
        cmp.stop(1);
        cmp.stopAll();
        QCOMPARE(cmp.record(1).status, RunStatus::Pending);
        QVERIFY(!cmp.isBusy());
    }
};

QTEST_GUILESS_MAIN(CompareRuns)
#include "tst_compare_runs.moc"
