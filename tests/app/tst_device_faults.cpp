// Device faults end a run with a clear message and lose nothing. A network too large for the
// device (needed bytes against global memory and largest allocation; the CPU backend is held
// to physical memory) is refused before training on every device, by the model check, nnwb-cli
// (exit status 2) and the worker (which keeps the previous run's weights, as it does when the
// device id is unknown or a kernel does not build). A failed enqueue in
// the middle of epoch 2 (NNWB_CL_FAIL_AFTER) ends the run; the weights of epoch 1 are kept and
// saved (worker and `--save-weights`), and the next run works. The backend-level build-log and
// unknown-id checks are in tst_opencl_backend, tst_cli and tst_training_window.
#include <QtTest>

#include <QProcess>
#include <QSignalSpy>

#include <fstream>

#include "app/core/MetaTypes.h"
#include "app/core/TrainingWorker.h"
#include "common/FaultProbe.h"
#include "common/TestUtil.h"
#include "common/TextHelpers.h"
#include "compute/BackendRegistry.h"
#include "compute/CpuBackend.h"
#include "compute/OpenClBackend.h"
#include "model/AtomicFile.h"
#include "model/ExperimentData.h"
#include "model/MemoryCheck.h"
#include "model/Safetensors.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;
using nnwb::test::contains;
using json = nlohmann::json;

namespace {

// Two dense layers of 2^20 neurons: 2^40 weights (4 TiB of float32) in the second alone.
json hugeExperiment(const std::string& device) {
    json e = test::tinyExperimentJson(1, 16);
    e["model"]["layers"] =
        json::array({{{"type", "dense"}, {"neurons", 1 << 20}, {"activation", "tanh"}},
                     {{"type", "dense"}, {"neurons", 1 << 20}, {"activation", "tanh"}},
                     {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}});
    e["training"]["device"] = device;
    return e;
}

Experiment threeEpochs(const std::string& device) {
    Experiment e = Experiment::fromJson(test::tinyExperimentJson(3, 16));
    e.training.device = device;
    return e;
}

// Equal names, shapes and values, bit for bit.
std::string sameWeights(const TensorMap& got, const TensorMap& want) {
    if (got.size() != want.size()) return "tensor count differs";
    for (const auto& [name, t] : want) {
        const auto it = got.find(name);
        if (it == got.end()) return "missing " + name;
        if (it->second.shape != t.shape) return "shape of " + name;
        if (it->second.values != t.values) return "values of " + name;
    }
    return {};
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

    // The worker: a run that cannot start (too large, unknown device id, a kernel that does not
    // build) says why, keeps the previous run's weights (they can still be saved) and the next
    // run works.
    void failedStartKeepsPreviousRun() {
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

        auto expectFailure = [&](const Experiment& e, const QStringList& needles) {
            finished.clear();
            worker.start(e, std::make_shared<TrainControl>());
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
            QCOMPARE(finished.last().at(0).value<RunEnd>(), RunEnd::Failed);
            const QString m = finished.last().at(1).toString();
            for (const QString& n : needles) QVERIFY2(m.contains(n), qPrintable(m));
            // The previous run's weights are still there.
            worker.saveWeights(QString::fromStdString(dir + "/after.safetensors"));
            QVERIFY2(saved.last().at(0).toBool(), qPrintable(saved.last().at(1).toString()));
            QCOMPARE(readFile(dir + "/after.safetensors"), readFile(dir + "/before.safetensors"));
        };
        for (const std::string& id : test::testDeviceIds())
            expectFailure(Experiment::fromJson(hugeExperiment(id)),
                          {"needs", QString::fromStdString(limitName(id))});
        expectFailure(threeEpochs("opencl:9:9"), {"no OpenCL device 'opencl:9:9'"});
        for (const std::string& id : test::openClDeviceIds()) {
            // A kernel file with a syntax error: the message carries the compiler's log.
            const std::string kernels = test::tempDir();
            for (const auto& [name, text] : OpenClBackend::embeddedKernelSources())
                std::ofstream(kernels + "/" + name)
                    << (name == "lightconv.cl" ? text + "\n__kernel void broken( {\n" : text);
            qputenv("NNWB_KERNEL_DIR", QByteArray::fromStdString(kernels));
            qputenv("NNWB_NO_KERNEL_CACHE", "1");
            expectFailure(threeEpochs(id), {"lightconv.cl", "failed to build", "build log"});
            qunsetenv("NNWB_KERNEL_DIR");
            qunsetenv("NNWB_NO_KERNEL_CACHE");
        }

        finished.clear();
        worker.start(good, std::make_shared<TrainControl>());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().at(0).value<RunEnd>(), RunEnd::Completed);
    }

