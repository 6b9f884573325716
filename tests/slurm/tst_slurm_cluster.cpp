// A sweep on a real single-node Slurm cluster (docs/slurm.md): the test starts munged (as the
// munge user, with a key of its own), slurmctld and slurmd -N localhost with a minimal
// slurm.conf in a temporary folder (cons_tres, proctrack/linuxproc, task/none, no accounting,
// two fake GPUs in gres.conf: /dev/null and /dev/zero), submits a 6-trial bundle with %2 and
// checks: never more than 2 tasks run (and 2 do), tasks running together got different GPUs,
// a scancel'led task is recorded as failed (not lost), a requeued task resumes from its
// checkpoint and completes, an import killed inside its transaction leaves the store as it
// was, the import brings every trial in and a second import changes nothing. The daemons are
// stopped by their pids in every case (cleanupTestCase, also after a failure).
#include <QtTest>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "app/sweep/SweepStore.h"
#include "common/CliRun.h"
#include "common/SweepStoreDump.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"

using nlohmann::json;
using nnwb::test::runCli;
namespace fs = std::filesystem;

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

int lineCount(const std::string& path) {
    const std::string t = readText(path);
    return int(std::count(t.begin(), t.end(), '\n'));
}

}  // namespace

class SlurmClusterTest : public QObject {
    Q_OBJECT
    std::string base_;  // the cluster's folder (conf, state, logs, munge)
    QString dir_, db_;
    bool started_ = false;

