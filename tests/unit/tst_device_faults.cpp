// Device faults that must end a run before it starts, with a clear message and nothing lost:
// a network too large for the device (needed bytes against the device's global memory and
// largest allocation; the CPU backend is held to the machine's physical memory), on every
// device, through the model check, nnwb-cli (exit status 2) and the training worker (which
// stays usable and keeps the previous run's weights). Build-log and unknown-id faults are in
// tst_opencl_backend, tst_cli and tst_training_window.
#include <QtTest>

#include <QProcess>
#include <QSignalSpy>

#include <fstream>

#include "app/core/MetaTypes.h"
#include "app/core/TrainingWorker.h"
#include "common/TestUtil.h"
#include "compute/CpuBackend.h"
#include "model/AtomicFile.h"
#include "model/ExperimentData.h"
#include "model/MemoryCheck.h"
#include "model/Safetensors.h"

using namespace nnwb;
using json = nlohmann::json;

namespace {

// Two dense layers of 2^20 neurons: 2^40 weights (4 TiB of float32) in the second alone.
json hugeExperiment(const std::string& device) {
    json e = test::tinyExperimentJson(1, 16);
    e["model"]["layers"] = json::array(
        {{{"type", "dense"}, {"neurons", 1 << 20}, {"activation", "tanh"}},
         {{"type", "dense"}, {"neurons", 1 << 20}, {"activation", "tanh"}},
         {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}});
    e["training"]["device"] = device;
    return e;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::string limitName(const std::string& device) {
    return device == "cpu" ? "physical memory" : "CL_DEVICE_GLOBAL_MEM_SIZE";
}

}  // namespace

class DeviceFaultsTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { registerMetaTypes(); }

    // The measured need covers what training allocates: parameters, gradients and both Adam
    // moments (4 x 4 bytes per parameter), plus activations.
    void measuredNeedCoversParameters() {
        const Experiment e = Experiment::fromJson(test::tinyExperimentJson(1, 16));
        const ExperimentData data = loadExperimentData(e);
        QVERIFY2(data.ok, data.error.c_str());
        Network net(Network::layersFromJson(e.model), data.split.train.inputShape);
        const MemoryNeed need = trainingMemoryNeed(e.model, e.training, data.split);
        QVERIFY(need.totalBytes >= 16 * net.parameterCount());
        QVERIFY(need.totalBytes < 16 * net.parameterCount() + (1u << 20));
        QVERIFY(need.largestBytes > 0 && need.largestBytes <= need.totalBytes);
        // A small network fits every device.
        for (const std::string& id : test::testDeviceIds()) {
            const auto be = createBackend(id);
            requireDeviceMemory(need, be->info(), e.training.batchSize);
        }
    }

    // The CPU backend reports the machine's memory, so it has a limit to check against.
    void cpuHasMemoryLimit() {
        const DeviceInfo info = CpuBackend().info();
        QVERIFY(info.globalMemory > 0);
        QVERIFY(info.maxAlloc > 0);
        CpuBackend be;
        try {
            be.alloc(size_t(1) << 61);
            QFAIL("an allocation beyond physical memory did not throw");
        } catch (const ComputeError& e) {
            QVERIFY2(contains(e.what(), "physical memory"), e.what());
        }
    }

    // Too large for each device: the message gives the needed bytes and the device's limit.
    void tooLargeModelCheck() {
        for (const std::string& id : test::testDeviceIds()) {
            const Experiment e = Experiment::fromJson(hugeExperiment(id));
            const ExperimentData data = loadExperimentData(e);
            QVERIFY2(data.ok, data.error.c_str());
            const MemoryNeed need = trainingMemoryNeed(e.model, e.training, data.split);
            QVERIFY(need.totalBytes > (uint64_t(1) << 42));  // > 4 TiB
            const auto be = createBackend(id);
            const DeviceInfo info = be->info();
            try {
                requireDeviceMemory(need, info, e.training.batchSize);
                QFAIL(("a 16 TiB network passed the memory check on " + id).c_str());
            } catch (const ComputeError& ex) {
                const std::string m = ex.what();
                QVERIFY2(contains(m, std::to_string(need.totalBytes) + " bytes"), m.c_str());
                QVERIFY2(contains(m, std::to_string(info.globalMemory) + " bytes"), m.c_str());
                QVERIFY2(contains(m, limitName(id)), m.c_str());
                QVERIFY2(contains(m, id), m.c_str());
            }
        }
    }

    // nnwb-cli refuses before training: exit status 2, the sizes on stderr, no weights file.
    void tooLargeCli() {
        for (const std::string& id : test::testDeviceIds()) {
            const std::string dir = test::tempDir();
            std::ofstream(dir + "/huge.json") << hugeExperiment(id).dump();
            QProcess p;
            p.start(NNWB_CLI_PATH,
                    {"train", "--experiment", QString::fromStdString(dir + "/huge.json"),
                     "--save-weights", QString::fromStdString(dir + "/w.safetensors")});
            QVERIFY(p.waitForFinished(120000));
            const QString err = QString::fromUtf8(p.readAllStandardError());
            QCOMPARE(p.exitCode(), 2);
            QVERIFY2(err.contains(QStringLiteral("needs")), qPrintable(err));
            QVERIFY2(err.contains(QString::fromStdString(limitName(id))), qPrintable(err));
            QVERIFY(!QFile::exists(QString::fromStdString(dir + "/w.safetensors")));
        }
    }

    // The worker: a failed start says why, keeps the previous run's weights (they can still be
    // saved) and the next run works.
    void tooLargeWorkerKeepsPreviousRun() {
        TrainingWorker worker;
        QSignalSpy finished(&worker, &TrainingWorker::runFinished);
        QSignalSpy saved(&worker, &TrainingWorker::weightsSaved);
        const Experiment good = Experiment::fromJson(test::tinyExperimentJson(1, 16));
        worker.start(good, std::make_shared<TrainControl>());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().at(0).value<RunEnd>(), RunEnd::Completed);
        const std::string dir = test::tempDir();
        worker.saveWeights(QString::fromStdString(dir + "/before.safetensors"));
        QVERIFY(saved.last().at(0).toBool());

        for (const std::string& id : test::testDeviceIds()) {
            finished.clear();
            worker.start(Experiment::fromJson(hugeExperiment(id)), std::make_shared<TrainControl>());
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
            QCOMPARE(finished.last().at(0).value<RunEnd>(), RunEnd::Failed);
            const QString m = finished.last().at(1).toString();
            QVERIFY2(m.contains(QStringLiteral("needs")), qPrintable(m));
            QVERIFY2(m.contains(QString::fromStdString(limitName(id))), qPrintable(m));
            // The previous run's weights are still there.
            worker.saveWeights(QString::fromStdString(dir + "/after.safetensors"));
            QVERIFY2(saved.last().at(0).toBool(), qPrintable(saved.last().at(1).toString()));
            QCOMPARE(readFile(dir + "/after.safetensors"), readFile(dir + "/before.safetensors"));
        }

        finished.clear();
        worker.start(good, std::make_shared<TrainControl>());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().at(0).value<RunEnd>(), RunEnd::Completed);
    }
};

QTEST_GUILESS_MAIN(DeviceFaultsTest)
#include "tst_device_faults.moc"
