// nnwb-cli as a user runs it: exit status 0 on success and 2 on bad input or arguments with
// the reason on stderr; devices lists cpu; train prints one JSON object per epoch.
#include <QtTest>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "nnwb/TestPaths.h"

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
    // Issue 19: bench reads a peer's output and prints nnwb's ratio to every matching row;
    // OpenCL rows carry the kernel launches per training step.
    void benchPeerRatios() {
        const QString peer = QString::fromStdString(nnwb::test::tempDir()) + "/peer.txt";
        std::ofstream(peer.toStdString())
            << "torch 2.11.0 eager cpu preset=mql5-fractal-5x8 batch=1 samples/s=200 ms/step=5\n"
               "torch 2.11.0 graph cuda preset=mql5-fractal-5x8 batch=1 samples/s=1000.5 x=1\n"
               "torch 2.11.0 graph cuda preset=mql5-fractal-5x8 batch=64 samples/s=43096\n"
               "a line of something else\n";
        QStringList args{"bench",   "--device", "cpu",       "--preset", "mql5-fractal-5x8",
                         "--batch", "1",        "--seconds", "1",        "--peer",
                         peer,      "--json"};
        const auto ids = nnwb::test::openClDeviceIds();
        if (!ids.empty()) args << "--device" << QString::fromStdString(ids.front());
        auto r = run(args);
        QCOMPARE(r.code, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), ids.empty() ? 1 : 2);
        for (const QString& line : lines) {
            const auto obj = QJsonDocument::fromJson(line.toUtf8()).object();
            const double mine = obj["trainSamplesPerSecond"].toDouble();
            QVERIFY(mine > 0);
            const auto peers = obj["peers"].toArray();
            QCOMPARE(peers.size(), 2);  // the batch-64 row is another row's peer
            QCOMPARE(peers[0].toObject()["peer"].toString(), QString("torch 2.11.0 eager cpu"));
            QCOMPARE(peers[1].toObject()["samplesPerSecond"].toDouble(), 1000.5);
            QVERIFY(qAbs(peers[0].toObject()["ratio"].toDouble() - mine / 200.0) < 1e-9 * mine);
            QCOMPARE(obj.contains("launchesPerStep"), obj["device"].toString() != "cpu");
            // Issue 31: the five attention blocks fused (one launch forward, one backward each):
            // 31 launches a step where the per-op path (NNWB_FUSED=0) takes 131.
            if (obj.contains("launchesPerStep")) {
                const double launches = obj["launchesPerStep"].toDouble();
                QVERIFY2(launches >= 10 && launches <= 40, qPrintable(line));
            }
        }
        const QString empty = writeExperiment("no rows here");
        r = run({"bench", "--device", "cpu", "--peer", empty});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("no peer rows") && r.err.contains(empty), qPrintable(r.err));
    }
    // Issue 13, finding 9: --help on nnwb-cli and every subcommand exits 0 with its usage.
    void helpEverywhere() {
        auto r = run({"--help"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("usage: nnwb-cli COMMAND"));
        // The training options sit under train, the runs commands after export (the runs
        // lines were once passed as the training options' %s argument).
        QVERIFY2(r.out.contains("[--clip-norm X]"), qPrintable(r.out));
        QVERIFY2(r.out.indexOf("train and print") < r.out.indexOf("runs list"), qPrintable(r.out));
        QVERIFY2(r.out.indexOf("  export --model") < r.out.indexOf("runs list"), qPrintable(r.out));
        for (const char* cmd : {"devices", "data", "train", "walkforward", "bench", "compare",
                                "predict", "export", "runs"}) {
            for (const char* flag : {"--help", "-h"}) {
                r = run({cmd, flag});
                QVERIFY2(r.code == 0, qPrintable(QString("%1 %2: %3").arg(cmd, flag, r.err)));
                QVERIFY2(r.out.startsWith(QString("usage: nnwb-cli ") + cmd), qPrintable(r.out));
            }
        }
        r = run({"train", "--experiment", "x.json", "--help"});  // anywhere on the line
        QCOMPARE(r.code, 0);
    }
    // A missing file is named as resolved: the price file relative to the experiment, and an
    // experiment given relative to the working folder.
    void missingFileNamesResolvedPath() {
        const QString path = writeExperiment(
            R"({"formatVersion":1,"data":{"source":"file","file":"../no/such/prices.csv"},
                "model":{"layers":[{"type":"dense","neurons":3}]}})");
        const QString dir = QFileInfo(path).absolutePath();
        auto r = run({"train", "--experiment", path});
        QCOMPARE(r.code, 2);
        const QString resolved = QDir::cleanPath(dir + "/../no/such/prices.csv");
        QVERIFY2(r.err.contains("cannot open " + resolved + ": No such file"), qPrintable(r.err));
        QProcess p;
        p.setWorkingDirectory(dir);
        p.start(NNWB_CLI_PATH, {"train", "--experiment", "missing.json"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("missing.json (" + dir + "/missing.json)"), qPrintable(err));
    }
    // `train --experiment NAME` takes a preset's name as `compare` does (issue 24): the run is
    // recorded under the preset's name and file; an unknown name lists the presets.
    void trainTakesPresetNames() {
        const QString res = QString::fromStdString(nnwb::test::tempDir()) + "/res";
        QVERIFY(QDir().mkpath(res + "/presets"));
        nlohmann::json j = nlohmann::json::parse(
            R"({"formatVersion":1,"name":"Tiny preset",
                "data":{"source":"synthetic","samples":64,"units":2,"window":3},
                "model":{"layers":[{"type":"dense","neurons":3}]},"training":{"epochs":1}})");
        std::ofstream((res + "/presets/tiny-preset.json").toStdString()) << j.dump();
        const QByteArray old = qgetenv("NNWB_RESOURCE_DIR");
        qputenv("NNWB_RESOURCE_DIR", res.toUtf8());
        auto r = run({"train", "--experiment", "tiny-preset", "--json"});
        auto wrong = run({"train", "--experiment", "tiny-presett"});
        auto list = run({"runs", "list", "--json"});
        qputenv("NNWB_RESOURCE_DIR", old);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(wrong.code, 2);
        QVERIFY2(wrong.err.contains("tiny-presett") &&
                     wrong.err.contains(QRegularExpression("[ (]tiny-preset[,)]")),
                 qPrintable(wrong.err));
        QCOMPARE(list.code, 0);
        const auto runs = nlohmann::json::parse(list.out.toStdString());
        bool found = false;
        for (const auto& run : runs)
            found |= run["name"] == "Tiny preset" &&
                     QString::fromStdString(run["experimentFile"].get<std::string>())
                         .endsWith("presets/tiny-preset.json");
        QVERIFY2(found, qPrintable(list.out));
    }
    // --save-weights says what it wrote; weights of other shapes exit 2 naming the tensor and
    // both shapes.
    void weightsFiles() {
        const QString small = writeExperiment(
            R"({"formatVersion":1,"data":{"source":"synthetic","samples":64,"units":2,"window":3},
                "model":{"layers":[{"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
                "training":{"epochs":1,"batchSize":8}})");
        const QString weights = QFileInfo(small).absolutePath() + "/w.safetensors";
        auto r = run({"train", "--experiment", small, "--save-weights", weights});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("saved the weights of epoch 1 (the last epoch) to " + weights +
                                ": 4 tensors, 43 parameters"),
                 qPrintable(r.out));
        const QString wider = writeExperiment(
            R"({"formatVersion":1,"data":{"source":"synthetic","samples":64,"units":2,"window":3},
                "model":{"layers":[{"type":"dense","neurons":5},{"type":"dense","neurons":3}]},
                "training":{"epochs":1,"batchSize":8}})");
        r = run({"train", "--experiment", wider, "--load-weights", weights});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("tensor layers.0.weight has shape [4,6], the network needs [5,6]"),
                 qPrintable(r.err));
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
        r = run({"train", "--experiment", path, "--class-weights", "1,x"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--class-weights: 'x' is not a number"), qPrintable(r.err));
        r = run({"train", "--experiment", path, "--class-weights", "1,2"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("2 weights for a model with 3 outputs"), qPrintable(r.err));
        r = run({"train", "--experiment", path, "--json", "--class-weights", "balanced",
                 "--clip-norm", "0.001", "--epochs", "1"});
        QCOMPARE(r.code, 0);
        const auto clipped = QJsonDocument::fromJson(r.out.trimmed().toUtf8()).object();
        QVERIFY(clipped["gradNorm"].toObject()["max"].toDouble() > 0.001);
        QVERIFY(clipped["gradNorm"].toObject()["mean"].toDouble() > 0);
        r = run({"train", "--experiment", path, "--lr-schedule", "exp"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--lr-schedule: training.lrSchedule.type"), qPrintable(r.err));
    }
    // Issue 41: `train --save-model /dev/null` as root replaced the machine's /dev/null with a
    // regular file (a temporary file renamed over it), and a symlinked target lost its link.
    // Now a character device (made here by mknod, as root; CI runs as root) stays one and a
    // link is kept with its target updated.
    void saveKeepsDevicesAndLinks() {
        const QString dir = QString::fromStdString(nnwb::test::tempDir());
        const QString experiment = writeExperiment(QString::fromStdString(nlohmann::json{
            {"formatVersion", 1},
            {"data", {{"file", nnwb::defaultDataFile()}, {"window", 8}}},
            {"model", {{"layers", {{{"type", "dense"}, {"neurons", 3}}}}}},
            {"training", {{"epochs", 1}, {"batchSize", 64}}}}.dump()));
        const QString link = dir + "/link.safetensors", real = dir + "/real.safetensors";
        QVERIFY(QFile::link("real.safetensors", link));
        auto r = run({"train", "--experiment", experiment, "--save-model", link});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(QFileInfo(link).isSymLink());
        QVERIFY(QFileInfo(real).size() > 1000);
        if (geteuid() != 0) QSKIP("mknod of a character device needs root (CI runs as root)");
        const QString dev = dir + "/null";
        QCOMPARE(mknod(dev.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 3)), 0);
        r = run({"train", "--experiment", experiment, "--save-model", dev});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        struct stat st {};
        QCOMPARE(stat(dev.toLocal8Bit().constData(), &st), 0);
        QVERIFY(S_ISCHR(st.st_mode));
        QCOMPARE(st.st_rdev, makedev(1, 3));
        QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::System | QDir::NoDotAndDotDot).size(), 3);
    }
    // Issue 41: /dev/zero as an experiment or model was read until ~2 GB, then "unexpected end
    // of input"; a FIFO blocked. Refused at once with exit 2, naming the file and what it is.
    void endlessInputsRefused() {
        const QString dir = QString::fromStdString(nnwb::test::tempDir());
        const QString fifo = dir + "/e.json";
        QCOMPARE(mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const QString data = QString::fromStdString(nnwb::defaultDataFile());
        const QList<QPair<QStringList, QString>> cases = {
            {{"train", "--experiment", "/dev/zero"},
             "cannot read /dev/zero: not a regular file (a character device)"},
            {{"train", "--experiment", fifo},
             "cannot read " + fifo + ": not a regular file (a FIFO)"},
            {{"predict", "--model", "/dev/zero", "--data", data},
             "cannot read /dev/zero: not a regular file (a character device)"},
            {{"export", "--model", "/dev/zero", "--onnx", dir + "/m.onnx"},
             "cannot read /dev/zero: not a regular file"}};
        for (const auto& [args, message] : cases) {
            QElapsedTimer t;
            t.start();
            const auto r = nnwb::test::runCli(args, 20000);
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains(message), qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY2(t.elapsed() < 10000, qPrintable(args.join(' ')));
        }
    }
};

QTEST_GUILESS_MAIN(CliTest)
#include "tst_cli.moc"
