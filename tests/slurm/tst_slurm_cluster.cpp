// A sweep on a real single-node Slurm cluster (docs/slurm.md): the test starts munged (as the
// munge user, with a key of its own), slurmctld and slurmd -N localhost with a minimal
// slurm.conf in a temporary folder (SlurmTestCluster: cons_tres, proctrack/linuxproc, task/none,
// no accounting, two fake GPUs in gres.conf: /dev/null and /dev/zero), submits a 6-trial bundle
// with %2 and checks: never more than 2 tasks run (and 2 do), tasks running together got different
// GPUs, a scancel'led task is recorded as failed (not lost), a requeued task resumes from its
// checkpoint and completes, an import killed inside its transaction leaves the store as it
// was, the import brings every trial in and a second import changes nothing. Then a search in
// generations (TPE, ASHA rungs) whose second generation is asked with the first's imported
// results, whose promoted trials resume from their checkpoints and the others are recorded as
// pruned, and whose coordinator, killed and run again, waits for its array instead of
// submitting it twice (and a third one started meanwhile is refused). The daemons are stopped by
// their pids in every case (cleanupTestCase, also after a failure).
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
#include "common/BarExperiments.h"
#include "common/CliRun.h"
#include "common/DataCut.h"
#include "common/KilledImport.h"
#include "common/SweepStoreDump.h"
#include "common/TestUtil.h"
#include "common/TextHelpers.h"
#include "model/data/DataConfig.h"

using nlohmann::json;
using nnwb::test::lineCount;
using nnwb::test::readText;
using nnwb::test::runCli;
using nnwb::test::SlurmTestCluster;
using nnwb::test::writeText;
namespace fs = std::filesystem;

class SlurmClusterTest : public QObject {
    Q_OBJECT
    std::unique_ptr<SlurmTestCluster> cluster_;
    QString dir_, db_;

    // Runs a shell command with the cluster's SLURM_CONF; its stdout (and stderr).
    QString sh(const QString& cmd, int* code = nullptr, int timeoutMs = 30000) {
        return cluster_->sh(cmd, code, timeoutMs);
    }
    std::string storeDump() const { return nnwb::test::sweepStoreDump(db_.toStdString()); }

private Q_SLOTS:
    void initTestCase() {
        // The README's test command installs the packages as root and sets NNWB_REQUIRE_SLURM:
        // there a missing piece fails the test instead of skipping it.
        const std::string missing = SlurmTestCluster::unavailable();
        if (!missing.empty() && SlurmTestCluster::required()) QFAIL(missing.c_str());
        if (!missing.empty()) QSKIP(missing.c_str());
        cluster_ = std::make_unique<SlurmTestCluster>(SlurmTestCluster::Options{});
        const std::string error = cluster_->start();
        QVERIFY2(error.empty(), error.c_str());
    }

    void sweepOnTheLocalCluster() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        db_ = dir_ + "/store/runs.sqlite";
        const std::string d = dir_.toStdString();
        // About 0.6 s an epoch on one core: long enough to cancel and requeue mid-run.
        nnwb::test::writeSlurmSweep(d, 3000, 4, "slurm test");
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
        nnwb::test::killImportInItsTransaction(b, db_);
        if (QTest::currentTestFailed()) return;
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

