// Sweeps from the command line: the trial mode of `train` (JSON lines out, continue / prune /
// stop in, exit statuses, nothing recorded), a random sweep and a TPE + ASHA sweep end to end
// (every trial a run of the store, leaderboard, importance, CSV), a spec error with its
// FILE:LINE, `sweep stop` then `sweep resume`, and kill -9 of the coordinator mid-sweep then
// `sweep resume`: nothing lost (the trials complete before the kill keep their values and runs),
// nothing duplicated (one completed run per complete trial), the store's integrity_check ok;
// a sweep on 4 parallel slots leaves a store that passes integrity_check with every trial a
// whole run (NNWB_SWEEP_STRESS_TRIALS trials, 16 by default; `check` runs 120).
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
#include "app/sweep/SweepStore.h"
#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"

using nnwb::test::runCli;

namespace {

// The next stdout line of `p` as JSON (empty object after the timeout).
QJsonObject nextLine(QProcess& p, int timeoutMs = 60000) {
    QElapsedTimer t;
    t.start();
    while (!p.canReadLine() && t.elapsed() < timeoutMs) p.waitForReadyRead(200);
    if (!p.canReadLine()) return {};
    return QJsonDocument::fromJson(p.readLine()).object();
}

}  // namespace

class CliSweepTest : public QObject {
    Q_OBJECT
    QString dir_, db_, exp_;

    QString writeSpec(const QString& name, const QString& text) {
        const QString path = dir_ + "/" + name;
        std::ofstream(path.toStdString()) << text.toStdString();
        return path;
    }
    QJsonObject show(int id) {
        auto r = runCli({"sweep", "show", QString::number(id), "--json", "--runs-db", db_});
        if (r.code != 0) qWarning("%s", qPrintable(r.err));
        return QJsonDocument::fromJson(r.out.toUtf8()).object();
    }
    // The runs of the store by id (all of them).
    std::map<int64_t, nnwb::StoredRun> runs() {
        nnwb::RunStore store(db_.toStdString(), false);
        std::map<int64_t, nnwb::StoredRun> out;
        for (const auto& r : store.list()) out[r.id] = r;
        return out;
    }
    QString spec(const QString& method, int runCap, const QString& extra = {}) {
        return QString(R"({"name":"s","experiment":"tiny.json","method":"%1","seed":3,"runCap":%2,
            "parameters":[{"path":"training.optimizer.learningRate","min":0.001,"max":0.3,"log":true},
                          {"path":"model.layers[0].neurons","min":2,"max":8}]%3})")
            .arg(method)
            .arg(runCap)
            .arg(extra);
    }

