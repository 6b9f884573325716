// A sweep's slots (app/sweep/Slots.h): "opencl:P:*=K" expanded over a fake machine's device list
// (two GPUs of one platform, a CPU device of another), the default slots of a GPU host and of a
// host without a GPU, the errors; and a sweep run here with --slots opencl:0:*=1, whose trials
// run on this machine's first OpenCL device (PoCL in CI).
#include <QtTest>

#include <fstream>
#include <stdexcept>

#include "app/sweep/Slots.h"
#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "compute/OpenClBackend.h"

using nnwb::DeviceInfo;
using nnwb::Slot;
using nnwb::test::runCli;

namespace {

DeviceInfo device(const std::string& id, const std::string& type) {
    DeviceInfo d;
    d.id = id;
    d.type = type;
    return d;
}

// A GPU host: PoCL's CPU device on platform 0, two GPUs on platform 1, the same two GPUs again
// through a second runtime on platform 2.
std::vector<DeviceInfo> gpuHost() {
    return {device("cpu", "CPU"),        device("opencl:0:0", "CPU"), device("opencl:1:0", "GPU"),
            device("opencl:1:1", "GPU"), device("opencl:2:0", "GPU"), device("opencl:2:1", "GPU")};
}

QStringList labels(const std::vector<Slot>& got) {
    QStringList out;
    for (const Slot& s : got) out << QString::fromStdString(s.label);
    return out;
}

QString errorOf(const std::string& text, const std::vector<DeviceInfo>& devices) {
    try {
        nnwb::parseSlots(text, {0, 1}, devices);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

class SweepSlotsTest : public QObject {
    Q_OBJECT

private slots:
    void everyDeviceOfAPlatform() {
        const auto got = nnwb::parseSlots("opencl:1:*=2,cpu=1", {0, 1}, gpuHost());
        QCOMPARE(labels(got), QStringList({"opencl:1:0#1", "opencl:1:0#2", "opencl:1:1#1",
                                           "opencl:1:1#2", "cpu#1"}));
        QCOMPARE(got[2].device, std::string("opencl:1:1"));
        QVERIFY(got[0].cpus.empty());
        QCOMPARE(got[4].cpus, std::vector<int>({0, 1}));
        // The platform's CPU device counts too: every device of the platform.
        QCOMPARE(labels(nnwb::parseSlots("opencl:0:*=1", {0}, gpuHost())),
                 QStringList({"opencl:0:0#1"}));
        // The fixed forms are as before.
        QCOMPARE(labels(nnwb::parseSlots("cpu=2,opencl:0:1=3", {0, 1}, {})),
                 QStringList({"cpu#1", "cpu#2", "opencl:0:1#1", "opencl:0:1#2", "opencl:0:1#3"}));
    }

    void badPlatformsAreNamed() {
        QCOMPARE(errorOf("opencl:3:*=1", gpuHost()),
                 QString("'opencl:3:*': no OpenCL device on platform 3 (devices: opencl:0:0, "
                         "opencl:1:0, opencl:1:1, opencl:2:0, opencl:2:1)"));
        QCOMPARE(errorOf("opencl:0:*=1", {device("cpu", "CPU")}),
                 QString("'opencl:0:*': no OpenCL device on platform 0 (devices: none found)"));
        QCOMPARE(errorOf("opencl:x:*=1", gpuHost()),
                 QString("'opencl:x:*': the platform must be a number (opencl:0:*)"));
        QCOMPARE(errorOf("opencl:*=1", gpuHost()),
                 QString("'opencl:*': the platform must be a number (opencl:0:*)"));
        QCOMPARE(errorOf("gpu:*=1", gpuHost()),
                 QString("'gpu:*' is not cpu, opencl:P:D or opencl:P:*"));
    }

    // On a GPU host the default fills every GPU of the first platform that has one (not the
    // same GPUs again through a second runtime) with kGpuSlotsPerDevice got, and keeps the CPU
    // got; without a GPU (PoCL's CPU device only) it is the CPU got alone.
    void defaultSlotsFillEveryGpu() {
        const auto got = nnwb::defaultSlots({0, 1, 2, 3}, gpuHost());
        const int k = nnwb::kGpuSlotsPerDevice;
        QCOMPARE(int(got.size()), 2 * k + 2);
        for (int i = 0; i < k; ++i) {
            QCOMPARE(got[size_t(i)].device, std::string("opencl:1:0"));
            QCOMPARE(got[size_t(k + i)].device, std::string("opencl:1:1"));
        }
        QCOMPARE(labels(got).mid(2 * k), QStringList({"cpu#1", "cpu#2"}));
        QCOMPARE(got[size_t(2 * k)].cpus, std::vector<int>({0, 1}));
        const std::vector<DeviceInfo> noGpu = {device("cpu", "CPU"), device("opencl:0:0", "CPU")};
        QCOMPARE(labels(nnwb::defaultSlots({0, 1, 2, 3}, noGpu)), QStringList({"cpu#1", "cpu#2"}));
        QCOMPARE(labels(nnwb::defaultSlots({0}, {})), QStringList({"cpu#1"}));
    }

    // On this machine: every device of platform 0 (PoCL's one in CI) runs the trials.
    void aSweepOnEveryDeviceOfPlatformZero() {
        const auto devices = nnwb::OpenClBackend::enumerate();
        if (devices.empty() || devices.front().id.rfind("opencl:0:", 0) != 0)
            QSKIP("no OpenCL platform 0 here (CI has PoCL)");
        QStringList want;
        for (const DeviceInfo& d : devices)
            if (d.id.rfind("opencl:0:", 0) == 0) want << QString::fromStdString(d.id) + "#1";
        const std::string dir = nnwb::test::tempDir();
        std::ofstream(dir + "/tiny.json") << R"({"formatVersion":1,"name":"tiny","data":{
            "source":"synthetic","samples":96,"units":2,"window":3},"model":{"layers":[
            {"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
            "training":{"epochs":2,"batchSize":8}})";
        std::ofstream(dir + "/spec.json")
            << R"({"name":"s","experiment":"tiny.json","method":"random","seed":3,"runCap":2,
            "parameters":[{"path":"training.optimizer.learningRate","min":0.001,"max":0.3}]})";
        const QString db = QString::fromStdString(dir + "/store/runs.sqlite");
        auto r = runCli({"sweep", "run", QString::fromStdString(dir + "/spec.json"), "--runs-db",
                         db, "--slots", "opencl:0:*=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        auto csv = runCli({"sweep", "export", "1", "--csv", QString::fromStdString(dir + "/t.csv"),
                           "--runs-db", db});
        QCOMPARE(csv.code, 0);
        std::ifstream in(dir + "/t.csv");
        std::string line;
        std::getline(in, line);
        QStringList slotsUsed;
        while (std::getline(in, line)) {
            const QStringList f = QString::fromStdString(line).split(',');
            QCOMPARE(f.value(3), QString("complete"));
            slotsUsed << f.value(6);
        }
        QCOMPARE(slotsUsed.size(), 2);
        for (const QString& s : slotsUsed) QVERIFY2(want.contains(s), qPrintable(s));
    }
};

QTEST_GUILESS_MAIN(SweepSlotsTest)
#include "tst_sweep_slots.moc"
