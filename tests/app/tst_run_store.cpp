// The run store on its own: SHA-256 against the FIPS test vectors; a run's every field and
// epoch round-trips; a database made by the first schema opens and migrates with its runs
// intact; a newer schema, a corrupt, read-only or locked file give one clear warning and the
// recorder goes on, keeping the run in a side file (a locked store takes it in when reopened); a
// run whose process died opens as interrupted; filters, sorting, editing, deletion with files, the
// per-epoch CSV; a group commit (RunStore::Batch) is one commit of whole writes.
#include <QtTest>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <SQLiteCpp/SQLiteCpp.h>

#include "app/runs/RunQuery.h"
#include "app/runs/RunRecorder.h"
#include "app/runs/RunStore.h"
#include "app/runs/RunsDbPath.h"
#include "app/runs/RunsSchema.h"
#include "app/runs/Sha256.h"
#include "app/runs/StoredRunCsv.h"
#include "common/TestUtil.h"
#include "compute/CpuBackend.h"
#include "model/Network.h"

using namespace nnwb;
namespace fs = std::filesystem;

namespace {

EpochReport report(int epoch, double valLoss, bool val = true) {
    EpochReport r;
    r.epoch = epoch;
    r.taskMetrics = true;
    r.seconds = 0.5 * epoch;
    r.samplesPerSecond = 1000 + epoch;
    r.learningRate = 0.01 / epoch;
    r.train.samples = 80;
    r.train.loss = valLoss + 0.1;
    r.train.accuracyPct = 40 + epoch;
    r.train.missedPct = 60 - epoch;
    r.train.signalCount = 10 + size_t(epoch);
    r.train.patterns = 30;
    r.train.confusion = {{{{1, 2, 3}}, {{4, 5, 6}}, {{7, 8, int64_t(epoch)}}}};
    if (val) {
        r.validation.samples = 20;
        r.validation.loss = valLoss;
        r.validation.accuracyPct = 30 + epoch;
        r.validation.missedPct = 70 - epoch;
        // Epoch 3 has the highest accuracy from too few signals to count (issue 24).
        r.validation.signalCount = epoch == 3 ? 3 : 20 + size_t(epoch);
        r.validation.patterns = 8;
        r.validation.confusion = {{{{9, 8, 7}}, {{6, 5, 4}}, {{3, 2, 1}}}};
    }
    return r;
}

Experiment smallExperiment() {
    return Experiment::fromJson(nlohmann::json::parse(
        R"({"formatVersion":1,"name":"tiny","data":{"source":"synthetic","samples":40,"units":2,
            "window":3},"model":{"layers":[{"type":"dense","neurons":3}]},
            "training":{"epochs":3,"batchSize":8,"seed":7}})"));
}

ExperimentData fakeData() {
    ExperimentData d;
    d.ok = true;
    d.description = "synthetic, 40 samples";
    return d;
}

DeviceInfo cpuInfo() {
    DeviceInfo d;
    d.id = "cpu";
    d.name = "native";
    return d;
}

// A recorder that collects its warnings.
struct Recording {
    std::vector<std::string> warnings;
    RunRecorder recorder;
    explicit Recording(const std::string& db, const std::string& name = "r")
        : recorder(options(db, name), [this](const std::string& w) { warnings.push_back(w); }) {}
    static RecordingOptions options(const std::string& db, const std::string& name) {
        RecordingOptions o;
        o.dbPath = db;
        o.name = name;
        o.tags = "alpha,beta";
        o.note = "a note";
        return o;
    }
    // begin, 3 epochs, finish
    void fullRun() {
        const ExperimentData data = fakeData();  // begin() keeps a pointer to it
        recorder.begin(smallExperiment(), data, cpuInfo(), 12, 3);
        recorder.epoch(report(1, 0.5));
        recorder.epoch(report(2, 0.3));
        recorder.epoch(report(3, 0.4));
        recorder.finish(runstatus::kCompleted);
    }
};

}  // namespace

class RunStoreTest : public QObject {
    Q_OBJECT
    std::string dir_;
    std::string db() const { return dir_ + "/runs.sqlite"; }
private slots:
    void init() { dir_ = nnwb::test::tempDir(); }

