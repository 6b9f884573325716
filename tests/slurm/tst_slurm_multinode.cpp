// A sweep on a three-node Slurm cluster (n1-n3, two fake GPUs each, one slurmctld; several
// slurmd on this host: SlurmTestCluster) that loses a node and drains another (docs/slurm.md).
// A search in generations runs 6 trials as one array, 3 at a time, one task on each node
// (the partition's LLN); once n2's task has a checkpoint the test kills the coordinator, crashes
// n2 (slurmd, step daemon and task SIGKILLed) and marks it down, drains n3 and starts the
// coordinator again. Checked: n2's task is requeued by Slurm, goes on from its checkpoint on n1
// and ends with the losses of an uninterrupted run; n3's running task finishes and nothing new
// starts there; the coordinator adopts its array; every trial is imported exactly once. Then a
// bundle copied out to a "cluster" folder with rsync, submitted there and its results copied
// back (mid-array and at the end) and imported from the home copy. The cluster is stopped by
// its pids in every case (cleanupTestCase and the destructor, also after a failure).
#include <QtTest>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "FirstArray.h"
#include "SlurmTestCluster.h"
#include "app/runs/RunStore.h"
#include "app/sweep/SweepStore.h"
#include "common/CliRun.h"
#include "common/SweepStoreDump.h"
#include "common/TestUtil.h"
#include "common/TextHelpers.h"
#include "model/data/DataConfig.h"

using nlohmann::json;
using nnwb::test::lineCount;
using nnwb::test::readText;
using nnwb::test::runCli;
using nnwb::test::SlurmTestCluster;
namespace fs = std::filesystem;

namespace {

// The array's tasks now: task -> "STATE NODE" ("R n1", "PD ").
std::map<int, QStringList> arrayTasks(const SlurmTestCluster& c, int job) {
    std::map<int, QStringList> out;
    const QString rows = c.sh(QString("squeue -h -r -j %1 -o '%K %t %N %r'").arg(job));
    for (const QString& r : rows.split('\n', Qt::SkipEmptyParts)) {
        const QStringList f = r.split(' ');
        out[f.value(0).toInt()] = f.mid(1);
    }
    return out;
}

}  // namespace

class SlurmMultiNodeTest : public QObject {
    Q_OBJECT
    std::unique_ptr<SlurmTestCluster> cluster_;

    // The cluster's view, for the log (and the reader of the test's output).
    void logQueue(const char* when) {
        qInfo("%s\n$ sinfo\n%s$ squeue -r -o '%%.8i %%.8T %%.6N %%r'\n%s", when,
              qPrintable(cluster_->sh("sinfo")),
              qPrintable(cluster_->sh("squeue -r -o '%.8i %.8T %.6N %r'")));
    }

private Q_SLOTS:
    void initTestCase() {
        // The README's test command installs the packages as root and sets NNWB_REQUIRE_SLURM:
        // there a missing piece fails the test instead of skipping it.
        const std::string missing = SlurmTestCluster::unavailable();
        if (!missing.empty() && SlurmTestCluster::required()) QFAIL(missing.c_str());
        if (!missing.empty()) QSKIP(missing.c_str());
        cluster_ = std::make_unique<SlurmTestCluster>(
            SlurmTestCluster::Options{{"n1", "n2", "n3"}, 2, 2, true});
        const std::string error = cluster_->start();
        QVERIFY2(error.empty(), error.c_str());
        logQueue("the cluster is up:");
    }

