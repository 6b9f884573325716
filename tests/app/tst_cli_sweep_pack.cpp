// Packed sweep trials (docs/sweeps.md "Packed trials"): a packed `train --trial` child (member
// lines, one answer line per round, a prune masks one member while the others go on); a sweep
// with population 4 runs its 4 trials in one process and records them with the same epochs, bit
// for bit, as the sweep with population 1 (4 trials alone); the median pruner prunes one member of
// a packed process while the others complete; trials of two architectures run as two
// populations; a member whose loss overflows fails alone; the process killed mid-run puts its
// members back in the queue, and after kill -9 of the coordinator `sweep resume` runs them
// again; `sweep stop` stops every member and `sweep resume` completes them; bad population
// values are refused; the memory cap (membersThatFit) packs fewer when the device's share is
// too small.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <signal.h>
#include <filesystem>
#include <fstream>
#include <map>

#include "app/runs/RunStore.h"
#include "app/sweep/TrialPacking.h"
#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "model/ExperimentData.h"
#include "model/MemoryCheck.h"
#include "nnwb/TestPaths.h"

using nnwb::test::runCli;
namespace fs = std::filesystem;

namespace {

QJsonObject nextPackLine(QProcess& p, int timeoutMs = 60000) {
    QElapsedTimer t;
    t.start();
    while (!p.canReadLine() && t.elapsed() < timeoutMs) p.waitForReadyRead(200);
    if (!p.canReadLine()) return {};
    return QJsonDocument::fromJson(p.readLine()).object();
}

const char* kTiny = R"({"formatVersion":1,"name":"tiny","data":{
    "source":"synthetic","samples":96,"units":2,"window":3},"model":{"layers":[
    {"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
    "training":{"epochs":3,"batchSize":8,"optimizer":{"type":"adam","learningRate":0.01}}})";

// One linear layer under plain SGD: a learning rate of 10 makes its loss overflow in epoch 3.
const char* kLinear = R"({"formatVersion":1,"name":"lin","data":{
    "source":"synthetic","samples":96,"units":2,"window":3},"model":{"layers":[
    {"type":"dense","neurons":3,"activation":"none"}]},
    "training":{"epochs":3,"batchSize":8,"optimizer":{"type":"sgd","learningRate":0.01,
    "momentum":0}}})";

}  // namespace

class CliSweepPackTest : public QObject {
    Q_OBJECT
    QString dir_;

