// GUI: the device list and the status bar's device say which backend a device is (issue 24,
// part 4): an OpenCL device was listed by its name alone ("cpu-haswell-…", "NVIDIA H100"),
// which for PoCL's CPU device reads like the native CPU backend.
#include <QtTest>

#include "ui/DevicePicker.h"

using namespace nnwb;

class TestDeviceLabels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void openClDevicesSayOpenCl() {
        DeviceInfo cpu;
        cpu.id = "cpu";
        cpu.name = "CPU (native C++)";
        cpu.computeUnits = 2;
        DeviceInfo cl;
        cl.id = "opencl:0:0";
        cl.name = "cpu-haswell-AMD EPYC";
        cl.platform = "Portable Computing Language";
        cl.version = "OpenCL 3.0 PoCL";
        cl.type = "CPU";
        cl.computeUnits = 2;
        cl.globalMemory = 4ull << 30;
        DevicePicker picker;
        picker.setDevices({cpu, cl});
        QCOMPARE(picker.count(), 2);
        QVERIFY2(!picker.itemText(0).contains(QStringLiteral("OpenCL")),
                 qPrintable(picker.itemText(0)));
        QVERIFY2(picker.itemText(1).startsWith(QStringLiteral("OpenCL")),
                 qPrintable(picker.itemText(1)));
        // The status bar's name for the device, too.
        QVERIFY2(picker.labelFor(QStringLiteral("opencl:0:0")).contains(QStringLiteral("OpenCL")),
                 qPrintable(picker.labelFor(QStringLiteral("opencl:0:0"))));
        QVERIFY(!picker.labelFor(QStringLiteral("cpu")).contains(QStringLiteral("OpenCL")));
    }
};

QTEST_MAIN(TestDeviceLabels)
#include "tst_device_labels.moc"
