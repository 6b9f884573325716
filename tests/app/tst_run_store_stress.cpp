// The run store under the failure of issue 24: several processes record runs into one store
// while a thread in each opens, reads and closes the database file every few hundred
// microseconds (on POSIX that close drops every fcntl lock the process holds on the file, which
// is what SQLite's own locking relies on). Afterwards the file must pass PRAGMA integrity_check,
// every run must be there, completed, with all its epochs, and no worker may have printed
// anything on stderr. Short by default; `check` runs it long with NNWB_STORE_STRESS_WORKERS,
// NNWB_STORE_STRESS_RUNS (runs per worker), NNWB_STORE_STRESS_EPOCHS and
// NNWB_STORE_STRESS_CLOSE_US (the closing thread's pause).
#include <QtTest>

#include <map>

#include "app/runs/RunStore.h"
#include "common/TestUtil.h"

using namespace nnwb;

namespace {
int envInt(const char* name, int fallback) {
    const QByteArray v = qgetenv(name);
    bool ok = false;
    const int n = v.toInt(&ok);
    return ok && n >= 0 ? n : fallback;
}
}  // namespace

class RunStoreStressTest : public QObject {
    Q_OBJECT
private slots:
    void writersWithStrayCloses() {
        const int workers = envInt("NNWB_STORE_STRESS_WORKERS", 4);
        const int runs = envInt("NNWB_STORE_STRESS_RUNS", 8);
        const int epochs = envInt("NNWB_STORE_STRESS_EPOCHS", 8);
        const int closeUs = envInt("NNWB_STORE_STRESS_CLOSE_US", 200);
        const std::string dir = nnwb::test::tempDir();
        const std::string db = dir + "/runs.sqlite";
        { RunStore create(db); }  // the schema exists before the writers start

        std::vector<std::unique_ptr<QProcess>> procs;
        for (int w = 0; w < workers; ++w) {
            auto p = std::make_unique<QProcess>();
            // Every worker but the last has the closing thread (at least one has it always).
            const int close = w + 1 < workers || workers == 1 ? closeUs : 0;
            p->start(NNWB_STORE_STRESS_WORKER,
                     {QString::fromStdString(db), QString("w%1").arg(w), QString::number(runs),
                      QString::number(epochs), QString::number(close)});
            QVERIFY2(p->waitForStarted(), qPrintable(p->errorString()));
            procs.push_back(std::move(p));
        }
        QString errors;
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(15 * 60 * 1000));
            errors += QString::fromUtf8(p->readAllStandardError());
            qInfo("%s", p->readAllStandardOutput().trimmed().constData());
            QCOMPARE(p->exitStatus(), QProcess::NormalExit);
            QCOMPARE(p->exitCode(), 0);
        }
        QVERIFY2(errors.isEmpty(), qPrintable(errors));

        RunStore store(db);
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        std::map<std::string, int> seen;
        for (const StoredRun& summary : store.list()) {
            const auto run = store.get(summary.id);
            QVERIFY(run);
            ++seen[run->name];
            QVERIFY2(run->status == runstatus::kCompleted,
                     qPrintable(QString("%1: %2 (%3)")
                                    .arg(QString::fromStdString(run->name),
                                         QString::fromStdString(run->status),
                                         QString::fromStdString(run->error))));
            QCOMPARE(run->epochs.size(), size_t(epochs));
            for (int i = 0; i < epochs; ++i) QCOMPARE(run->epochs[size_t(i)].report.epoch, i + 1);
        }
        for (int w = 0; w < workers; ++w)
            for (int r = 0; r < runs; ++r) {
                const std::string name = "w" + std::to_string(w) + "-r" + std::to_string(r);
                QVERIFY2(seen[name] == 1, qPrintable(QString("%1 stored %2 times")
                                                         .arg(QString::fromStdString(name))
                                                         .arg(seen[name])));
            }
        QCOMPARE(int(seen.size()), workers * runs);
    }
};

QTEST_GUILESS_MAIN(RunStoreStressTest)
#include "tst_run_store_stress.moc"
