// Crash safety of the run store: an `nnwb-cli train` run is killed with SIGKILL at 20 random
// moments (half from its start, half after its first epoch: start-up, between epochs, inside
// a commit). After every kill the database passes
// PRAGMA integrity_check, keeps every epoch the process had printed (it prints an epoch after
// committing it) as a gapless 1..n, and the killed run opens as `interrupted`. Prints the
// figures (kills, runs caught, epochs kept, checks passed).
#include <QtTest>

#include <signal.h>

#include <QElapsedTimer>

#include <fstream>
#include <random>

#include "app/runs/RunStore.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

class RunsCrashTest : public QObject {
    Q_OBJECT
private slots:
    void killNineAtRandomMoments() {
        constexpr int kKills = 20;
        const std::string dir = nnwb::test::tempDir();
        const std::string db = dir + "/runs.sqlite";
        const std::string exp = dir + "/tiny.json";
        // Many short epochs, so a kill lands while epochs are being committed.
        std::ofstream(exp) << R"({"formatVersion":1,"name":"crash","data":{"source":"synthetic",
            "samples":64,"units":2,"window":3},"model":{"layers":[{"type":"dense","neurons":3}]},
            "training":{"epochs":100000,"batchSize":8}})";
        std::mt19937 rng(20261123);
        int caught = 0, checks = 0, kept = 0, printedTotal = 0;
        int64_t lastId = 0;
        for (int k = 0; k < kKills; ++k) {
            QProcess p;
            p.start(NNWB_CLI_PATH, {"train", "--experiment", QString::fromStdString(exp),
                                    "--runs-db", QString::fromStdString(db)});
            QVERIFY(p.waitForStarted());
            const qint64 pid = p.processId();
            // Even kills: 0..250 ms after the start (start-up, opening and migrating the store,
            // the first epochs; on a slow machine mostly start-up). Odd kills: 0..100 ms after
            // the first epoch was printed, so at least half land while epochs are committed.
            QByteArray out;
            if (k % 2 == 1) {
                QElapsedTimer waited;
                waited.start();
                while (!out.contains("epoch ") && waited.elapsed() < 60000) {
                    p.waitForReadyRead(50);
                    out += p.readAllStandardOutput();
                }
                QVERIFY2(out.contains("epoch "), "no epoch within a minute");
            }
            const int ms = std::uniform_int_distribution<int>(0, k % 2 ? 100 : 250)(rng);
            QTest::qWait(ms);
            ::kill(pid_t(pid), SIGKILL);
            QVERIFY(p.waitForFinished(10000));
            QCOMPARE(p.exitStatus(), QProcess::CrashExit);
            out += p.readAllStandardOutput();
            const QStringList lines = QString::fromUtf8(out).split('\n', Qt::SkipEmptyParts);
            int printed = 0;
            for (const QString& l : lines) printed += l.startsWith("epoch ");

            RunStore store(db);  // opening marks the dead run interrupted
            QCOMPARE(store.integrityCheck(), std::string("ok"));
            ++checks;
            const auto runs = store.list();
            if (runs.empty() || runs.front().id == lastId) {
                QCOMPARE(printed, 0);  // killed before its run was stored: nothing to keep
                continue;
            }
            const auto run = store.get(runs.front().id);
            lastId = run->id;
            ++caught;
            QCOMPARE(run->status, std::string("interrupted"));
            QVERIFY(run->error.find("pid " + std::to_string(pid)) != std::string::npos);
            QVERIFY2(int(run->epochs.size()) >= printed,
                     qPrintable(QString("run %1: %2 epochs stored, %3 printed")
                                    .arg(run->id)
                                    .arg(run->epochs.size())
                                    .arg(printed)));
            for (size_t i = 0; i < run->epochs.size(); ++i)
                QCOMPARE(run->epochs[i].report.epoch, int(i) + 1);
            kept += int(run->epochs.size());
            printedTotal += printed;
        }
        // Every earlier run is still interrupted and intact.
        RunStore store(db);
        int stored = 0;
        for (const StoredRun& r : store.list()) {
            QCOMPARE(r.status, std::string("interrupted"));
            stored += r.epochsDone;
        }
        QCOMPARE(stored, kept);
        qInfo(
            "kill -9: %d kills, %d runs caught after they were stored, %d epochs kept (%d "
            "printed before the kills), %d of %d integrity checks passed",
            kKills, caught, kept, printedTotal, checks, kKills);
        QVERIFY(caught >= kKills / 2);
    }
};

QTEST_GUILESS_MAIN(RunsCrashTest)
#include "tst_runs_crash.moc"