    // A failed enqueue during epoch 2 in the worker: the run ends with the OpenCL error, the
    // weights of epoch 1 are kept and saved, and the worker trains again afterwards.
    void enqueueFailureWorker() {
        const auto ids = test::openClDeviceIds();
        if (ids.empty()) QSKIP("no OpenCL device");
        for (const std::string& id : ids) {
            const test::FaultProbe probe = test::probeMidEpochFault(threeEpochs(id), id);
            TrainingWorker worker;
            QSignalSpy epochs(&worker, &TrainingWorker::epochFinished);
            QSignalSpy finished(&worker, &TrainingWorker::runFinished);
            QSignalSpy saved(&worker, &TrainingWorker::weightsSaved);
            qputenv("NNWB_CL_FAIL_AFTER", QByteArray::number(qulonglong(probe.failAt)));
            worker.start(threeEpochs(id), std::make_shared<TrainControl>());
            qunsetenv("NNWB_CL_FAIL_AFTER");  // read when the backend was created
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
            QCOMPARE(epochs.count(), 1);
            QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Failed);
            const QString m = finished.first().at(1).toString();
            QVERIFY2(m.contains(QStringLiteral("CL_OUT_OF_RESOURCES")), qPrintable(m));
            QVERIFY2(m.contains(QStringLiteral("NNWB_CL_FAIL_AFTER")), qPrintable(m));
            QVERIFY2(m.contains(QStringLiteral("epoch 1, the last good one")), qPrintable(m));

            const std::string path = test::tempDir() + "/kept.safetensors";
            worker.saveWeights(QString::fromStdString(path));
            QCOMPARE(saved.count(), 1);
            QVERIFY2(saved.first().at(0).toBool(), qPrintable(saved.first().at(1).toString()));
            const std::string diff = sameWeights(loadSafetensors(path), probe.epoch1Weights);
            QVERIFY2(diff.empty(), diff.c_str());

            finished.clear();
            worker.start(threeEpochs(id), std::make_shared<TrainControl>());
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
            QVERIFY2(finished.first().at(0).value<RunEnd>() == RunEnd::Completed,
                     qPrintable(finished.first().at(1).toString()));
        }
    }

    // The same fault in nnwb-cli: exit status 1, the error and the kept epoch on stderr, and
    // --save-weights holds the weights of epoch 1.
    void enqueueFailureCli() {
        const auto ids = test::openClDeviceIds();
        if (ids.empty()) QSKIP("no OpenCL device");
        for (const std::string& id : ids) {
            const test::FaultProbe probe = test::probeMidEpochFault(threeEpochs(id), id);
            const std::string dir = test::tempDir();
            std::ofstream(dir + "/e.json") << threeEpochs(id).toJson().dump();
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("NNWB_CL_FAIL_AFTER"), QString::number(probe.failAt));
            p.setProcessEnvironment(env);
            p.start(NNWB_CLI_PATH,
                    {"train", "--experiment", QString::fromStdString(dir + "/e.json"),
                     "--save-weights", QString::fromStdString(dir + "/w.safetensors")});
            QVERIFY(p.waitForFinished(120000));
            const QString out = QString::fromUtf8(p.readAllStandardOutput());
            const QString err = QString::fromUtf8(p.readAllStandardError());
            QCOMPARE(p.exitCode(), 1);
            QVERIFY2(out.contains(QStringLiteral("epoch 1/3")), qPrintable(out));
            QVERIFY2(!out.contains(QStringLiteral("epoch 2/3")), qPrintable(out));
            QVERIFY2(err.contains(QStringLiteral("CL_OUT_OF_RESOURCES")), qPrintable(err));
            QVERIFY2(
                err.contains(QStringLiteral("weights of epoch 1 (the last good one) were saved")),
                qPrintable(err));
            const std::string diff =
                sameWeights(loadSafetensors(dir + "/w.safetensors"), probe.epoch1Weights);
            QVERIFY2(diff.empty(), diff.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(DeviceFaultsTest)
#include "tst_device_faults.moc"