    // Runs a shell command with the cluster's SLURM_CONF; its stdout (and stderr).
    QString sh(const QString& cmd, int* code = nullptr, int timeoutMs = 30000) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start("bash", {"-c", cmd});
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
        }
        if (code) *code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        return QString::fromUtf8(p.readAll());
    }
    int pidOf(const std::string& file) { return std::atoi(readText(base_ + "/" + file).c_str()); }
    void stopDaemons() {
        if (base_.empty()) return;
        // Jobs first, so their step daemons end with them.
        if (started_) {
            sh("scancel --full -u root 2>/dev/null; true");
            for (int i = 0; i < 50 && !sh("squeue -h 2>/dev/null").trimmed().isEmpty(); ++i)
                QTest::qWait(200);
        }
        for (const char* f : {"slurmd.pid", "slurmctld.pid", "munge/munged.pid"}) {
            const int pid = pidOf(f);
            if (pid <= 1) continue;
            ::kill(pid, SIGTERM);
            for (int i = 0; i < 50 && ::kill(pid, 0) == 0; ++i) QTest::qWait(100);
            if (::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
        }
        started_ = false;
    }
    std::string storeDump() const { return nnwb::test::sweepStoreDump(db_.toStdString()); }

public:
    ~SlurmClusterTest() override { stopDaemons(); }

private Q_SLOTS:
    void initTestCase() {
        // The README's test command installs the packages as root and sets NNWB_REQUIRE_SLURM:
        // there a missing piece fails the test instead of skipping it.
        const bool required = qEnvironmentVariableIntValue("NNWB_REQUIRE_SLURM") == 1;
        QString missing;
        for (const char* bin :
             {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch"})
            if (missing.isEmpty() && !fs::exists(bin))
                missing = QString(
                              "%1 is missing: install munge, slurmctld, slurmd and "
                              "slurm-client (scripts/nnwb.sh test does)")
                              .arg(bin);
        if (missing.isEmpty() && ::geteuid() != 0)
            missing = "needs root (munged runs as the munge user, slurmd as root)";
        if (!missing.isEmpty() && required) QFAIL(qPrintable(missing));
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        base_ = nnwb::test::tempDir();
        ::chmod(base_.c_str(), 0755);
        for (const char* d : {"state", "spool", "log", "munge", "msock"})
            fs::create_directories(base_ + "/" + d);
        const QString b = QString::fromStdString(base_);
        int code = 0;
        const QString out = sh(QString("dd if=/dev/urandom of=%1/munge/munge.key bs=1024 count=1 "
                                       "2>/dev/null && chown -R munge:munge %1/munge %1/msock && "
                                       "chmod 700 %1/munge && chmod 755 %1/msock && chmod 400 "
                                       "%1/munge/munge.key")
                                   .arg(b),
                               &code);
        QVERIFY2(code == 0, qPrintable(out));
        // Ports of this run's own, so a second cluster on the machine does not clash.
        const int port = 20000 + int(::getpid() % 20000) * 2 % 40000;
        writeText(base_ + "/slurm.conf",
                  "ClusterName=nnwbtest\nSlurmctldHost=localhost\nSlurmUser=root\n"
                  "SlurmdUser=root\nAuthType=auth/munge\nCredType=cred/munge\n"
                  "AuthInfo=socket=" +
                      base_ +
                      "/msock/munge.sock\n"
                      "SlurmctldPort=" +
                      std::to_string(port) + "\nSlurmdPort=" + std::to_string(port + 1) +
                      "\nStateSaveLocation=" + base_ + "/state\nSlurmdSpoolDir=" + base_ +
                      "/spool\nSlurmctldPidFile=" + base_ + "/slurmctld.pid\nSlurmdPidFile=" +
                      base_ + "/slurmd.pid\nSlurmctldLogFile=" + base_ +
                      "/log/slurmctld.log\nSlurmdLogFile=" + base_ +
                      "/log/slurmd.log\n"
                      "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
                      "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
                      "GresTypes=gpu\nSchedulerType=sched/backfill\n"
                      "SchedulerParameters=sched_interval=1\n"
                      "AccountingStorageType=accounting_storage/none\n"
                      "JobAcctGatherType=jobacct_gather/none\nJobCompType=jobcomp/none\n"
                      "MpiDefault=none\nReturnToService=2\nKillWait=5\nMinJobAge=2\n"
                      "NodeName=localhost CPUs=2 RealMemory=4000 Gres=gpu:2 State=UNKNOWN\n"
                      "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE "
                      "State=UP\n");
        writeText(base_ + "/gres.conf",
                  "NodeName=localhost Name=gpu File=/dev/null\n"
                  "NodeName=localhost Name=gpu File=/dev/zero\n");
        qputenv("SLURM_CONF", QByteArray::fromStdString(base_ + "/slurm.conf"));
        started_ = true;
        const QString up =
            sh(QString("runuser -u munge -- /usr/sbin/munged --key-file=%1/munge/munge.key "
                       "--socket=%1/msock/munge.sock --pid-file=%1/munge/munged.pid "
                       "--log-file=%1/munge/munged.log --seed-file=%1/munge/seed && "
                       "/usr/sbin/slurmctld -i && /usr/sbin/slurmd -N localhost")
                   .arg(b),
               &code);
        QVERIFY2(code == 0,
                 qPrintable(up + QString::fromStdString(readText(base_ + "/log/slurmctld.log"))));
        QString state;
        for (int i = 0; i < 150 && state != "idle"; ++i) {
            QTest::qWait(200);
            state = sh("sinfo -h -o %t").trimmed();
        }
        QVERIFY2(state == "idle",
                 qPrintable("the node is " + state + "\n" +
                            QString::fromStdString(readText(base_ + "/log/slurmd.log"))));
    }

    void sweepOnTheLocalCluster() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        db_ = dir_ + "/store/runs.sqlite";
        const std::string d = dir_.toStdString();
        std::ifstream in(nnwb::defaultDataFile());
        std::string cut, line;
        for (int i = 0; i < 3001 && std::getline(in, line); ++i) cut += line + "\n";
        writeText(d + "/cut.csv", cut);
        // About 0.6 s an epoch on one core: long enough to cancel and requeue mid-run.
        const json e = {{"formatVersion", 2},
                        {"name", "dense"},
                        {"data", {{"file", "cut.csv"}, {"window", 24}}},
                        {"model",
                         {{"layers",
                           {{{"type", "dense"}, {"neurons", 256}, {"activation", "tanh"}},
                            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
                        {"training", {{"epochs", 4}, {"batchSize", 1}, {"seed", 5}}}};
        writeText(d + "/exp.json", e.dump(2));
        const json s = {{"name", "slurm test"},
                        {"experiment", "exp.json"},
                        {"method", "random"},
                        {"seed", 4},
                        {"runCap", 6},
                        {"parameters",
                         {{{"path", "training.optimizer.learningRate"},
                           {"min", 0.0001},
                           {"max", 0.01},
                           {"log", true}}}}};
        writeText(d + "/spec.json", s.dump(2));
        const QString b = dir_ + "/bundle";
        auto sub = runCli({"sweep", "submit", dir_ + "/spec.json", b, "--slurm", "--concurrent",
                           "2", "--gpu", "--time", "10", "--mem", "500M"});
        QVERIFY2(sub.code == 0, qPrintable(sub.out + sub.err));
        const int job =
            json::parse(readText(b.toStdString() + "/jobs.json"))[0]["jobId"].get<int>();
        const QString J = QString::number(job);
        const std::string res = b.toStdString() + "/results/";

        // Watch the array: the throttle, which tasks ran together; cancel task 1 and requeue
        // task 0 once each has trained an epoch.
        int maxRunning = 0;
        std::set<std::pair<int, int>> together;
        std::set<QString> reasons;  // why pending tasks wait
        bool cancelled = false, requeued = false;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 100000) {
            const QStringList rows =
                sh("squeue -h -r -j " + J + " -o '%K %t %r'").split('\n', Qt::SkipEmptyParts);
            std::vector<int> running;
            for (const QString& r : rows)
                if (r.split(' ').value(1) == "R")
                    running.push_back(r.split(' ')[0].toInt());
                else if (r.split(' ').value(1) == "PD")
                    reasons.insert(r.split(' ').value(2));
            maxRunning = std::max(maxRunning, int(running.size()));
            if (running.size() == 2)
                together.insert(
                    {std::min(running[0], running[1]), std::max(running[0], running[1])});
            auto runs = [&](int task) {
                return std::find(running.begin(), running.end(), task) != running.end();
            };
            if (!cancelled && runs(1) && lineCount(res + "1/epochs.jsonl") >= 1) {
                sh("scancel " + J + "_1");
                cancelled = true;
            }
            if (!requeued && runs(0) && lineCount(res + "0/epochs.jsonl") >= 1 &&
                !fs::exists(res + "0/result.json")) {
                sh("scontrol requeue " + J + "_0");
                requeued = true;
                // A requeued job waits before it may start again; let it go now.
                for (int i = 0; i < 50; ++i) {
                    QTest::qWait(100);
                    if (sh("squeue -h -j " + J + "_0 -o %t").trimmed() == "PD") break;
                }
                sh("scontrol update jobid=" + J + "_0 StartTime=now");
            }
            if (rows.isEmpty() && cancelled && requeued) break;
            QTest::qWait(100);
        }
        qInfo("array %d: at most %d tasks at a time; %zu pairs ran together; %.1f s", job,
              maxRunning, together.size(), t.elapsed() / 1000.0);
        QVERIFY2(cancelled && requeued, "task 1 or task 0 never ran an epoch");
        QVERIFY2(sh("squeue -h -j " + J).trimmed().isEmpty(), "the array did not finish");
        QCOMPARE(maxRunning, 2);
        // The pending tasks waited for the array's limit (%2), not for a free GPU or core.
        QVERIFY2(reasons.count("JobArrayTaskLimit"),
                 qPrintable(QStringList(reasons.begin(), reasons.end()).join(", ")));

        std::map<int, json> results;
        for (int i = 0; i < 6; ++i) {
            const std::string f = res + std::to_string(i) + "/result.json";
            QVERIFY2(fs::exists(f), f.c_str());
            results[i] = json::parse(readText(f));
            const std::string gpu = results[i]["slurm"]["gpus"].get<std::string>();
            QVERIFY2(gpu == "0" || gpu == "1", gpu.c_str());
        }
        // The per-task device: two tasks running at once had different GPUs (tasks 0 and 1
        // ran again or ended early, so their pairs do not count).
        int pairs = 0;
        for (const auto& [a, c] : together) {
            if (a <= 1 || c <= 1) continue;
            ++pairs;
            QVERIFY2(results[a]["slurm"]["gpus"] != results[c]["slurm"]["gpus"],
                     qPrintable(QString("tasks %1 and %2 ran together on one GPU").arg(a).arg(c)));
        }
        QVERIFY(pairs >= 1);
        QCOMPARE(results[1]["status"].get<std::string>(), std::string("interrupted"));
        QCOMPARE(results[0]["status"].get<std::string>(), std::string("complete"));
        QCOMPARE(results[0]["slurm"]["restartCount"].get<std::string>(), std::string("1"));
        QVERIFY2(results[0]["resumedFrom"].get<int>() >= 1, results[0].dump().c_str());
        QCOMPARE(lineCount(res + "0/epochs.jsonl"), 4);
        for (int i = 2; i < 6; ++i)
            QCOMPARE(results[i]["status"].get<std::string>(), std::string("complete"));

        // An import killed inside its transaction leaves the store as it was (empty).
        { nnwb::RunStore created(db_.toStdString()); }
        const std::string before = storeDump();
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NNWB_TEST_IMPORT_STALL_S", "60");
        p.setProcessEnvironment(env);
        p.start(NNWB_CLI_PATH, {"sweep", "import", b, "--runs-db", db_});
        QVERIFY(p.waitForStarted());
        QTest::qWait(3000);
        QCOMPARE(p.state(), QProcess::Running);
        ::kill(pid_t(p.processId()), SIGKILL);
        p.waitForFinished();
        QCOMPARE(storeDump(), before);

        auto first = runCli({"sweep", "import", b, "--runs-db", db_});
        QVERIFY2(first.code == 0, qPrintable(first.out + first.err));
        QVERIFY2(first.out.contains("6 trials imported, 0 unchanged, 0 without a result yet, 0 "
                                    "refused"),
                 qPrintable(first.out));
        const std::string after = storeDump();
        auto second = runCli({"sweep", "import", b, "--runs-db", db_});
        QVERIFY2(second.out.contains("0 trials imported, 6 unchanged"), qPrintable(second.out));
        QCOMPARE(storeDump(), after);
        nnwb::RunStore store(db_.toStdString(), false);
        nnwb::SweepStore sweeps(store);
        const auto trials = sweeps.trials(1);
        QCOMPARE(int(trials.size()), 6);
        QCOMPARE(trials[1].state, nnwb::sweep::TrialState::Failed);  // cancelled: not lost
        QVERIFY2(QString::fromStdString(trials[1].error).contains("SIGTERM"),
                 trials[1].error.c_str());
        for (int i : {0, 2, 3, 4, 5}) QCOMPARE(trials[i].state, nnwb::sweep::TrialState::Complete);
        QCOMPARE(trials[0].attempts, 2);
        auto st = runCli({"sweep", "status", b});
        QVERIFY2(st.out.contains("5 complete, 1 interrupted"), qPrintable(st.out));
    }

    void cleanupTestCase() { stopDaemons(); }
};

QTEST_GUILESS_MAIN(SlurmClusterTest)
#include "tst_slurm_cluster.moc"
