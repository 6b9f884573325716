// Divergence: a NaN or Inf in the loss or the weights stops the run with a message naming the
// epoch, the batch and the first offending layer, and the weights of the last good epoch are
// kept and can be saved. Model level on every device (a poisoned weight after epoch 1), and
// end to end (worker and nnwb-cli) with a learning rate that makes the loss grow until it
// overflows, several epochs in.
#include <QtTest>

#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>

#include <fstream>
#include <limits>

#include "app/core/MetaTypes.h"
#include "app/core/TrainingWorker.h"
#include "common/TestUtil.h"
#include "common/TextHelpers.h"
#include "compute/BackendRegistry.h"
#include "model/AtomicFile.h"
#include "model/ExperimentData.h"
#include "model/NetworkWeights.h"
#include "model/Trainer.h"
#include "model/WeightsSnapshot.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;
using nnwb::test::contains;
using json = nlohmann::json;

namespace {

// conv(tanh) + dense(none): a huge dense weight overflows the output to Inf.
Experiment linearHead(const std::string& device, int epochs) {
    json j = test::tinyExperimentJson(epochs, 16);
    j["model"]["layers"][1]["activation"] = "none";
    Experiment e = Experiment::fromJson(j);
    e.training.device = device;
    return e;
}

// Plain SGD with too large a step on a linear model: the loss grows by a steady factor per
// batch and overflows after several epochs (deterministic on the CPU backend).
Experiment runaway(int epochs) {
    json j = test::tinyExperimentJson(epochs, 16);
    j["model"]["layers"] =
        json::array({{{"type", "dense"}, {"neurons", 3}, {"activation", "none"}}});
    j["training"]["optimizer"] = {{"type", "sgd"}, {"learningRate", 2.0}, {"momentum", 0.0}};
    return Experiment::fromJson(j);
}

struct Run {
    ExperimentData data;
    std::unique_ptr<Backend> be;
    std::unique_ptr<Network> net;
    std::unique_ptr<Trainer> trainer;
    explicit Run(const Experiment& e) : data(loadExperimentData(e)) {
        if (!data.ok) throw std::runtime_error(data.error);
        be = createBackend(e.training.device);
        net = std::make_unique<Network>(Network::layersFromJson(e.model),
                                        data.split.train.inputShape);
        trainer = std::make_unique<Trainer>(*be, *net, e.training, data.split);
    }
};

// Runs `e` epoch by epoch like the worker; returns the message of the TrainingError and the
// epochs completed before it.
std::string trainUntilError(Run& r, int epochs, int* completed, WeightsSnapshot* snap) {
    for (int i = 0; i < epochs; ++i) {
        try {
            const EpochReport rep = r.trainer->runEpoch();
            std::string problem;
            if (!snap->capture(*r.net, rep.epoch, &problem)) return "weights: " + problem;
            *completed = rep.epoch;
        } catch (const TrainingError& e) {
            return e.what();
        }
    }
    return {};
}

}  // namespace

class DivergenceTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { registerMetaTypes(); }

    void poisonedWeight_data() {
        QTest::addColumn<QString>("device");
        for (const auto& id : test::testDeviceIds())
            QTest::newRow(id.c_str()) << QString::fromStdString(id);
    }
    // A NaN weight in layer 2 after epoch 1: epoch 2 stops at batch 1 naming that tensor; the
    // snapshot of epoch 1 is intact and saves to a loadable file.
    void poisonedWeight() {
        QFETCH(QString, device);
        Run r(linearHead(device.toStdString(), 3));
        WeightsSnapshot snap;
        r.trainer->runEpoch();
        QVERIFY(snap.capture(*r.net, 1));
        const TensorMap good = snap.tensors();
        TensorMap poisoned = good;
        poisoned["layers.1.weight"].values[5] = std::numeric_limits<float>::quiet_NaN();
        writeWeights(*r.net, poisoned);

        std::string problem;
        QVERIFY(!snap.capture(*r.net, 2, &problem));  // the weights check names it too
        QVERIFY2(contains(problem, "layer 2 (dense): tensor layers.1.weight[5] is NaN"),
                 problem.c_str());
        QCOMPARE(snap.epoch(), 1);

        try {
            r.trainer->runEpoch();
            QFAIL("a NaN weight did not stop the epoch");
        } catch (const TrainingError& e) {
            const std::string m = e.what();
            QVERIFY2(contains(m, "the loss became NaN in epoch 2, batch 1"), m.c_str());
            QVERIFY2(contains(m, "layer 2 (dense): tensor layers.1.weight[5] is NaN"), m.c_str());
        }
        const std::string path = test::tempDir() + "/good.safetensors";
        snap.save(path);
        const TensorMap back = loadSafetensors(path);
        QVERIFY(back.at("layers.1.weight").values == good.at("layers.1.weight").values);
        writeWeights(*r.net, back);  // fits the network again
    }

    void overflowingOutput_data() { poisonedWeight_data(); }
    // Finite but huge weights: the loss overflows, no parameter is non-finite, and the message
    // names the first layer whose output does.
    void overflowingOutput() {
        QFETCH(QString, device);
        Run r(linearHead(device.toStdString(), 2));
        r.trainer->runEpoch();
        TensorMap w = readWeights(*r.net);
        for (float& v : w["layers.1.weight"].values) v = 3e38f;
        writeWeights(*r.net, w);
        try {
            r.trainer->runEpoch();
            QFAIL("an overflowing output did not stop the epoch");
        } catch (const TrainingError& e) {
            const std::string m = e.what();
            QVERIFY2(contains(m, "in epoch 2, batch 1"), m.c_str());
            QVERIFY2(contains(m, "layer 2 (dense): output["), m.c_str());
            QVERIFY2(contains(m, "Inf"), m.c_str());
        }
    }

    // The run-away learning rate diverges after a few good epochs on the CPU backend.
    void runawayDivergesLate() {
        Run r(runaway(200));
        WeightsSnapshot snap;
        int completed = 0;
        const std::string m = trainUntilError(r, 200, &completed, &snap);
        QVERIFY2(!m.empty(), "the run-away experiment did not diverge in 200 epochs");
        QVERIFY2(completed >= 2, m.c_str());
        QVERIFY2(contains(m, "in epoch " + std::to_string(completed + 1) + ", batch "), m.c_str());
        QVERIFY2(contains(m, "layer 1 (dense)"), m.c_str());
        QCOMPARE(snap.epoch(), completed);
    }

    // The worker: the run fails naming epoch, batch and layer; Export Weights saves the weights
    // of the last good epoch, equal to a run stopped after that many epochs.
    void workerKeepsLastGoodEpoch() {
        TrainingWorker worker;
        QSignalSpy epochs(&worker, &TrainingWorker::epochFinished);
        QSignalSpy finished(&worker, &TrainingWorker::runFinished);
        QSignalSpy saved(&worker, &TrainingWorker::weightsSaved);
        worker.start(runaway(200), std::make_shared<TrainControl>());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Failed);
        const int good = epochs.count();
        QVERIFY(good >= 2);
        const QString m = finished.first().at(1).toString();
        QVERIFY2(m.contains(QStringLiteral("in epoch %1, batch ").arg(good + 1)), qPrintable(m));
        QVERIFY2(m.contains(QStringLiteral("layer 1 (dense)")), qPrintable(m));
        QVERIFY2(m.contains(QStringLiteral("epoch %1, the last good one").arg(good)),
                 qPrintable(m));

        const std::string dir = test::tempDir();
        worker.saveWeights(QString::fromStdString(dir + "/kept.safetensors"));
        QVERIFY2(saved.last().at(0).toBool(), qPrintable(saved.last().at(1).toString()));

        Run ref(runaway(good));
        for (int i = 0; i < good; ++i) ref.trainer->runEpoch();
        const TensorMap want = readWeights(*ref.net);
        const TensorMap got = loadSafetensors(dir + "/kept.safetensors");
        QCOMPARE(got.size(), want.size());
        for (const auto& [name, t] : want) QVERIFY2(got.at(name).values == t.values, name.c_str());
    }

    // nnwb-cli: exit status 1, the message on stderr, --save-weights holds the last good epoch.
    void cliSavesLastGoodEpoch() {
        const std::string dir = test::tempDir();
        std::ofstream(dir + "/e.json") << runaway(200).toJson().dump();
        QProcess p;
        p.start(NNWB_CLI_PATH, {"train", "--experiment", QString::fromStdString(dir + "/e.json"),
                                "--save-weights", QString::fromStdString(dir + "/w.safetensors")});
        QVERIFY(p.waitForFinished(120000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitCode(), 1);
        const int good = int(out.count(
            QRegularExpression(QStringLiteral("^epoch "), QRegularExpression::MultilineOption)));
        QVERIFY2(good >= 2, qPrintable(out));
        QVERIFY2(err.contains(QStringLiteral("in epoch %1, batch ").arg(good + 1)),
                 qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("layer 1 (dense)")), qPrintable(err));
        QVERIFY2(
            err.contains(
                QStringLiteral("weights of epoch %1 (the last good one) were saved").arg(good)),
            qPrintable(err));
        std::ofstream(dir + "/ref.json") << runaway(good).toJson().dump();
        QProcess ref;
        ref.start(NNWB_CLI_PATH,
                  {"train", "--experiment", QString::fromStdString(dir + "/ref.json"),
                   "--save-weights", QString::fromStdString(dir + "/ref.safetensors")});
        QVERIFY(ref.waitForFinished(120000));
        QCOMPARE(ref.exitCode(), 0);
        QCOMPARE(readFile(dir + "/w.safetensors"), readFile(dir + "/ref.safetensors"));
    }
};

QTEST_GUILESS_MAIN(DivergenceTest)
#include "tst_divergence.moc"