    void sha256Vectors() {
        QCOMPARE(sha256Hex(""),
                 std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(sha256Hex("abc"),
                 std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        Sha256 h;  // one million 'a', fed in uneven pieces
        const std::string chunk(997, 'a');
        size_t left = 1000000;
        while (left > 0) {
            const size_t n = std::min(left, chunk.size());
            h.update(chunk.data(), n);
            left -= n;
        }
        QCOMPARE(h.hexDigest(),
                 std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    }

    void defaultLocation() {
        qputenv("NNWB_RUNS_DB", "/x/env.sqlite");
        QCOMPARE(runsDbPath("/y/flag.sqlite"), std::string("/y/flag.sqlite"));
        QCOMPARE(runsDbPath(), std::string("/x/env.sqlite"));
        qunsetenv("NNWB_RUNS_DB");
        const QByteArray xdg = qgetenv("XDG_DATA_HOME"), home = qgetenv("HOME");
        qputenv("XDG_DATA_HOME", "/data");
        QCOMPARE(runsDbPath(), std::string("/data/nnwb/runs.sqlite"));
        qputenv("XDG_DATA_HOME", "relative");  // invalid per XDG: ignored
        qputenv("HOME", "/home/u");
        QCOMPARE(runsDbPath(), std::string("/home/u/.local/share/nnwb/runs.sqlite"));
        qputenv("HOME", home);
        if (xdg.isEmpty())
            qunsetenv("XDG_DATA_HOME");
        else
            qputenv("XDG_DATA_HOME", xdg);
    }

    void roundTrip() {
        Recording rec(db(), "first");
        rec.fullRun();
        QVERIFY(rec.warnings.empty());
        QCOMPARE(rec.recorder.bestEpoch(), std::optional<int>(2));
        RunStore store(db());
        const auto runs = store.list();
        QCOMPARE(runs.size(), size_t(1));
        const auto run = store.get(runs[0].id);
        QVERIFY(run);
        QCOMPARE(run->name, std::string("first"));
        QCOMPARE(run->tags, std::string("alpha,beta"));
        QCOMPARE(run->note, std::string("a note"));
        QCOMPARE(run->status, std::string("completed"));
        QCOMPARE(run->seed, uint64_t(7));
        QCOMPARE(run->deviceId, std::string("cpu"));
        QCOMPARE(run->deviceName, std::string("CPU (native)"));
        QCOMPARE(run->parameters, int64_t(12));
        QCOMPARE(run->epochsPlanned, 3);
        QCOMPARE(run->epochsDone, 3);
        QCOMPARE(run->bestEpoch, std::optional<int>(2));
        QCOMPARE(run->experiment["name"], nlohmann::json("tiny"));
        QCOMPARE(run->appVersion, std::string(nnwbVersion()));
        QVERIFY(!run->startedAt.empty() && !run->endedAt.empty());
        QCOMPARE(run->pid, int64_t(::getpid()));
        QCOMPARE(*run->bestValLoss, 0.3);
        // 33 % of epoch 3 comes from 3 signals: the best is epoch 2's 32 % of 22 signals.
        QCOMPARE(*run->bestValAccuracy, 32.0);
        QCOMPARE(run->bestValAccuracySignals, std::optional<size_t>(22));
        QCOMPARE(bestValAccuracyCell(*run), std::string("32.00 (22)"));
        QCOMPARE(*run->bestValMissed, 67.0);
        QCOMPARE(run->epochs.size(), size_t(3));
        const StoredEpoch& e2 = run->epochs[1];
        const EpochReport want = report(2, 0.3);
        QCOMPARE(e2.report.epoch, 2);
        QCOMPARE(e2.learningRate, std::optional<double>(0.005));
        QCOMPARE(e2.report.seconds, want.seconds);
        QCOMPARE(e2.report.samplesPerSecond, want.samplesPerSecond);
        QCOMPARE(e2.report.train.loss, want.train.loss);
        QCOMPARE(e2.report.train.signalCount, want.train.signalCount);
        QCOMPARE(e2.report.train.confusion, want.train.confusion);
        QCOMPARE(e2.report.validation.missedPct, want.validation.missedPct);
        QCOMPARE(e2.report.validation.confusion, want.validation.confusion);
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        // a rollback journal (issue 24: no WAL)
        SQLite::Database raw(db());
        QCOMPARE(raw.execAndGet("PRAGMA journal_mode").getString(), std::string("delete"));
        QCOMPARE(runsSchemaVersion(raw), kRunsSchemaVersion);
    }

    void dataFileIsHashed() {
        const std::string data = dir_ + "/bars.csv";
        std::ofstream(data) << "abc";
        ExperimentData d = fakeData();
        d.priceData = true;
        d.dataConfig.file = "bars.csv";  // relative to the experiment's folder
        auto bars = std::make_shared<BarSeries>();
        bars->time = {0, 3600};
        d.bars = bars;
        Recording rec(db());
        Experiment e = smallExperiment();
        e.baseDir = dir_;
        rec.recorder.begin(e, d, cpuInfo(), 1, 1);
        rec.recorder.finish(runstatus::kStopped);
        RunStore store(db());
        const auto run = store.get(rec.recorder.runId());
        QCOMPARE(run->dataFile, data);
        QCOMPARE(run->dataSize, int64_t(3));
        QCOMPARE(run->dataSha256, sha256Hex("abc"));
        QCOMPARE(run->dataFirstBar, std::string("1970-01-01 00:00"));
        QCOMPARE(run->dataLastBar, std::string("1970-01-01 01:00"));
        QCOMPARE(run->status, std::string("stopped"));
    }

    void bundlesAndDelete() {
        const ExperimentData data = fakeData();  // begin() keeps a pointer to it
        Recording rec(db());
        rec.recorder.begin(smallExperiment(), data, cpuInfo(), 12, 3);
        CpuBackend be;  // outlives the network
        Network net(Network::layersFromJson(smallExperiment().model), Shape{2, 3});
        net.build(be, 1);
        WeightsSnapshot w;
        QVERIFY(w.capture(net, 1));
        rec.recorder.epoch(report(1, 0.5));
        rec.recorder.bundle("last", w, net.toJson());
        rec.recorder.bundle("best", w, net.toJson());
        rec.recorder.finish(runstatus::kCompleted);
        QVERIFY(rec.warnings.empty());
        RunStore store(db());
        const int64_t id = rec.recorder.runId();
        const auto run = store.get(id);
        QCOMPARE(run->bundles.size(), size_t(2));
        const StoredBundle* last = run->bundle("last");
        QVERIFY(last);
        QVERIFY(fs::exists(last->path));
        QCOMPARE(fs::path(last->path).parent_path().string(), store.runFolder(id));
        QCOMPARE(fs::path(store.runFolder(id)).parent_path().string(), dir_ + "/runs-models");
        uint64_t size = 0;
        QCOMPARE(last->sha256, sha256File(last->path, &size));
        QCOMPARE(last->size, size);
        QCOMPARE(last->epoch, 1);
        // the path is kept relative to the database: the folder can move with it
        SQLite::Database raw(db());
        QCOMPARE(raw.execAndGet("SELECT path FROM bundles WHERE kind = 'last'").getString(),
                 "runs-models/" + std::to_string(id) + "/last.safetensors");
        QVERIFY(store.remove(id));
        QVERIFY(!store.get(id));
        QVERIFY(!fs::exists(store.runFolder(id)));
        QCOMPARE(raw.execAndGet("SELECT COUNT(*) FROM epochs").getInt(), 0);
        QCOMPARE(raw.execAndGet("SELECT COUNT(*) FROM bundles").getInt(), 0);
        QVERIFY(!store.remove(id));
    }

    void firstSchemaMigrates() {
        {
            SQLite::Database raw(db(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            migrateRunsSchema(raw, 1);
            QCOMPARE(runsSchemaVersion(raw), 1);
            QVERIFY(!raw.tableExists("bundles"));
            raw.exec(
                "INSERT INTO runs (name, source, experiment, started_at, ended_at, status, "
                "device_id, parameters, validation_samples, epochs_planned) VALUES ('old', "
                "'cli-train', '{\"name\":\"old\"}', '2026-01-01T00:00:00Z', "
                "'2026-01-01T00:01:00Z', 'completed', 'cpu', 99, 20, 2)");
            raw.exec(
                "INSERT INTO epochs (run_id, epoch, seconds, task_metrics, train_loss, "
                "val_samples, "
                "val_loss) VALUES (1, 1, 1.5, 0, 0.9, 20, 0.8), (1, 2, 1.5, 0, 0.7, 20, 0.6)");
        }
        RunStore store(db());
        SQLite::Database raw(db());
        QCOMPARE(runsSchemaVersion(raw), kRunsSchemaVersion);
        QVERIFY(raw.tableExists("bundles"));
        const auto run = store.get(1);
        QVERIFY(run);
        QCOMPARE(run->name, std::string("old"));
        QCOMPARE(run->status, std::string("completed"));
        QCOMPARE(run->epochs.size(), size_t(2));
        QCOMPARE(run->epochs[1].report.validation.loss, 0.6);
        QVERIFY(!run->epochs[1].learningRate);
        QVERIFY(!run->bestEpoch);
        QVERIFY(run->trading.is_null());  // schema 4: no trading figures before it
        QCOMPARE(*run->bestValLoss, 0.6);
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        // and the migrated file records new runs
        Recording rec(db());
        rec.fullRun();
        QVERIFY(rec.warnings.empty());
        QCOMPARE(store.list().size(), size_t(2));
    }

    void newerSchemaRefused() {
        { RunStore store(db()); }
        {
            SQLite::Database raw(db(), SQLite::OPEN_READWRITE);
            raw.exec("UPDATE schema_version SET version = 99");
        }
        try {
            RunStore store(db());
            QFAIL("a newer schema was opened");
        } catch (const RunStoreError& e) {
            QVERIFY2(QString(e.what()).contains("newer nnwb (schema version 99"), e.what());
        }
    }

    void corruptFileWarnsOnce() {
        std::ofstream(db()) << std::string(4096, 'x');
        Recording rec(db());
        rec.fullRun();
        QVERIFY(!rec.recorder.recording());
        QCOMPARE(rec.warnings.size(), size_t(1));
        QVERIFY2(QString::fromStdString(rec.warnings[0]).contains("corrupt"),
                 rec.warnings[0].c_str());
        QVERIFY(QString::fromStdString(rec.warnings[0]).contains(QString::fromStdString(db())));
        QVERIFY(QString::fromStdString(rec.warnings[0]).contains("training goes on"));
        // the file is left as it was
        std::ifstream in(db());
        QCOMPARE(std::string(std::istreambuf_iterator<char>(in), {}), std::string(4096, 'x'));
    }

    void readOnlyWarnsOnce() {
        { RunStore store(db()); }
        nnwb::test::ReadOnlyDir ro(dir_);
        if (!ro.enforced()) QSKIP("cannot make a folder read-only here");
        ::chmod(db().c_str(), 0444);
        Recording rec(db());
        rec.fullRun();
        ::chmod(db().c_str(), 0644);
        // One warning when the store fails (the run is held in memory: no side file either),
        // one at the end saying exactly what was lost (the side file still cannot be written).
        QCOMPARE(rec.warnings.size(), size_t(2));
        QVERIFY2(QString::fromStdString(rec.warnings[0]).contains("read-only") ||
                     QString::fromStdString(rec.warnings[0]).contains("cannot open"),
                 rec.warnings[0].c_str());
        QVERIFY2(QString::fromStdString(rec.warnings[0]).contains("held in memory"),
                 rec.warnings[0].c_str());
        QVERIFY2(QString::fromStdString(rec.warnings[1]).contains("lost: "),
                 rec.warnings[1].c_str());
    }

    void lockedWarnsOnceAndMidRunFailureKeepsTheRunAside() {
        qputenv("NNWB_RUNS_BUSY_MS", "100");
        const ExperimentData data = fakeData();  // begin() keeps a pointer to it
        Recording rec(db());
        rec.recorder.begin(smallExperiment(), data, cpuInfo(), 12, 3);
        QVERIFY(rec.recorder.recording());
        rec.recorder.epoch(report(1, 0.5));
        {
            SQLite::Database other(db(), SQLite::OPEN_READWRITE);
            other.exec("BEGIN EXCLUSIVE");
            rec.recorder.epoch(report(2, 0.4));  // cannot be written: one warning
            rec.recorder.epoch(report(3, 0.3));
            rec.recorder.finish(runstatus::kCompleted);
            other.exec("ROLLBACK");
        }
        qunsetenv("NNWB_RUNS_BUSY_MS");
        QCOMPARE(rec.warnings.size(), size_t(1));
        QVERIFY2(QString::fromStdString(rec.warnings[0]).contains("locked"),
                 rec.warnings[0].c_str());
        QCOMPARE(rec.recorder.bestEpoch(), std::optional<int>(3));  // still tracked
        QVERIFY2(QString::fromStdString(rec.warnings[0]).contains("this run is kept in"),
                 rec.warnings[0].c_str());
        // The store opens again: the run is whole (issue 24: never silently lost).
        RunStore store(db());
        const auto run = store.get(rec.recorder.runId());
        QCOMPARE(run->epochs.size(), size_t(3));
        QCOMPARE(run->status, std::string("completed"));
        QCOMPARE(run->bestEpoch, std::optional<int>(3));
        QCOMPARE(store.list().size(), size_t(1));
    }

    void deadProcessShowsInterrupted() {
        const ExperimentData data = fakeData();  // begin() keeps a pointer to it
        Recording rec(db());
        rec.recorder.begin(smallExperiment(), data, cpuInfo(), 12, 3);
        rec.recorder.epoch(report(1, 0.5));
        const int64_t id = rec.recorder.runId();
        const pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        ::waitpid(child, nullptr, 0);  // a pid that no longer runs
        {
            SQLite::Database raw(db(), SQLite::OPEN_READWRITE);
            raw.exec("UPDATE runs SET pid = " + std::to_string(child) +
                     ", pid_start = 0 WHERE id = " + std::to_string(id));
        }
        RunStore store(db());
        auto run = store.get(id);
        QCOMPARE(run->status, std::string("interrupted"));
        QVERIFY2(QString::fromStdString(run->error).contains(QString::number(child)),
                 run->error.c_str());
        QCOMPARE(run->epochs.size(), size_t(1));
        QVERIFY(!run->endedAt.empty());
        // A live process that reused the pid (another start time) does not keep it running,
        // and a running run of this very process stays running.
        Recording live(db());
        live.recorder.begin(smallExperiment(), data, cpuInfo(), 12, 3);
        {
            SQLite::Database raw(db(), SQLite::OPEN_READWRITE);
            raw.exec("UPDATE runs SET status = 'running', pid = " + std::to_string(::getpid()) +
                     ", pid_start = 1 WHERE id = " + std::to_string(id));
        }
        RunStore reopened(db());  // opening checks the running runs
        QCOMPARE(reopened.get(id)->status, std::string("interrupted"));
        QCOMPARE(reopened.get(live.recorder.runId())->status, std::string("running"));
        // another host: interrupted only when its heartbeat is stale
        {
            SQLite::Database raw(db(), SQLite::OPEN_READWRITE);
            raw.exec(
                "UPDATE runs SET status = 'running', host = 'elsewhere', heartbeat_at = "
                "strftime('%s','now') WHERE id = " +
                std::to_string(id));
        }
        QCOMPARE(store.markInterrupted(), 0);
        {
            SQLite::Database raw(db(), SQLite::OPEN_READWRITE);
            raw.exec("UPDATE runs SET heartbeat_at = strftime('%s','now') - 3600 WHERE id = " +
                     std::to_string(id));
        }
        QCOMPARE(store.markInterrupted(), 1);
        QVERIFY(QString::fromStdString(store.get(id)->error).contains("elsewhere"));
    }

    void editFilterSort() {
        for (const char* name : {"bravo", "alpha", "charlie"}) {
            Recording rec(db(), name);
            rec.fullRun();
        }
        RunStore store(db());
        auto runs = store.list();
        QCOMPARE(runs.size(), size_t(3));
        QVERIFY(store.setMeta(runs[0].id, "charlie2", "gpu,best", "kept"));
        QVERIFY(!store.setMeta(999, "x", "", ""));
        runs = store.list();
        QCOMPARE(runs[0].name, std::string("charlie2"));
        auto count = [&](const std::string& f) {
            const RunFilter filter(f);
            int n = 0;
            for (const StoredRun& r : runs) n += filter.matches(r);
            return n;
        };
        QCOMPARE(count(""), 3);
        QCOMPARE(count("tag:best"), 1);
        QCOMPARE(count("tag:alpha"), 2);
        QCOMPARE(count("ALPHA"), 2);  // bare words: name, tags, note, ...
        QCOMPARE(count("kept"), 1);
        QCOMPARE(count("status:completed name:a"), 3);
        QCOMPARE(count("status:failed"), 0);
        QCOMPARE(count("note:kept"), 1);
        QCOMPARE(count("id:" + std::to_string(runs[1].id)), 1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RunFilter("colour:red"));
        sortRuns(runs, "name");
        QCOMPARE(runs[0].name, std::string("alpha"));
        QCOMPARE(runs[2].name, std::string("charlie2"));
        sortRuns(runs, "-name");
        QCOMPARE(runs[0].name, std::string("charlie2"));
        sortRuns(runs, "date");
        QVERIFY(runs[0].id < runs[1].id && runs[1].id < runs[2].id);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sortRuns(runs, "colour"));
    }

    // Group commit (RunStore::Batch, issue 48 item 8): the writes of a batch are one commit
    // (the file's change counter, which SQLite bumps once per committed write transaction,
    // moves by 1), each write still all or nothing (a write that throws inside the batch is
    // undone alone), nothing is visible to another connection before the commit (it waits on
    // the lock), and a batch left by an exception keeps what its writes stored before it.
    void aBatchIsOneCommitOfWholeWrites() {
        auto changeCounter = [&] {  // bytes 24..27 of the database header, big-endian
            std::ifstream f(db(), std::ios::binary);
            unsigned char b[28] = {};
            f.read(reinterpret_cast<char*>(b), sizeof b);
            return (uint32_t(b[24]) << 24) | (uint32_t(b[25]) << 16) | (uint32_t(b[26]) << 8) |
                   uint32_t(b[27]);
        };
        RunStore store(db());
        StoredRun r;
        r.name = "batched";
        r.source = "cli-train";
        r.experiment = {{"name", "r"}};
        const uint32_t before = changeCounter();
        const int64_t commitsBefore = store.commits();
        int64_t id = 0;
        {
            RunStore::Batch batch(store);
            id = store.insertRun(r);
            store.addEpoch(id, StoredEpoch{report(1, 0.5), 0.01}, 1);
            QVERIFY_THROWS_EXCEPTION(
                RunStoreError, store.write("renaming", [&](SQLite::Database& d) {
                    d.exec("UPDATE runs SET name = 'half' WHERE id = " + std::to_string(id));
                    throw std::runtime_error("fails after its first statement");
                }));
            store.addEpoch(id, StoredEpoch{report(2, 0.4), 0.005}, 2);
            QCOMPARE(store.get(id)->epochs.size(), size_t(2));  // its own writes: readable
            qputenv("NNWB_RUNS_BUSY_MS", "50");
            QVERIFY_THROWS_EXCEPTION(RunStoreError, RunStore(db(), false).list());
            qunsetenv("NNWB_RUNS_BUSY_MS");
            QCOMPARE(changeCounter(), before);  // nothing committed yet
            batch.commit();
        }
        QCOMPARE(changeCounter(), before + 1);
        QCOMPARE(store.commits() - commitsBefore, int64_t(1));
        {
            RunStore other(db(), false);
            const auto run = other.get(id);
            QCOMPARE(run->name, std::string("batched"));  // the failed write, undone alone
            QCOMPARE(run->epochs.size(), size_t(2));
            QCOMPARE(run->bestEpoch, std::optional<int>(2));
        }
        try {
            RunStore::Batch batch(store);
            store.addEpoch(id, StoredEpoch{report(3, 0.3), 0.004}, 3);
            throw std::runtime_error("the caller fails");
        } catch (const std::runtime_error&) {
        }
        QCOMPARE(changeCounter(), before + 2);
        QCOMPARE(RunStore(db(), false).get(id)->epochs.size(), size_t(3));
        QCOMPARE(QString::fromStdString(store.integrityCheck()), QString("ok"));
    }

    void csvExport() {
        Recording rec(db());
        rec.fullRun();
        RunStore store(db());
        const std::string csv = storedRunCsv(*store.get(rec.recorder.runId()));
        const QStringList lines = QString::fromStdString(csv).trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        const QStringList head = lines[0].split(',');
        QCOMPARE(head[0], QString("epoch"));
        QCOMPARE(head[3], QString("learning_rate"));
        const QStringList row = lines[2].split(',');
        QCOMPARE(row.size(), head.size());
        QCOMPARE(row[0], QString("2"));
        QCOMPARE(row[3], QString("0.005"));
        QCOMPARE(row[head.indexOf("validation_loss")], QString("0.3"));
        QCOMPARE(row[head.indexOf("train_confusion_sell_sell")], QString("2"));
        // Epoch 3's 3 validation signals are too few for an accuracy: empty, not a figure.
        QCOMPARE(row[head.indexOf("validation_accuracy_pct")], QString("32"));
        const QStringList third = lines[3].split(',');
        QCOMPARE(third[head.indexOf("validation_signals")], QString("3"));
        QCOMPARE(third[head.indexOf("validation_accuracy_pct")], QString());
    }
};

QTEST_GUILESS_MAIN(RunStoreTest)
#include "tst_run_store.moc"