    // A search in generations (sweep submit --per-generation): TPE with 2 startup trials, ASHA
    // eta 3 with rungs at epochs 1 and 2, 6 trials in generations of 3. The coordinator is
    // killed right after it submitted its first array (its job id not yet recorded, as if the
    // kill came between sbatch and the write) and run again: it waits for that array instead of
    // submitting another.
    void generationsOnTheLocalCluster() {
        const QString dir = QString::fromStdString(nnwb::test::tempDir());
        const std::string d = dir.toStdString();
        const QString db = dir + "/store/runs.sqlite";
        nnwb::test::writeDataCut(d + "/cut.csv", 700);
        const json e = nnwb::test::barExperiment("dense", {{"file", "cut.csv"}, {"window", 6}},
                                                 nnwb::test::denseLayers(8),
                                                 {{"epochs", 2}, {"batchSize", 16}, {"seed", 5}});
        writeText(d + "/exp.json", e.dump(2));
        const json s = {{"name", "generations"},
                        {"experiment", "exp.json"},
                        {"method", "tpe"},
                        {"seed", 7},
                        {"runCap", 6},
                        {"tpe", {{"startupTrials", 2}}},
                        {"earlyTerminate", {{"type", "asha"}, {"minResource", 1}, {"eta", 3}}},
                        {"parameters",
                         {{{"path", "training.optimizer.learningRate"},
                           {"min", 0.0005},
                           {"max", 0.05},
                           {"log", true}}}}};
        writeText(d + "/spec.json", s.dump(2));
        const QString b = dir + "/gen";
        const std::string bs = b.toStdString();
        const QStringList args = {"sweep", "submit",    dir + "/spec.json",
                                  b,       "--slurm",   "--per-generation",
                                  "3",     "--poll",    "0.3",
                                  "--mem", "500M",      "--time",
                                  "10",    "--runs-db", db};
        QElapsedTimer t;
        t.start();
        // The first coordinator: killed once its first array is in the queue (held there).
        QProcess first;
        first.start(NNWB_CLI_PATH, args);
        QVERIFY(first.waitForStarted());
        const int job = nnwb::test::awaitFirstArray(bs);
        QVERIFY2(job > 0, "the coordinator submitted no array");
        const QString J = QString::number(job);
        sh("scontrol hold " + J);
        ::kill(pid_t(first.processId()), SIGKILL);
        first.waitForFinished();
        json steps = json::parse(readText(bs + "/jobs.json"));
        QCOMPARE(int(steps.size()), 1);
        steps[0]["jobId"] = 0;  // as if killed before it could record the job id
        writeText(bs + "/jobs.json", steps.dump());
        QVERIFY2(!sh("squeue -h -j " + J).trimmed().isEmpty(), "the first array is gone already");
        // Run again: it finds the held array by its name and waits for it.
        QProcess again;
        again.setProcessChannelMode(QProcess::MergedChannels);
        again.start(NNWB_CLI_PATH, args);
        QVERIFY(again.waitForStarted());
        QString out;
        for (int i = 0;
             i < 100 && !out.contains(" to epoch ") && again.state() != QProcess::NotRunning; ++i) {
            again.waitForReadyRead(100);
            out += QString::fromUtf8(again.readAll());
        }
        const bool adopted =
            out.contains("generation 0 rung 0: job " + J + " (already queued) waited for");
        // A third coordinator while that one runs is refused (it would decide the same rungs).
        auto third = runCli(args, 20000);
        sh("scontrol release " + J);
        QVERIFY2(third.code == 2 && third.err.contains("another coordinator"),
                 qPrintable(third.out + third.err));
        QVERIFY2(adopted, qPrintable(out));
        QVERIFY2(again.state() == QProcess::NotRunning || again.waitForFinished(90000),
                 qPrintable(out));
        out += QString::fromUtf8(again.readAll());
        qInfo("%s(%.1f s)", qPrintable(out), t.elapsed() / 1000.0);
        QCOMPARE(again.exitCode(), 0);

        // Four arrays (two generations of two rungs), each submitted once.
        steps = json::parse(readText(bs + "/jobs.json"));
        QCOMPARE(int(steps.size()), 4);
        std::set<int> jobs;
        for (const json& st : steps) {
            QVERIFY(st["imported"].get<bool>());
            jobs.insert(st["jobId"].get<int>());
        }
        QCOMPARE(int(jobs.size()), 4);
        QCOMPARE(steps[0]["jobId"].get<int>(), job);
        for (const auto& f : fs::directory_iterator(bs + "/results")) {
            const std::string name = f.path().filename().string();
            if (name.rfind("slurm-", 0) != 0) continue;
            const int ran = std::atoi(name.c_str() + 6);
            QVERIFY2(jobs.count(ran),
                     qPrintable("an array submitted twice: " + QString::fromStdString(name)));
        }
        QCOMPARE(steps[0]["tasks"], json({0, 1, 2}));
        QCOMPARE(steps[2]["tasks"], json({3, 4, 5}));
        QCOMPARE(steps[1]["epochs"].get<int>(), 2);

        const json gen = json::parse(readText(bs + "/bundle.json"))["trials"];
        // The store: 6 trials with distinct ids; per generation one promoted (complete after
        // 2 epochs, resumed from its rung-0 checkpoint), two pruned after epoch 1.
        nnwb::RunStore store(db.toStdString(), false);
        nnwb::SweepStore sweeps(store);
        const auto trials = sweeps.trials(1);
        QCOMPARE(int(trials.size()), 6);
        std::set<int64_t> runs;
        for (const auto& tr : trials) runs.insert(tr.runId);
        QCOMPARE(int(runs.size()), 6);
        std::set<std::string> ids;
        for (const json& tr : gen) ids.insert(tr["id"].get<std::string>());
        QCOMPARE(int(ids.size()), 6);
        for (int g = 0; g < 2; ++g) {
            const std::vector<int> promoted = steps[2 * g]["promoted"].get<std::vector<int>>();
            QCOMPARE(int(promoted.size()), 1);
            QCOMPARE(steps[2 * g + 1]["tasks"].get<std::vector<int>>(), promoted);
            for (int i = 3 * g; i < 3 * g + 3; ++i) {
                const auto& tr = trials[size_t(i)];
                const std::string r = bs + "/results/" + std::to_string(i) + "/";
                const json res = json::parse(readText(r + "result.json"));
                if (i != promoted[0]) {
                    QCOMPARE(tr.state, nnwb::sweep::TrialState::Pruned);
                    QCOMPARE(tr.prunedAt.value_or(0), 1);
                    QCOMPARE(tr.epochsDone, 1);
                    QCOMPARE(res["status"].get<std::string>(), std::string("paused"));
                    continue;
                }
                QCOMPARE(tr.state, nnwb::sweep::TrialState::Complete);
                QCOMPARE(tr.epochsDone, 2);
                QCOMPARE(res["status"].get<std::string>(), std::string("complete"));
                QCOMPARE(res["resumedFrom"].get<int>(), 1);  // from the rung's checkpoint
                // Its epochs go on (1, 2) with the losses of an uninterrupted run.
                auto plainRun = runCli(
                    {"train", "--experiment",
                     QString::fromStdString(bs + "/" + gen[i]["experiment"].get<std::string>()),
                     "--json"});
                QCOMPARE(plainRun.code, 0);
                const QStringList want = plainRun.out.split('\n', Qt::SkipEmptyParts);
                std::ifstream ep(r + "epochs.jsonl");
                int n = 0;
                for (std::string l; std::getline(ep, l); ++n) {
                    const json got = json::parse(l), w = json::parse(want.value(n).toStdString());
                    QCOMPARE(got["epoch"].get<int>(), n + 1);
                    QCOMPARE(got["train"]["loss"], w["train"]["loss"]);
                    QCOMPARE(got["validation"]["loss"], w["validation"]["loss"]);
                }
                QCOMPARE(n, 2);
            }
        }
        // Generation 1 was asked with generation 0's imported results: a history-free sampler
        // with the same seed (export-bundle) proposes generation 0 alike, generation 1 not.
        auto plain = runCli({"sweep", "export-bundle", dir + "/spec.json", dir + "/plain"});
        QVERIFY2(plain.code == 0, qPrintable(plain.out + plain.err));
        const json free = json::parse(readText(d + "/plain/bundle.json"))["trials"];
        QCOMPARE(int(gen.size()), 6);
        for (int i = 0; i < 3; ++i) QCOMPARE(gen[i]["params"], free[i]["params"]);
        for (int i = 3; i < 6; ++i)
            QVERIFY2(gen[i]["params"] != free[i]["params"], gen[i]["params"].dump().c_str());

        // Run once more: everything is imported, nothing is submitted or changed.
        const std::string before = nnwb::test::sweepStoreDump(db.toStdString());
        auto done = runCli(args);
        QVERIFY2(done.code == 0 && !done.out.contains("submitted"), qPrintable(done.out));
        QCOMPARE(nnwb::test::sweepStoreDump(db.toStdString()), before);
        auto st = runCli({"sweep", "status", "1", "--runs-db", db});
        QVERIFY2(st.out.contains("2 complete, 4 pruned"), qPrintable(st.out));
    }

    void cleanupTestCase() {
        if (cluster_) cluster_->stop();
    }
};

QTEST_GUILESS_MAIN(SlurmClusterTest)
#include "tst_slurm_cluster.moc"
