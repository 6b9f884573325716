// Many writers on one run store at once: 4 threads of this process (each a RunRecorder with its
// own connection, as the comparison threads and training workers have) and 2 nnwb-cli train
// processes, 20 epochs each, all into the same database. Every run must end completed with all
// 20 epochs, and the file must pass PRAGMA integrity_check.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "app/runs/RunRecorder.h"
#include "app/runs/RunStore.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

class RunsConcurrencyTest : public QObject {
    Q_OBJECT
private slots:
    void fourThreadsTwoProcesses() {
        constexpr int kEpochs = 20;
        const std::string dir = nnwb::test::tempDir();
        const std::string db = dir + "/runs.sqlite";
        const std::string exp = dir + "/tiny.json";
        std::ofstream(exp) << R"({"formatVersion":1,"name":"proc","data":{"source":"synthetic",
            "samples":40000,"units":2,"window":3},"model":{"layers":[{"type":"dense","neurons":3}]},
            "training":{"epochs":20,"batchSize":8}})";
        { RunStore create(db); }  // the schema exists before the writers start

        std::vector<std::unique_ptr<QProcess>> procs;
        for (int p = 0; p < 2; ++p) {
            auto proc = std::make_unique<QProcess>();
            proc->start(NNWB_CLI_PATH,
                        {"train", "--experiment", QString::fromStdString(exp), "--runs-db",
                         QString::fromStdString(db), "--name", QString("process %1").arg(p)});
            procs.push_back(std::move(proc));
        }
        // The threads start writing once a process has stored its run (and then overlap with
        // its epochs: 20 epochs of 40000 samples take well over the threads' 100 ms).
        {
            RunStore watch(db);
            QTRY_VERIFY_WITH_TIMEOUT(!watch.list().empty(), 60000);
        }
        std::atomic<int> warnings{0}, overlapped{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&, t] {
                RecordingOptions o;
                o.dbPath = db;
                o.name = "thread " + std::to_string(t);
                RunRecorder rec(o, [&](const std::string&) { ++warnings; });
                ExperimentData data;
                DeviceInfo dev;
                dev.id = "cpu";
                Experiment e;
                e.name = o.name;
                rec.begin(e, data, dev, 10, kEpochs);
                for (int i = 1; i <= kEpochs; ++i) {
                    EpochReport r;
                    r.epoch = i;
                    r.train.samples = 10;
                    r.train.loss = 1.0 / i;
                    r.learningRate = 0.001;
                    rec.epoch(r);
                    if (i == 1) {  // is a process still writing?
                        RunStore peek(db);
                        bool saw = false;
                        for (const StoredRun& run : peek.list())
                            saw = saw || (run.name.rfind("process", 0) == 0 &&
                                          run.status == runstatus::kRunning);
                        overlapped += saw;
                    }
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                }
                rec.finish(runstatus::kCompleted);
            });
        }
        for (std::thread& t : threads) t.join();
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(120000));
            QCOMPARE(p->exitCode(), 0);
            const QString err = QString::fromUtf8(p->readAllStandardError());
            QVERIFY2(!err.contains("warning"), qPrintable(err));
        }
        QCOMPARE(warnings.load(), 0);
        qInfo("threads that began writing while a process was writing: %d of 4", overlapped.load());
        QVERIFY(overlapped.load() > 0);

        RunStore store(db);
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        const auto runs = store.list();
        QCOMPARE(runs.size(), size_t(6));
        int threadsSeen = 0, processesSeen = 0;
        for (const StoredRun& summary : runs) {
            const auto run = store.get(summary.id);
            QCOMPARE(run->status, std::string("completed"));
            QCOMPARE(run->epochs.size(), size_t(kEpochs));
            for (int i = 0; i < kEpochs; ++i) QCOMPARE(run->epochs[size_t(i)].report.epoch, i + 1);
            threadsSeen += run->name.rfind("thread", 0) == 0;
            processesSeen += run->name.rfind("process", 0) == 0;
        }
        QCOMPARE(threadsSeen, 4);
        QCOMPARE(processesSeen, 2);
    }
};

QTEST_GUILESS_MAIN(RunsConcurrencyTest)
#include "tst_runs_concurrency.moc"
