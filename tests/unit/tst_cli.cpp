// nnwb-cli as a user runs it: exit status 0 on success and 2 on bad input or arguments with
// the reason on stderr; devices lists cpu; train prints one JSON object per epoch.
#include <QtTest>

#include <fstream>

#include "common/CliRun.h"
#include "common/TestUtil.h"

class CliTest : public QObject {
    Q_OBJECT
    static nnwb::test::CliResult run(const QStringList& args) { return nnwb::test::runCli(args); }
    QString writeExperiment(const QString& text) {
        const QString path = QString::fromStdString(nnwb::test::tempDir()) + "/e.json";
        std::ofstream(path.toStdString()) << text.toStdString();
        return path;
    }
private slots:
    void devices() {
        auto r = run({"devices"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("cpu"));
        for (const auto& id : nnwb::test::openClDeviceIds())
            QVERIFY2(r.out.contains(QString::fromStdString(id)), qPrintable(r.out));
    }
    void badArguments() {
        QCOMPARE(run({}).code, 2);
        QCOMPARE(run({"frobnicate"}).code, 2);
        auto r = run({"train"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--experiment"));
        r = run({"train", "--experiment", "/nonexistent.json"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("/nonexistent.json"));
        const QString good = writeExperiment(
            R"({"formatVersion":1,"data":{"source":"synthetic","samples":64,"units":2,"window":3},
                "model":{"layers":[{"type":"dense","neurons":3}]},"training":{"epochs":1}})");
        r = run({"train", "--experiment", good, "--epochs", "zero"});
        QCOMPARE(r.code, 2);
        r = run({"train", "--experiment", good, "--device", "opencl:9:9"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("opencl:9:9"), qPrintable(r.err));
        const QString badShape = writeExperiment(
            R"({"formatVersion":1,"data":{"source":"synthetic","samples":64,"units":2,"window":3},
                "model":{"layers":[{"type":"conv","window":9,"step":1,"filters":2}]}})");
        r = run({"train", "--experiment", badShape});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("layer 1 (conv)"), qPrintable(r.err));
    }
    void trainJson() {
        const QString path = writeExperiment(
            R"({"formatVersion":1,"data":{"source":"synthetic","samples":96,"units":2,"window":3},
                "model":{"layers":[{"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
                "training":{"epochs":2,"batchSize":8}})");
        auto r = run({"train", "--experiment", path, "--json"});
        QCOMPARE(r.code, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        for (int i = 0; i < 2; ++i) {
            const auto obj = QJsonDocument::fromJson(lines[i].toUtf8()).object();
            QCOMPARE(obj["epoch"].toInt(), i + 1);
            QVERIFY(obj["loss"].toDouble() > 0);
            QVERIFY(obj.contains("seconds") && obj.contains("samplesPerSecond"));
            QVERIFY(obj.contains("validation"));
        }
    }
    void trainingFlags() {
        // A version 1 file trains all its epochs; the flags turn early stopping on. minDelta
        // 1000 makes every epoch after the first no improvement: patience 1 stops at epoch 2.
        const QString path = writeExperiment(
            R"({"formatVersion":1,"data":{"source":"synthetic","samples":96,"units":2,"window":3},
                "model":{"layers":[{"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
                "training":{"epochs":6,"batchSize":8,"optimizer":{"learningRate":0.01}}})");
        auto r = run({"train", "--experiment", path, "--json", "--early-stopping", "on",
                      "--patience", "1", "--min-delta", "1000", "--lr-schedule", "step",
                      "--lr-step-epochs", "1", "--lr-gamma", "0.5"});
        QCOMPARE(r.code, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const auto first = QJsonDocument::fromJson(lines[0].toUtf8()).object();
        const auto last = QJsonDocument::fromJson(lines[1].toUtf8()).object();
        QCOMPARE(first["learningRate"].toDouble(), 0.01);
        QCOMPARE(last["learningRate"].toDouble(), 0.005);
        QCOMPARE(first["best"].toBool(), true);
        QCOMPARE(last["bestEpoch"].toInt(), 1);
        QCOMPARE(last["stoppedEarly"].toBool(), true);
        QVERIFY(!first.contains("stoppedEarly"));
        // Text mode ends with the summary line.
        r = run({"train", "--experiment", path, "--early-stopping", "on", "--patience", "1",
                 "--min-delta", "1000"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("stopped early at epoch 2, best epoch 1 (validation loss"),
                 qPrintable(r.out));
        // Without the flags the version 1 file runs every epoch.
        r = run({"train", "--experiment", path, "--json"});
        QCOMPARE(r.out.trimmed().split('\n').size(), 6);
        // Bad values name the flag and the key.
        r = run({"train", "--experiment", path, "--patience", "0"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--patience: training.earlyStopping.patience: 0 is outside"),
                 qPrintable(r.err));
        r = run({"train", "--experiment", path, "--early-stopping", "maybe"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--early-stopping: 'maybe' is not on or off"), qPrintable(r.err));
        r = run({"train", "--experiment", path, "--lr-schedule", "exp"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--lr-schedule: training.lrSchedule.type"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(CliTest)
#include "tst_cli.moc"