    void nodeLostAndDrainedMidGeneration() {
        const std::string d = nnwb::test::tempDir();
        nnwb::test::writeSlurmSweep(d, 2000, 4, "multinode");
        const QString dir = QString::fromStdString(d), db = dir + "/store/runs.sqlite";
        const std::string bs = d + "/gen", res = bs + "/results/";
        QElapsedTimer t;
        t.start();
        const QStringList args = {"sweep",
                                  "submit",
                                  dir + "/spec.json",
                                  QString::fromStdString(bs),
                                  "--slurm",
                                  "--per-generation",
                                  "6",
                                  "--concurrent",
                                  "3",
                                  "--gpu",
                                  "--poll",
                                  "0.3",
                                  "--mem",
                                  "300M",
                                  "--time",
                                  "10",
                                  "--runs-db",
                                  db};
        QProcess first;
        first.start(NNWB_CLI_PATH, args);
        QVERIFY(first.waitForStarted());
        const int job = nnwb::test::awaitFirstArray(bs);
        QVERIFY2(job > 0, "the coordinator submitted no array");

        // Wait for n2's task to have a checkpoint (an epoch done, not the last) while a task
        // runs on n3; then n3 is drained, the coordinator killed and n2 crashed and marked down.
        // What ran where is read before and after (a task may start meanwhile).
        int lost = -1;
        std::set<int> crashed, drainedRunning, runningAtCrash;
        auto runningOn = [&](const QString& node, std::set<int>& into) {
            for (const auto& [task, f] : arrayTasks(*cluster_, job))
                if (f.value(0) == "R" && (node.isEmpty() || f.value(1) == node)) into.insert(task);
        };
        while (lost < 0 && t.elapsed() < 60000) {
            QTest::qWait(100);
            std::set<int> onN2, onN3;
            runningOn("n2", onN2);
            runningOn("n3", onN3);
            if (onN2.empty() || onN3.empty()) continue;
            const std::string r = res + std::to_string(*onN2.begin()) + "/";
            const int done = lineCount(r + "epochs.jsonl");
            if (done < 1 || done >= 3 || !fs::exists(r + "checkpoint.safetensors")) continue;
            runningOn("", runningAtCrash);
            cluster_->sh("scontrol update nodename=n3 state=drain reason='drained by the test'");
            drainedRunning = onN3;
            runningOn("n3", drainedRunning);
            ::kill(pid_t(first.processId()), SIGKILL);
            first.waitForFinished();
            crashed = cluster_->crashNode("n2");
            cluster_->sh("scontrol update nodename=n2 state=down reason='crashed by the test'");
            runningOn("", runningAtCrash);
            lost = *onN2.begin();
        }
        QVERIFY2(lost >= 0, "no task ran an epoch on n2 while another ran on n3");
        QVERIFY2(crashed.count(lost), "n2's task was not among those killed");
        runningAtCrash.insert(crashed.begin(), crashed.end());
        qInfo(
            "job %d: task %d crashed with n2 after %d epochs (%zu task(s) killed there); %zu "
            "task(s) running on n3 drained (%.1f s)",
            job, lost, lineCount(res + std::to_string(lost) + "/epochs.jsonl"), crashed.size(),
            drainedRunning.size(), t.elapsed() / 1000.0);
        logQueue("n2 crashed and marked down, n3 drained, the coordinator killed:");

        // Slurm requeues n2's tasks (their node failed, the array has --requeue); a requeued
        // job may start again only after a delay (its begin time): let them go now.
        for (int task : crashed) {
            QString state;
            for (int i = 0; i < 100 && !state.startsWith("PD"); ++i) {
                QTest::qWait(100);
                state = arrayTasks(*cluster_, job)[task].join(' ');
            }
            QVERIFY2(state.startsWith("PD"),
                     qPrintable("task " + QString::number(task) + ": " + state));
            cluster_->sh(QString("scontrol update jobid=%1_%2 StartTime=now").arg(job).arg(task));
        }

        QProcess again;
        again.setProcessChannelMode(QProcess::MergedChannels);
        again.start(NNWB_CLI_PATH, args);
        QVERIFY(again.waitForStarted());
        bool logged = false;
        while (again.state() != QProcess::NotRunning && t.elapsed() < 150000) {
            again.waitForFinished(200);
            if (!logged && arrayTasks(*cluster_, job)[lost].value(0) == "R") {
                logQueue("the requeued task runs again:");
                logged = true;
            }
        }
        const QString out = QString::fromUtf8(again.readAll());
        qInfo("%s(%.1f s)", qPrintable(out), t.elapsed() / 1000.0);
        QCOMPARE(again.state(), QProcess::NotRunning);
        QCOMPARE(again.exitCode(), 0);
        QVERIFY2(out.contains(QString("job %1 (submitted by an earlier run) waited for").arg(job)),
                 qPrintable(out));
        const json steps = json::parse(readText(bs + "/jobs.json"));
        QCOMPARE(int(steps.size()), 1);
        QVERIFY(steps[0]["imported"].get<bool>());

        // The tasks' results in the one shared bundle: each its own, whole, complete.
        const json trials = json::parse(readText(bs + "/bundle.json"))["trials"];
        std::map<int, json> results;
        for (int i = 0; i < 6; ++i) {
            const std::string r = res + std::to_string(i) + "/";
            results[i] = json::parse(readText(r + "result.json"));
            QCOMPARE(results[i]["index"].get<int>(), i);
            QCOMPARE(results[i]["trial"], trials[i]["id"]);
            QCOMPARE(results[i]["status"].get<std::string>(), std::string("complete"));
            QCOMPARE(lineCount(r + "epochs.jsonl"), 4);
            for (const auto& f : fs::directory_iterator(r))
                QVERIFY2(f.path().filename().string().find(".tmp-") == std::string::npos,
                         f.path().c_str());
            const std::string node = results[i]["slurm"]["node"].get<std::string>();
            const std::string restarts = results[i]["slurm"]["restartCount"].get<std::string>();
            if (crashed.count(i)) {
                QCOMPARE(node, std::string("n1"));  // n2 is down, n3 drained
                QCOMPARE(restarts, std::string("1"));
                const int from = results[i]["resumedFrom"].get<int>();
                QVERIFY2(from >= (i == lost ? 1 : 0) && from <= 3, results[i].dump().c_str());
            } else if (node == "n3") {  // drained: only what ran there went on there
                QVERIFY2(drainedRunning.count(i), qPrintable(QString("task %1 started on the "
                                                                     "drained n3")
                                                                 .arg(i)));
                QVERIFY(restarts.empty() || restarts == "0");
            } else {
                QCOMPARE(node, std::string("n1"));
            }
            if (!runningAtCrash.count(i)) QCOMPARE(node, std::string("n1"));  // started later
        }
        for (int i : drainedRunning)
            QCOMPARE(results[i]["slurm"]["node"].get<std::string>(), std::string("n3"));

        // The store: every trial exactly once, complete; the lost one with two attempts and
        // the losses of an uninterrupted run (epochs before the crash from its checkpoint).
        nnwb::RunStore store(db.toStdString(), false);
        nnwb::SweepStore sweeps(store);
        const auto rows = sweeps.trials(1);
        QCOMPARE(int(rows.size()), 6);
        std::set<int64_t> runs;
        for (const auto& tr : rows) {
            runs.insert(tr.runId);
            QCOMPARE(tr.state, nnwb::sweep::TrialState::Complete);
            QCOMPARE(tr.attempts, crashed.count(tr.number) ? 2 : 1);
        }
        QCOMPARE(int(runs.size()), 6);
        const auto run = store.get(rows[size_t(lost)].runId);
        QVERIFY(run.has_value());
        auto plain = runCli(
            {"train", "--experiment",
             QString::fromStdString(bs + "/" + trials[lost]["experiment"].get<std::string>()),
             "--json"});
        QCOMPARE(plain.code, 0);
        const QStringList want = plain.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(int(run->epochs.size()), 4);
        for (int e = 0; e < 4; ++e) {
            const json w = json::parse(want.value(e).toStdString());
            QCOMPARE(run->epochs[size_t(e)].report.epoch, e + 1);
            QCOMPARE(run->epochs[size_t(e)].report.train.loss, w["train"]["loss"].get<double>());
            QCOMPARE(run->epochs[size_t(e)].report.validation.loss,
                     w["validation"]["loss"].get<double>());
        }
        const std::string before = nnwb::test::sweepStoreDump(db.toStdString());
        auto again2 = runCli({"sweep", "import", QString::fromStdString(bs), "--runs-db", db});
        QVERIFY2(again2.out.contains("0 trials imported, 6 unchanged"), qPrintable(again2.out));
        QCOMPARE(nnwb::test::sweepStoreDump(db.toStdString()), before);
        qInfo("%.1f s", t.elapsed() / 1000.0);
        // n2 back (its slurmd again: ReturnToService=2 lets it in as it registers, else the
        // resume does) and n3 resumed, for the next case.
        int code = 0;
        const QString up = cluster_->sh(
            "/usr/sbin/slurmd -N n2 && scontrol update nodename=n3 "
            "state=resume",
            &code);
        QVERIFY2(code == 0, qPrintable(up));
        QString idle;
        for (int i = 0; i < 100 && idle != "n[1-3]"; ++i) {
            QTest::qWait(100);
            idle = cluster_->sh("sinfo -h -t idle -o %N").trimmed();
            if (i == 30) cluster_->sh("scontrol update nodename=n2 state=resume");
        }
        QVERIFY2(idle == "n[1-3]", qPrintable(cluster_->sh("sinfo")));
    }