    QString write(const QString& name, const QString& text) {
        const QString path = dir_ + "/" + name;
        std::ofstream(path.toStdString()) << text.toStdString();
        return path;
    }
    QString db(const QString& name) const { return dir_ + "/" + name + "/runs.sqlite"; }
    // The trial processes the sweep started: one stderr file each (a slot's kept worker has
    // one, its first trial's, for all the trials it ran).
    int processes(const QString& store, int sweep = 1) const {
        int n = 0;
        const fs::path folder =
            fs::path((dir_ + "/" + store).toStdString()) / "runs-sweeps" / std::to_string(sweep);
        for (const auto& f : fs::directory_iterator(folder)) n += f.path().extension() == ".err";
        return n;
    }
    QJsonObject show(const QString& store) {
        auto r = runCli({"sweep", "show", "1", "--json", "--runs-db", db(store)});
        if (r.code != 0) qWarning("%s", qPrintable(r.err));
        return QJsonDocument::fromJson(r.out.toUtf8()).object();
    }
    // Trial number -> its trial object of `sweep show --json`.
    std::map<int, QJsonObject> trials(const QString& store) {
        std::map<int, QJsonObject> out;
        for (const QJsonValue& v : show(store)["trials"].toArray())
            out[v.toObject()["number"].toInt()] = v.toObject();
        return out;
    }

private slots:
    void init() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        write("tiny.json", kTiny);
        write("lin.json", kLinear);
    }

    void packedChildPrunesOneMemberAlone() {
        QString fast = QString(kTiny).replace("0.01}", "0.05}");
        write("fast.json", fast);
        QProcess p;
        p.start(NNWB_CLI_PATH, {"train", "--trial", "--experiment", dir_ + "/tiny.json",
                                "--experiment", dir_ + "/fast.json"});
        for (int m = 0; m < 2; ++m) {
            const QJsonObject s = nextPackLine(p);
            QCOMPARE(s["event"].toString(), QString("started"));
            QCOMPARE(s["member"].toInt(), m);
            QCOMPARE(s["epochs"].toInt(), 3);
        }
        for (int m = 0; m < 2; ++m) {
            const QJsonObject e = nextPackLine(p);
            QCOMPARE(e["event"].toString(), QString("epoch"));
            QCOMPARE(e["member"].toInt(), m);
            QCOMPARE(e["epoch"].toInt(), 1);
        }
        QJsonObject ask = nextPackLine(p);
        QCOMPARE(ask["event"].toString(), QString("answer"));
        QCOMPARE(ask["members"].toArray().size(), 2);
        p.write("{\"0\":\"continue\",\"1\":\"prune\"}\n");
        QJsonObject e2 = nextPackLine(p);
        QCOMPARE(e2["member"].toInt(), 0);  // the pruned member trains no more
        QCOMPARE(e2["epoch"].toInt(), 2);
        ask = nextPackLine(p);
        // QJsonArray({0}) is the private QCborContainerPrivate* constructor to clang (0 = null).
        QCOMPARE(ask["members"].toArray(), QJsonArray{QJsonValue(0)});
        p.write("continue\n");
        QCOMPARE(nextPackLine(p)["epoch"].toInt(), 3);
        const QJsonObject end0 = nextPackLine(p), end1 = nextPackLine(p);
        QCOMPARE(end0["member"].toInt(), 0);
        QCOMPARE(end0["status"].toString(), QString("completed"));
        QCOMPARE(end1["member"].toInt(), 1);
        QCOMPARE(end1["status"].toString(), QString("pruned"));
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 3);  // a member pruned, none failed or stopped

        // Experiments that cannot share a population: bad input, said for all of them.
        write("wide.json", QString(kTiny).replace("\"neurons\":4", "\"neurons\":6"));
        auto r = runCli({"train", "--trial", "--experiment", dir_ + "/tiny.json", "--experiment",
                         dir_ + "/wide.json"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.out.contains("\"status\":\"failed\"") && r.out.contains("differs"),
                 qPrintable(r.out));
        r = runCli(
            {"train", "--experiment", dir_ + "/tiny.json", "--experiment", dir_ + "/tiny.json"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("only with --trial"), qPrintable(r.err));
    }

    void packedSweepEqualsOneByOne() {
        const QString spec = write("grid.json", R"({"name":"g","experiment":"tiny.json",
            "method":"grid","population":4,"parameters":[
            {"path":"training.optimizer.learningRate","values":[0.003,0.03]},
            {"path":"training.seed","values":[1,2]}]})");
        auto packed = runCli({"sweep", "run", spec, "--runs-db", db("packed"), "--slots", "cpu=1"});
        QVERIFY2(packed.code == 0, qPrintable(packed.out + packed.err));
        QVERIFY2(packed.out.contains("trials 0, 1, 2, 3 packed as one population on cpu#1"),
                 qPrintable(packed.out));
        auto alone = runCli({"sweep", "run", spec, "--runs-db", db("alone"), "--slots", "cpu=1",
                             "--population", "1"});
        QVERIFY2(alone.code == 0, qPrintable(alone.out + alone.err));
        QVERIFY(!alone.out.contains("packed"));
        QCOMPARE(processes("packed"), 1);
        QCOMPARE(processes("alone"), 1);  // the slot's kept worker ran the 4 (docs/sweeps.md)
        const auto a = trials("packed"), b = trials("alone");
        QCOMPARE(int(a.size()), 4);
        nnwb::RunStore sa(db("packed").toStdString(), false), sb(db("alone").toStdString(), false);
        for (const auto& [n, t] : a) {
            QCOMPARE(t["state"].toString(), QString("complete"));
            QCOMPARE(t["params"].toObject(), b.at(n)["params"].toObject());
            const auto ra = sa.get(t["run"].toInteger()), rb = sb.get(b.at(n)["run"].toInteger());
            QVERIFY(ra && rb);
            QCOMPARE(QString::fromStdString(ra->status), QString("completed"));
            QCOMPARE(ra->seed, rb->seed);
            QCOMPARE(int(ra->epochs.size()), 3);
            QCOMPARE(ra->epochs.size(), rb->epochs.size());
            for (size_t e = 0; e < ra->epochs.size(); ++e) {
                const auto &x = ra->epochs[e].report, &y = rb->epochs[e].report;
                // Bit for bit (QCOMPARE on doubles is fuzzy; == is not).
                QVERIFY2(x.train.loss == y.train.loss, qPrintable(QString::number(n)));
                QVERIFY2(x.validation.loss == y.validation.loss, qPrintable(QString::number(n)));
            }
            QCOMPARE(t["value"].toDouble(), b.at(n)["value"].toDouble());
            QVERIFY(!ra->bundles.empty());  // each member's model stored with its run
        }
    }

    void medianPrunerPrunesOneMemberOthersComplete() {
        // Trials 0-2 (one process) complete; in the second process trial 3's tiny rate is
        // worse than their median after epoch 1 and is pruned, trials 4 and 5 complete.
        const QString spec = write("median.json", R"({"name":"m","experiment":"tiny.json",
            "method":"grid","population":3,
            "earlyTerminate":{"type":"median","startupTrials":3,"warmupEpochs":0},
            "parameters":[{"path":"training.optimizer.learningRate",
                           "values":[0.01,0.03,0.05,0.00001,0.08,0.1]}]})");
        auto r = runCli({"sweep", "run", spec, "--runs-db", db("median"), "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QCOMPARE(r.out.count("packed as one population"), 2);
        QCOMPARE(processes("median"), 1);  // both populations on the slot's kept worker
        const auto t = trials("median");
        for (int n : {0, 1, 2, 4, 5}) {
            QCOMPARE(t.at(n)["state"].toString(), QString("complete"));
            QCOMPARE(t.at(n)["epochs"].toInt(), 3);
        }
        QCOMPARE(t.at(3)["state"].toString(), QString("pruned"));
        QCOMPARE(t.at(3)["prunedAt"].toInt(), 1);
        QCOMPARE(t.at(3)["epochs"].toInt(), 1);
        nnwb::RunStore store(db("median").toStdString(), false);
        const auto pruned = store.get(t.at(3)["run"].toInteger());
        QCOMPARE(QString::fromStdString(pruned->status), QString("stopped"));
        QCOMPARE(int(pruned->epochs.size()), 1);
    }

    void architecturesAreNotPackedTogether() {
        const QString spec = write("arch.json", R"({"name":"a","experiment":"tiny.json",
            "method":"grid","population":4,"parameters":[
            {"path":"model.layers[0].neurons","values":[4,6]},
            {"path":"training.optimizer.learningRate","values":[0.01,0.03]}]})");
        auto r = runCli({"sweep", "run", spec, "--runs-db", db("arch"), "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QCOMPARE(processes("arch"), 1);  // the slot's kept worker ran both populations
        QCOMPARE(r.out.count("packed as one population"), 2);
        const auto t = trials("arch");
        QCOMPARE(int(t.size()), 4);
        for (const auto& [n, x] : t) QCOMPARE(x["state"].toString(), QString("complete"));
    }

    void aDivergingMemberFailsAlone() {
        const QString spec = write("div.json", R"({"name":"d","experiment":"lin.json",
            "method":"grid","population":3,"parameters":[
            {"path":"training.optimizer.learningRate","values":[0.01,10,0.02]}]})");
        auto r = runCli({"sweep", "run", spec, "--runs-db", db("div"), "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QCOMPARE(processes("div"), 1);
        const auto t = trials("div");
        QCOMPARE(t.at(0)["state"].toString(), QString("complete"));
        QCOMPARE(t.at(2)["state"].toString(), QString("complete"));
        QCOMPARE(t.at(2)["epochs"].toInt(), 3);
        QCOMPARE(t.at(1)["state"].toString(), QString("failed"));
        QVERIFY2(t.at(1)["error"].toString().contains("the loss became infinite"),
                 qPrintable(t.at(1)["error"].toString()));
        QCOMPARE(t.at(1)["attempts"].toInt(), 1);  // a divergence is not retried
    }

    // Starts a packed sweep of two slow trials in `p`; returns its trial process's pid once
    // it runs (0 when none came).
    pid_t startSlowPackedSweep(QProcess& p, const QString& store, int epochs = 40) {
        // 16,000 samples: a whole attempt takes seconds, well past the kill 300 ms after the
        // trial process appears (with 4,000 the faster CPU products let it finish first in CI)
        write("slow.json", QString(kTiny).replace("\"samples\":96", "\"samples\":16000"));
        const QString spec = write("kill.json", QString(R"({"name":"k","experiment":"slow.json",
            "method":"grid","population":2,"epochs":%1,"parameters":[
            {"path":"training.optimizer.learningRate","values":[0.01,0.02]}]})")
                                                    .arg(epochs));
        p.start(NNWB_CLI_PATH, {"sweep", "run", spec, "--runs-db", db(store), "--slots", "cpu=1"});
        if (!p.waitForStarted()) return 0;
        // The child's pid: the process whose parent is the coordinator.
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 30000) {
            for (const auto& d : fs::directory_iterator("/proc")) {
                std::ifstream stat(d.path() / "stat");
                std::string pid, comm, state;
                long long ppid = 0;
                if (stat >> pid >> comm >> state >> ppid && ppid == p.processId())
                    return pid_t(std::stoll(pid));
            }
            QThread::msleep(50);
        }
        return 0;
    }

    void aKilledProcessRequeuesItsMembers() {
        // A trial process killed mid-run: its members go back to the queue and run again (a
        // second attempt) in a new process.
        QProcess p;
        const pid_t child = startSlowPackedSweep(p, "kill");
        QVERIFY(child > 0);
        QThread::msleep(300);
        ::kill(child, SIGKILL);
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const QString out = p.readAllStandardOutput();
        QCOMPARE(out.count("requeued"), 2);
        QVERIFY2(out.count("packed as one population") == 2, qPrintable(out));
        for (const auto& [n, x] : trials("kill")) {
            QCOMPARE(x["state"].toString(), QString("complete"));
            QCOMPARE(x["attempts"].toInt(), 2);
            QCOMPARE(x["epochs"].toInt(), 40);
        }
    }

    void aKilledCoordinatorIsResumed() {
        // kill -9 of the coordinator: its packed process ends too; `sweep resume` runs both
        // members again, packed, each as its second attempt; the store stays whole.
        QProcess p;
        const pid_t child = startSlowPackedSweep(p, "coord");
        QVERIFY(child > 0);
        QThread::msleep(300);
        ::kill(pid_t(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(60000));
        QElapsedTimer t;  // the trial process follows its coordinator (PR_SET_PDEATHSIG)
        t.start();
        while (::kill(child, 0) == 0 && t.elapsed() < 10000) QThread::msleep(50);
        auto r = runCli({"sweep", "resume", "1", "--runs-db", db("coord"), "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("trials 0, 1 packed as one population"), qPrintable(r.out));
        for (const auto& [n, x] : trials("coord")) {
            QCOMPARE(x["state"].toString(), QString("complete"));
            QCOMPARE(x["attempts"].toInt(), 2);
        }
        nnwb::RunStore store(db("coord").toStdString(), false);
        QCOMPARE(QString::fromStdString(store.integrityCheck()), QString("ok"));
    }

    void sweepStopStopsEveryMemberThenResume() {
        // `sweep stop`: the packed process is answered "stop" for every member at the next
        // round; both go back to the queue (exit status 4), and `sweep resume` completes them.
        QProcess p;
        const pid_t child = startSlowPackedSweep(p, "stop", 150);
        QVERIFY(child > 0);
        QThread::msleep(300);
        auto r = runCli({"sweep", "stop", "1", "--runs-db", db("stop")});
        QCOMPARE(r.code, 0);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 4);
        for (const auto& [n, x] : trials("stop")) {
            QCOMPARE(x["state"].toString(), QString("queued"));
            QVERIFY(x["epochs"].toInt() < 150);
        }
        r = runCli({"sweep", "resume", "1", "--runs-db", db("stop"), "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        for (const auto& [n, x] : trials("stop")) {
            QCOMPARE(x["state"].toString(), QString("complete"));
            QCOMPARE(x["epochs"].toInt(), 150);
        }
    }

    void badPopulationValuesAreRefused() {
        for (const QString& v : {QString("0"), QString("-2"), QString("\"4\""), QString("5000")}) {
            const QString spec = write("bad.json", QString(R"({"experiment":"tiny.json",
                "runCap":2,"population":%1,"parameters":[
                {"path":"training.optimizer.learningRate","min":0.001,"max":0.1}]})")
                                                       .arg(v));
            auto r = runCli({"sweep", "run", spec, "--runs-db", db("bad")});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains(spec + ": population: must be an integer in 1..4096"),
                     qPrintable(r.err));
        }
        const QString ok = write("ok.json", R"({"experiment":"tiny.json","runCap":2,
            "parameters":[{"path":"training.optimizer.learningRate","min":0.001,"max":0.1}]})");
        auto r = runCli({"sweep", "run", ok, "--runs-db", db("bad"), "--population", "0"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--population"), qPrintable(r.err));
        QVERIFY(!fs::exists(db("bad").toStdString()));  // nothing stored
    }

    void membersThatFitTheDeviceShare() {
        nnwb::Experiment e = nnwb::Experiment::fromJson(nlohmann::json::parse(kTiny));
        const nnwb::ExperimentData data = nnwb::loadExperimentData(e);
        QVERIFY(data.ok);
        std::vector<nnwb::Experiment> four(4, e);
        auto need = [&](size_t n) {
            std::vector<nnwb::TrainingConfig> c(n, e.training);
            return nnwb::trainingMemoryNeed(e.model, c, data.split).totalBytes;
        };
        QVERIFY(need(3) > need(2));
        nnwb::DeviceInfo dev;
        dev.id = "opencl:9:9";
        dev.globalMemory = need(4);
        QCOMPARE(nnwb::membersThatFit(four, data.split, dev, 1), 4);
        dev.globalMemory = need(2) + (need(3) - need(2)) / 2;
        QCOMPARE(nnwb::membersThatFit(four, data.split, dev, 1), 2);
        dev.globalMemory = 2 * need(4) - 1;  // two slots share it: each has less than 4 need
        QCOMPARE(nnwb::membersThatFit(four, data.split, dev, 2), 3);
        dev.globalMemory = 1;  // not even one: the trial runs alone (and fails saying why)
        QCOMPARE(nnwb::membersThatFit(four, data.split, dev, 1), 1);
    }
};

QTEST_GUILESS_MAIN(CliSweepPackTest)
#include "tst_cli_sweep_pack.moc"