private slots:
    void init() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        db_ = dir_ + "/store/runs.sqlite";
        exp_ = dir_ + "/tiny.json";
        std::ofstream(exp_.toStdString()) << R"({"formatVersion":1,"name":"tiny","data":{
            "source":"synthetic","samples":96,"units":2,"window":3},"model":{"layers":[
            {"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
            "training":{"epochs":3,"batchSize":8,"optimizer":{"type":"adam","learningRate":0.01}}})";
    }

    void trialModeStreamsAndObeysPrune() {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NNWB_RUNS_DB", db_);
        p.setProcessEnvironment(env);
        p.start(NNWB_CLI_PATH, {"train", "--experiment", exp_, "--trial"});
        QJsonObject started = nextLine(p);
        QCOMPARE(started["event"].toString(), QString("started"));
        QVERIFY(started["parameters"].toInt() > 0);
        QCOMPARE(started["epochs"].toInt(), 3);
        QJsonObject e1 = nextLine(p);
        QCOMPARE(e1["event"].toString(), QString("epoch"));
        QCOMPARE(e1["epoch"].toInt(), 1);
        QVERIFY(e1["validation"].toObject()["loss"].toDouble() > 0);
        p.write("continue\n");
        QJsonObject e2 = nextLine(p);
        QCOMPARE(e2["epoch"].toInt(), 2);
        p.write("prune\n");
        QJsonObject end = nextLine(p);
        QCOMPARE(end["event"].toString(), QString("end"));
        QCOMPARE(end["status"].toString(), QString("pruned"));
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 3);
        QVERIFY(!std::filesystem::exists(db_.toStdString()));  // a trial records nothing
    }

    void trialModeStopsAtEndOfInputAndCompletes() {
        QProcess p;
        p.start(NNWB_CLI_PATH, {"train", "--experiment", exp_, "--trial"});
        QCOMPARE(nextLine(p)["event"].toString(), QString("started"));
        QCOMPARE(nextLine(p)["epoch"].toInt(), 1);
        p.closeWriteChannel();  // the coordinator is gone
        QJsonObject end = nextLine(p);
        QCOMPARE(end["status"].toString(), QString("stopped"));
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 4);

        QProcess all;
        all.start(NNWB_CLI_PATH, {"train", "--experiment", exp_, "--trial", "--epochs", "2"});
        QCOMPARE(nextLine(all)["event"].toString(), QString("started"));
        QCOMPARE(nextLine(all)["epoch"].toInt(), 1);
        all.write("continue\n");
        QCOMPARE(nextLine(all)["epoch"].toInt(), 2);  // the last: no question after it
        QCOMPARE(nextLine(all)["status"].toString(), QString("completed"));
        QVERIFY(all.waitForFinished(60000));
        QCOMPARE(all.exitCode(), 0);

        std::ofstream(dir_.toStdString() + "/bad.json") << R"({"formatVersion":1,"data":{
            "source":"synthetic","samples":96,"units":2,"window":3},"model":{"layers":[
            {"type":"dense","neurons":4},{"type":"conv","window":9,"step":9,"filters":2}]}})";
        auto r = runCli({"train", "--experiment", dir_ + "/bad.json", "--trial"});
        QCOMPARE(r.code, 2);
        const QJsonObject bad = QJsonDocument::fromJson(r.out.trimmed().toUtf8()).object();
        QCOMPARE(bad["status"].toString(), QString("failed"));
        QVERIFY2(!bad["error"].toString().isEmpty(), qPrintable(r.out));
    }

    void specErrorNamesFileAndLine() {
        const QString path =
            writeSpec("bad.json", "{\n \"experiment\": \"tiny.json\",\n \"runCap\": x\n}");
        auto r = runCli({"sweep", "run", path, "--runs-db", db_});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(path + ":3:"), qPrintable(r.err));
        const QString missing =
            writeSpec("missing.json", spec("random", 2).replace("neurons", "neuronz"));
        r = runCli({"sweep", "run", missing, "--runs-db", db_});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("parameters[1]"), qPrintable(r.err));
        QVERIFY(!std::filesystem::exists(db_.toStdString()));  // nothing stored
    }

    void randomSweepEndToEnd() {
        const QString path = writeSpec(
            "random.json", spec("random", 6, R"(,"secondObjective":{"metric":"parameters"})"));
        auto r = runCli({"sweep", "run", path, "--runs-db", db_, "--slots", "cpu=2"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("sweep 1: trial 5 complete") || r.out.contains("trial 5 complete"),
                 qPrintable(r.out));
        const QJsonObject s = show(1);
        QCOMPARE(s["status"].toString(), QString("completed"));
        QCOMPARE(s["counts"].toObject()["complete"].toInt(), 6);
        QCOMPARE(s["leaderboard"].toArray().size(), 6);
        QVERIFY(!s["pareto"].toArray().isEmpty());
        QCOMPARE(s["importance"].toArray().size(), 2);
        const auto all = runs();
        QCOMPARE(int(all.size()), 6);
        for (const QJsonValue& v : s["trials"].toArray()) {
            const QJsonObject t = v.toObject();
            const auto it = all.find(t["run"].toInteger());
            QVERIFY(it != all.end());
            QCOMPARE(QString::fromStdString(it->second.status), QString("completed"));
            QCOMPARE(QString::fromStdString(it->second.source), QString("sweep"));
            QCOMPARE(it->second.epochsDone, 3);
            QCOMPARE(t["attempts"].toInt(), 1);
        }
        r = runCli({"sweep", "export", "1", "--csv", dir_ + "/s.csv", "--runs-db", db_});
        QCOMPARE(r.code, 0);
        std::ifstream csv((dir_ + "/s.csv").toStdString());
        std::string header;
        std::getline(csv, header);
        QVERIFY2(header.find("model.layers[0].neurons") != std::string::npos, header.c_str());
        r = runCli({"sweep", "list", "--runs-db", db_});
        QVERIFY2(r.out.contains("completed") && r.out.contains("6/6"), qPrintable(r.out));
        nnwb::RunStore store(db_.toStdString(), false);
        QCOMPARE(QString::fromStdString(store.integrityCheck()), QString("ok"));
    }

    void tpeWithAshaPrunesAtRungs() {
        const QString path = writeSpec("tpe.json", spec("tpe", 10, R"(,"tpe":{"startupTrials":4},
                "earlyTerminate":{"type":"asha","eta":2,"minResource":1})"));
        auto r = runCli({"sweep", "run", path, "--runs-db", db_, "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const QJsonObject s = show(1);
        const QJsonObject counts = s["counts"].toObject();
        QCOMPARE(counts["complete"].toInt() + counts["pruned"].toInt(), 10);
        QVERIFY2(counts["pruned"].toInt() >= 1, qPrintable(QJsonDocument(counts).toJson()));
        const auto all = runs();
        for (const QJsonValue& v : s["trials"].toArray()) {
            const QJsonObject t = v.toObject();
            if (t["state"].toString() != "pruned") continue;
            const int at = t["prunedAt"].toInt();
            QVERIFY(at == 1 || at == 2);  // rungs 1 and 2 of 3 epochs
            QCOMPARE(t["epochs"].toInt(), at);
            QCOMPARE(all.at(t["run"].toInteger()).epochsDone, at);
        }
    }

    void stopThenResume() {
        const QString path = writeSpec("stop.json", spec("random", 30));
        QProcess p;
        p.start(NNWB_CLI_PATH, {"sweep", "run", path, "--runs-db", db_, "--slots", "cpu=1"});
        QElapsedTimer t;
        t.start();
        while (!p.readAllStandardOutput().contains("trial 0 complete") && t.elapsed() < 60000)
            p.waitForReadyRead(200);
        auto r = runCli({"sweep", "stop", "1", "--runs-db", db_});
        QCOMPARE(r.code, 0);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 4);
        QJsonObject s = show(1);
        QCOMPARE(s["status"].toString(), QString("stopped"));
        QVERIFY(s["counts"].toObject()["complete"].toInt() < 30);
        r = runCli({"sweep", "resume", "1", "--runs-db", db_, "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        s = show(1);
        QCOMPARE(s["status"].toString(), QString("completed"));
        QCOMPARE(s["counts"].toObject()["complete"].toInt(), 30);
    }

    void parallelSlotsKeepTheStoreWhole() {
        const int trials = qEnvironmentVariableIsSet("NNWB_SWEEP_STRESS_TRIALS")
                               ? qEnvironmentVariableIntValue("NNWB_SWEEP_STRESS_TRIALS")
                               : 16;
        const QString path = writeSpec(
            "par.json", spec("tpe", trials, R"(,"earlyTerminate":{"type":"asha","eta":3})"));
        auto r = runCli({"sweep", "run", path, "--runs-db", db_, "--slots", "cpu=4", "--quiet"},
                        3600000);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const QJsonObject s = show(1);
        const QJsonObject counts = s["counts"].toObject();
        QCOMPARE(counts["complete"].toInt() + counts["pruned"].toInt(), trials);
        const auto all = runs();
        QCOMPARE(int(all.size()), trials);
        for (const QJsonValue& v : s["trials"].toArray()) {
            const QJsonObject t = v.toObject();
            const nnwb::StoredRun& run = all.at(t["run"].toInteger());
            QCOMPARE(run.epochsDone, t["epochs"].toInt());  // every epoch of the trial stored
            QCOMPARE(run.status,
                     std::string(t["state"].toString() == "pruned" ? "stopped" : "completed"));
        }
        nnwb::RunStore store(db_.toStdString(), false);
        QCOMPARE(QString::fromStdString(store.integrityCheck()), QString("ok"));
    }

    void killDuringSweepThenResumeLosesAndRepeatsNothing() {
        const QString path =
            writeSpec("kill.json", spec("tpe", 16, R"(,"tpe":{"startupTrials":4})"));
        QProcess p;
        p.start(NNWB_CLI_PATH, {"sweep", "run", path, "--runs-db", db_, "--slots", "cpu=2"});
        QElapsedTimer t;
        t.start();
        QByteArray out;
        while (out.count(" complete ") < 3 && t.elapsed() < 60000) {
            p.waitForReadyRead(100);
            out += p.readAllStandardOutput();
        }
        ::kill(pid_t(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(10000));
        QJsonObject before = show(1);
        QCOMPARE(before["status"].toString(), QString("running"));  // killed mid-sweep
        std::map<int, QJsonObject> doneBefore;
        for (const QJsonValue& v : before["trials"].toArray())
            if (v.toObject()["state"].toString() == "complete")
                doneBefore[v.toObject()["number"].toInt()] = v.toObject();
        QVERIFY(doneBefore.size() >= 3);
        QVERIFY(doneBefore.size() < 16);

        auto r = runCli({"sweep", "resume", "1", "--runs-db", db_, "--slots", "cpu=2"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const QJsonObject after = show(1);
        QCOMPARE(after["status"].toString(), QString("completed"));
        const QJsonArray trials = after["trials"].toArray();
        QCOMPARE(trials.size(), 16);
        const auto all = runs();
        int attempts = 0, completedRuns = 0, interruptedRuns = 0;
        for (const auto& [id, run] : all) {
            completedRuns += run.status == "completed";
            interruptedRuns += run.status == "interrupted";
        }
        for (int i = 0; i < trials.size(); ++i) {
            const QJsonObject tr = trials[i].toObject();
            QCOMPARE(tr["number"].toInt(), i);
            QCOMPARE(tr["state"].toString(), QString("complete"));
            attempts += tr["attempts"].toInt();
            QCOMPARE(all.at(tr["run"].toInteger()).status, std::string("completed"));
            auto it = doneBefore.find(i);
            if (it != doneBefore.end()) {  // nothing lost, nothing rerun
                QCOMPARE(tr["run"].toInteger(), it->second["run"].toInteger());
                QCOMPARE(tr["value"].toDouble(), it->second["value"].toDouble());
                QCOMPARE(tr["attempts"].toInt(), 1);
            }
        }
        QCOMPARE(completedRuns, 16);  // one per trial: no result recorded twice
        // Every extra attempt left exactly one interrupted run (an attempt killed before its
        // "started" line has none).
        QVERIFY(interruptedRuns <= attempts - 16);
        QCOMPARE(int(all.size()), 16 + interruptedRuns);
        nnwb::RunStore store(db_.toStdString(), false);
        QCOMPARE(QString::fromStdString(store.integrityCheck()), QString("ok"));
    }
};

QTEST_MAIN(CliSweepTest)
#include "tst_cli_sweep.moc"