    // docs/slurm.md's copy-out/copy-back: the bundle exported at home, copied to the cluster's
    // folder with rsync and submitted there; its results copied back while the array runs and
    // when it is done, each time imported from the home copy.
    void bundleCopiedOutAndBack() {
        if (!fs::exists("/usr/bin/rsync")) {
            const char* why = "/usr/bin/rsync is missing (scripts/nnwb.sh test installs it)";
            if (qEnvironmentVariableIntValue("NNWB_REQUIRE_SLURM") == 1) QFAIL(why);
            QSKIP(why);
        }
        const std::string d = nnwb::test::tempDir();
        nnwb::test::writeSlurmSweep(d, 1000, 2, "multinode");
        const QString dir = QString::fromStdString(d), db = dir + "/store/runs.sqlite";
        const QString home = dir + "/home/b", remote = dir + "/cluster/b";
        auto ex = runCli({"sweep", "export-bundle", dir + "/spec.json", home, "--concurrent", "3",
                          "--gpu", "--mem", "300M", "--time", "10"});
        QVERIFY2(ex.code == 0, qPrintable(ex.out + ex.err));
        int code = 0;
        const QString sub = cluster_->sh(QString("mkdir -p %1 && rsync -a %2/ %1/ && cd %1 && "
                                                 "sbatch --parsable submit.sbatch")
                                             .arg(remote, home),
                                         &code);
        QVERIFY2(code == 0, qPrintable(sub));
        const int job = sub.trimmed().toInt();
        const QString back = QString("rsync -a %1/results/ %2/results/").arg(remote, home);
        const std::string results = remote.toStdString() + "/results/";
        // Copied back mid-array: the finished tasks are imported, the others wait.
        bool midway = false;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 60000 && !arrayTasks(*cluster_, job).empty()) {
            QTest::qWait(100);
            if (midway || !fs::exists(results + "0/result.json")) continue;
            // rsync exits 24 when a file vanished while it copied (a temporary file of an
            // atomic write renamed meanwhile): harmless, the next copy brings the file.
            const QString copied = cluster_->sh(back, &code);
            QVERIFY2(code == 0 || code == 24, qPrintable(copied));
            auto part = runCli({"sweep", "import", home, "--runs-db", db});
            QVERIFY2(part.code == 0, qPrintable(part.out + part.err));
            qInfo("mid-array: %s", qPrintable(part.out.trimmed()));
            midway = part.out.contains(QRegularExpression(
                "[1-5] trials imported, 0 unchanged, [1-5] without a result yet, 0 refused"));
            QVERIFY2(midway || arrayTasks(*cluster_, job).empty(), qPrintable(part.out));
        }
        QVERIFY2(arrayTasks(*cluster_, job).empty(), "the array did not finish");
        QVERIFY2(midway, "the array ended before a copy back mid-way");
        const QString copied = cluster_->sh(back, &code);
        QVERIFY2(code == 0, qPrintable(copied));
        auto all = runCli({"sweep", "import", home, "--runs-db", db});
        QVERIFY2(all.code == 0 && all.out.contains(QRegularExpression(
                                      "[1-5] trials imported, [1-5] unchanged, 0 without a "
                                      "result yet, 0 refused")),
                 qPrintable(all.out + all.err));
        auto again = runCli({"sweep", "import", home, "--runs-db", db});
        QVERIFY2(again.out.contains("0 trials imported, 6 unchanged"), qPrintable(again.out));
        // The tasks ran on more than one node, into the one bundle on the cluster's side.
        std::set<std::string> nodes;
        for (int i = 0; i < 6; ++i)
            nodes.insert(
                json::parse(readText(results + std::to_string(i) + "/result.json"))["slurm"]["node"]
                    .get<std::string>());
        QVERIFY2(nodes.size() >= 2, "every task ran on one node");
        nnwb::RunStore store(db.toStdString(), false);
        nnwb::SweepStore sweeps(store);
        const auto rows = sweeps.trials(1);
        QCOMPARE(int(rows.size()), 6);
        for (const auto& tr : rows) QCOMPARE(tr.state, nnwb::sweep::TrialState::Complete);
        qInfo("%zu nodes; %.1f s", nodes.size(), t.elapsed() / 1000.0);
    }

    void cleanupTestCase() {
        if (cluster_) cluster_->stop();
    }
};

QTEST_GUILESS_MAIN(SlurmMultiNodeTest)
#include "tst_slurm_multinode.moc"
