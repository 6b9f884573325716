// A sweep trial's lifecycle through `nnwb-cli sweep` (issue 42 §3), the four ways a sweep lost or
// duplicated work: a second coordinator under another host name while the first is alive is
// refused, and a coordinator whose sweep was taken over ends; a failure between a
// configuration's two replicate inserts loses neither (resume stores both); `sweep stop` is not
// an attempt (stop, resume, one kill -9, resume: the trial still runs to the end); `runs rm` of
// a running trial's run is refused and the coordinator goes on to the end. Also: a trial's
// stored run carries the fields of a trained run, and `sweep show` finds its trading figures
// through the run the trial names. Kept workers (docs/sweeps.md "Kept workers"): a sweep of N
// trials on S slots starts S trial processes, not N, and stores what a process per trial
// stores (values and runs' epochs, bit for bit, pruned trials among them); a worker killed
// mid-trial has that trial run again and the sweep completes; a worker hashes an unchanged data
// file once, and a file rewritten between its trials (same size, modification time put back) is
// loaded and hashed again.
#include <QtTest>

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "app/sweep/SweepStore.h"
#include "common/BarExperiments.h"
#include "common/CliRun.h"
#include "common/DataCut.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "nnwb/TestPaths.h"

using nnwb::test::runCli;

class CliSweepLifecycleTest : public QObject {
    Q_OBJECT
    QString dir_, db_;

    // A sweep of `trials` trials of `epochs` epochs each on synthetic data; `samples` sets how
    // long an epoch takes (20000: tens of milliseconds on one core).
    QString writeSpec(int trials, int epochs, int samples, const QString& extra = {}) {
        std::ofstream(dir_.toStdString() + "/exp.json")
            << QString(R"({"formatVersion":1,"name":"e","data":{"source":"synthetic",
            "samples":%1,"units":2,"window":3},"model":{"layers":[{"type":"dense","neurons":16},
            {"type":"dense","neurons":3}]},"training":{"epochs":%2,"batchSize":8,
            "optimizer":{"type":"adam","learningRate":0.01}}})")
                   .arg(samples)
                   .arg(epochs)
                   .toStdString();
        const QString path = dir_ + "/spec.json";
        std::ofstream(path.toStdString())
            << QString(R"({"name":"s","experiment":"exp.json","method":"random","seed":3,
            "runCap":%1,"epochs":%2,"parameters":[{"path":"training.optimizer.learningRate",
            "min":0.001,"max":0.01,"log":true}]%3})")
                   .arg(trials)
                   .arg(epochs)
                   .arg(extra)
                   .toStdString();
        return path;
    }
    void start(QProcess& p, const QStringList& args) {
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(NNWB_CLI_PATH, args + QStringList{"--runs-db", db_, "--slots", "cpu=1"});
        QVERIFY(p.waitForStarted());
    }
    std::vector<nnwb::TrialRow> trials() {
        nnwb::RunStore store(db_.toStdString(), false);
        return nnwb::SweepStore(store).trials(1);
    }
    // Waits (up to a minute) until trial 0 of sweep 1 runs and has stored `epochs` epochs.
    bool trialZeroRunning(int epochs) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 60000) {
            if (std::filesystem::exists(db_.toStdString())) {
                const auto all = trials();
                if (!all.empty() && all[0].state == nnwb::sweep::TrialState::Running &&
                    all[0].epochsDone >= epochs && all[0].runId > 0)
                    return true;
            }
            QTest::qWait(50);
        }
        return false;
    }

    // The trial processes sweep 1 of `db` started: one stderr file each (a kept worker's is its
    // first trial's).
    static int processes(const QString& db) {
        int n = 0;
        const auto folder =
            std::filesystem::path(db.toStdString()).parent_path() / "runs-sweeps" / "1";
        for (const auto& f : std::filesystem::directory_iterator(folder))
            n += f.path().extension() == ".err";
        return n;
    }
    // A TPE sweep with ASHA over the learning rate: some trials pruned, some complete.
    QString prunedSweepSpec() {
        writeSpec(1, 4, 96);
        const QString path = dir_ + "/asha.json";
        std::ofstream(path.toStdString()) << R"({"name":"a","experiment":"exp.json",
            "method":"tpe","seed":3,"runCap":8,"epochs":4,"tpe":{"startupTrials":3},
            "earlyTerminate":{"type":"asha","eta":2,"minResource":1,"maxResource":4},
            "parameters":[{"path":"training.optimizer.learningRate","min":0.0005,"max":0.3,
            "log":true}]})";
        return path;
    }

    // One trial on a kept worker `w` (a trial line for `experiment`, 1 epoch: no answers): its
    // started line, once its "ready" came (empty when it did not within a minute).
    static nlohmann::json workerTrial(QProcess& w, const QString& experiment) {
        const nlohmann::json line = {
            {"event", "trial"},
            {"argv", {"train", "--experiment", experiment.toStdString(), "--trial"}}};
        w.write((line.dump() + "\n").c_str());
        nlohmann::json started;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 60000) {
            if (!w.canReadLine() && !w.waitForReadyRead(200)) continue;
            while (w.canReadLine()) {
                const auto j = nlohmann::json::parse(w.readLine().toStdString(), nullptr, false);
                if (j.is_discarded()) continue;
                if (j.value("event", "") == "started") started = j;
                if (j.value("event", "") == "ready") return started;
            }
        }
        return {};
    }

private slots:
    void init() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        db_ = dir_ + "/runs.sqlite";
    }

    void aSecondCoordinatorUnderAnotherHostNameIsRefused() {
        QProcess first;
        start(first, {"sweep", "run", writeSpec(1, 400, 20000)});
        QVERIFY(trialZeroRunning(1));
        {  // the first coordinator as a second machine's (`hostname other` in its namespace)
            nnwb::RunStore store(db_.toStdString(), false);
            store.write("test", [](SQLite::Database& db) {
                db.exec("UPDATE sweeps SET host = 'another-host' WHERE id = 1");
            });
        }
        const auto r = runCli({"sweep", "resume", "1", "--runs-db", db_, "--slots", "cpu=1"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("sweep 1 is still run by pid") && r.err.contains("another-host"),
                 qPrintable(r.out + r.err));
        QVERIFY(!r.out.contains("resuming"));
        QCOMPARE(first.state(), QProcess::Running);  // untouched
        QCOMPARE(runCli({"sweep", "stop", "1", "--runs-db", db_}).code, 0);
        QVERIFY(first.waitForFinished(60000));
        QCOMPARE(first.exitCode(), 4);
        const auto all = trials();
        QCOMPARE(all.size(), size_t(1));
        QCOMPARE(all[0].state, nnwb::sweep::TrialState::Queued);
    }

    // The first coordinator of a sweep another one took over (its heartbeat had stopped for 15
    // minutes, say a suspended process) ends at its next heartbeat with its trials instead of
    // writing beside the new owner.
    void aCoordinatorWhoseSweepWasTakenOverEnds() {
        QProcess first;
        first.setProcessChannelMode(QProcess::SeparateChannels);
        first.start(NNWB_CLI_PATH, {"sweep", "run", writeSpec(1, 2000, 20000), "--runs-db", db_,
                                    "--slots", "cpu=1"});
        QVERIFY(first.waitForStarted());
        QVERIFY(trialZeroRunning(1));
        {  // what another host's `sweep resume` wrote when it claimed the sweep
            nnwb::RunStore store(db_.toStdString(), false);
            store.write("test", [](SQLite::Database& db) {
                db.exec("UPDATE sweeps SET host = 'another-host', pid = 1 WHERE id = 1");
            });
        }
        QVERIFY(first.waitForFinished(30000));  // heartbeats come every 5 s
        QCOMPARE(first.exitCode(), 1);
        const QString err = QString::fromUtf8(first.readAllStandardError());
        QVERIFY2(err.contains("sweep 1 was taken over by another coordinator"), qPrintable(err));
    }

    void aConfigurationsReplicatesAreStoredTogether() {
        const QString spec = writeSpec(4, 2, 96, R"(,"seedsPerConfig":2)");
        {  // the store, with a failure between the first configuration's two replicate inserts
            nnwb::RunStore store(db_.toStdString());
            store.write("test", [](SQLite::Database& db) {
                db.exec(
                    "CREATE TRIGGER cut BEFORE INSERT ON trials WHEN NEW.replicate = 1 BEGIN "
                    "SELECT RAISE(ABORT, 'cut between the replicates'); END");
            });
        }
        auto r = runCli({"sweep", "run", spec, "--runs-db", db_, "--slots", "cpu=1"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("cut between the replicates"), qPrintable(r.err));
        QVERIFY(trials().empty());  // neither replicate of configuration 0
        {
            nnwb::RunStore store(db_.toStdString(), false);
            store.write("test", [](SQLite::Database& db) { db.exec("DROP TRIGGER cut"); });
        }
        r = runCli({"sweep", "resume", "1", "--runs-db", db_, "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const auto all = trials();
        QCOMPARE(all.size(), size_t(4));
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(all[size_t(i)].config, i / 2);
            QCOMPARE(all[size_t(i)].replicate, i % 2);
            QCOMPARE(all[size_t(i)].state, nnwb::sweep::TrialState::Complete);
        }
    }

    void aStopIsNotAnAttempt() {
        const QString spec = writeSpec(1, 120, 20000);
        QProcess p;
        start(p, {"sweep", "run", spec});
        QVERIFY(trialZeroRunning(1));
        QCOMPARE(runCli({"sweep", "stop", "1", "--runs-db", db_}).code, 0);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 4);
        QCOMPARE(trials()[0].state, nnwb::sweep::TrialState::Queued);
        QCOMPARE(trials()[0].attempts, 0);  // the stopped attempt is none
        QProcess resumed;
        start(resumed, {"sweep", "resume", "1"});
        QVERIFY(trialZeroRunning(1));
        ::kill(pid_t(resumed.processId()), SIGKILL);  // one interruption
        QVERIFY(resumed.waitForFinished(10000));
        const auto r = runCli({"sweep", "resume", "1", "--runs-db", db_, "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const auto all = trials();
        QVERIFY2(all[0].state == nnwb::sweep::TrialState::Complete, all[0].error.c_str());
        QCOMPARE(all[0].attempts, 2);  // the killed one and the one that completed
        QCOMPARE(all[0].epochsDone, 120);
    }

    void theRunOfARunningTrialCannotBeRemoved() {
        QProcess p;
        start(p, {"sweep", "run", writeSpec(1, 60, 20000)});
        QVERIFY(trialZeroRunning(1));
        const int64_t run = trials()[0].runId;
        const auto r = runCli({"runs", "rm", QString::number(run), "--runs-db", db_});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("is trial 0 of sweep 1, which is still running"),
                 qPrintable(r.err));
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);  // the coordinator went on to the end
        const auto all = trials();
        QCOMPARE(all[0].state, nnwb::sweep::TrialState::Complete);
        QCOMPARE(all[0].runId, run);
        nnwb::RunStore store(db_.toStdString(), false);
        QCOMPARE(store.get(run)->status, std::string("completed"));
        QCOMPARE(store.get(run)->epochsDone, 60);
        QCOMPARE(runCli({"runs", "rm", QString::number(run), "--runs-db", db_}).code, 0);
    }

    // A sweep trial's stored run carries what a trained run's does (RunRecorder): its own uuid,
    // the data file with its SHA-256, size, bars and their times, the device, the monitor, the
    // sizes of the model and the data (issue 42 §3).
    void aTrialsRunCarriesWhatATrainedRunDoes() {
        std::ifstream in(nnwb::defaultDataFile());
        std::string cut, line;
        for (int i = 0; i < 401 && std::getline(in, line); ++i) cut += line + "\n";
        std::ofstream(dir_.toStdString() + "/cut.csv") << cut;
        std::ofstream(dir_.toStdString() + "/exp.json")
            << R"({"formatVersion":2,"name":"e","data":{"file":"cut.csv","window":6},
            "model":{"layers":[{"type":"dense","neurons":8,"activation":"tanh"},
            {"type":"dense","neurons":3,"activation":"sigmoid"}]},
            "training":{"epochs":2,"batchSize":16,"seed":5},"trading":{"threshold":0.0}})";
        const QString spec = dir_ + "/spec.json";
        std::ofstream(spec.toStdString())
            << R"({"name":"s","experiment":"exp.json","method":"grid","parameters":[
            {"path":"training.batchSize","values":[16]}]})";
        auto r = runCli({"train", "--experiment", dir_ + "/exp.json", "--runs-db", db_});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        r = runCli({"sweep", "run", spec, "--runs-db", db_, "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        nnwb::RunStore store(db_.toStdString(), false);
        const auto all = store.list();  // newest first: the trial's, then the trained one
        QCOMPARE(all.size(), size_t(2));
        const nnwb::StoredRun& trial = all[0];
        const nnwb::StoredRun& trained = all[1];
        QCOMPARE(trial.source, std::string("sweep"));
        QVERIFY(!trial.uuid.empty() && trial.uuid != trained.uuid);
        QVERIFY(!trained.dataSha256.empty() && trained.dataBars > 0);
        QCOMPARE(trial.dataFile, trained.dataFile);
        QCOMPARE(trial.dataSha256, trained.dataSha256);
        QCOMPARE(trial.dataSize, trained.dataSize);
        QCOMPARE(trial.dataBars, trained.dataBars);
        QCOMPARE(trial.dataFirstBar, trained.dataFirstBar);
        QCOMPARE(trial.dataLastBar, trained.dataLastBar);
        QCOMPARE(trial.dataDescription, trained.dataDescription);
        QCOMPARE(trial.deviceId, trained.deviceId);
        QCOMPARE(trial.deviceName, trained.deviceName);
        QCOMPARE(trial.monitor, trained.monitor);
        QCOMPARE(trial.seed, trained.seed);
        QCOMPARE(trial.appVersion, trained.appVersion);
        QCOMPARE(trial.parameters, trained.parameters);
        QCOMPARE(trial.trainSamples, trained.trainSamples);
        QCOMPARE(trial.validationSamples, trained.validationSamples);
        QCOMPARE(trial.epochsPlanned, trained.epochsPlanned);
        QCOMPARE(trial.epochsDone, trained.epochsDone);
        QCOMPARE(trial.status, trained.status);
        QVERIFY(trial.trading.is_object() && trained.trading.is_object());
        QVERIFY(!trial.host.empty());
        // `sweep show` finds a trial's trading figures through the run the trial names (it
        // matched the runs' comparison text "sweep-1", which a run may not carry).
        store.write("test", [](SQLite::Database& db) {
            db.exec("UPDATE runs SET comparison = NULL WHERE source = 'sweep'");
        });
        r = runCli({"sweep", "show", "1", "--json", "--runs-db", db_});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject dsr =
            QJsonDocument::fromJson(r.out.toUtf8()).object()["deflatedSharpe"].toObject();
        QVERIFY2(!dsr.isEmpty(), qPrintable(r.out));
        QCOMPARE(dsr["run"].toInteger(), trial.id);
        // So does `report --sweep`: the same read model (it matched the comparison text).
        const QString page = dir_ + "/sweep.html";
        r = runCli({"report", "--sweep", "1", "--html", page, "--runs-db", db_});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile html(page);
        QVERIFY(html.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(html.readAll());
        QVERIFY2(
            text.contains("Deflated Sharpe ratio") && !text.contains("No deflated Sharpe ratio"),
            qPrintable(text.mid(text.indexOf("Deflated Sharpe"), 300)));
    }

    void aSlotKeepsOneWorkerForItsTrials() {
        // 8 trials on 2 slots: 2 trial processes (a process per trial started 8).
        const QString spec = prunedSweepSpec();
        auto r = runCli({"sweep", "run", spec, "--runs-db", db_, "--slots", "cpu=2"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QCOMPARE(processes(db_), 2);
        for (const auto& t : trials()) QCOMPARE(t.attempts, 1);
    }

    void keptWorkersStoreWhatAProcessPerTrialStores() {
        // The same spec and seed with a process per trial and with one kept worker: the same
        // states, objective values and stored epochs, bit for bit; trials after a pruned one on
        // the worker included (a prune leaves nothing behind for the next trial).
        const QString spec = prunedSweepSpec();
        const QString perTrial = dir_ + "/per-trial/runs.sqlite";
        auto a = runCli({"sweep", "run", spec, "--runs-db", perTrial, "--slots", "cpu=1",
                         "--process-per-trial"});
        QVERIFY2(a.code == 0, qPrintable(a.out + a.err));
        auto b = runCli({"sweep", "run", spec, "--runs-db", db_, "--slots", "cpu=1"});
        QVERIFY2(b.code == 0, qPrintable(b.out + b.err));
        QCOMPARE(processes(perTrial), 8);
        QCOMPARE(processes(db_), 1);
        nnwb::RunStore sa(perTrial.toStdString(), false), sb(db_.toStdString(), false);
        const auto ta = nnwb::SweepStore(sa).trials(1), tb = nnwb::SweepStore(sb).trials(1);
        QCOMPARE(tb.size(), size_t(8));
        QCOMPARE(ta.size(), tb.size());
        bool prunedBefore = false, completeAfterPruned = false;
        for (size_t i = 0; i < ta.size(); ++i) {
            QCOMPARE(tb[i].state, ta[i].state);
            QVERIFY(tb[i].value && ta[i].value);
            QCOMPARE(*tb[i].value, *ta[i].value);  // exactly
            QCOMPARE(tb[i].epochs, ta[i].epochs);
            const auto ra = sa.get(ta[i].runId), rb = sb.get(tb[i].runId);
            QVERIFY(ra && rb);
            QCOMPARE(rb->status, ra->status);
            QCOMPARE(rb->epochs.size(), ra->epochs.size());
            for (size_t e = 0; e < ra->epochs.size(); ++e) {
                QCOMPARE(rb->epochs[e].report.train.loss, ra->epochs[e].report.train.loss);
                QCOMPARE(rb->epochs[e].report.validation.loss,
                         ra->epochs[e].report.validation.loss);
            }
            completeAfterPruned |= prunedBefore && tb[i].state == nnwb::sweep::TrialState::Complete;
            prunedBefore |= tb[i].state == nnwb::sweep::TrialState::Pruned;
        }
        QVERIFY2(completeAfterPruned, "no trial completed after a pruned one on the worker");
    }

    // Issue 48 item 8: a kept worker hashed the 727 KB data file for every trial's provenance,
    // and kept its loaded data while the file's size and modification time were the same. Now
    // it reuses a hash (and the data) only while the file's stamp (device, inode, size,
    // modification and status-change times) is the one it had, so an unchanged file is hashed
    // once, and a file rewritten with the same size and its modification time put back is
    // loaded and hashed again (the old worker trained that trial on the old bars).
    void aWorkerHashesItsDataFileOnceAndSeesItChange() {
        const std::string data = dir_.toStdString() + "/cut.csv";
        nnwb::test::writeDataCut(data, 700);
        const QString exp = dir_ + "/bars.json";
        std::ofstream(exp.toStdString()) << nnwb::test::tinyMt5Experiment("h", 1, data).dump();
        QTest::qWait(1100);  // a file changed in the last second is not trusted to stay so
        QProcess w;
        w.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        w.start(NNWB_CLI_PATH, {"sweep", "worker"});
        QVERIFY(w.waitForStarted());
        auto shaOf = [&] {
            QFile f(QString::fromStdString(data));
            f.open(QIODevice::ReadOnly);
            return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
        };
        const nlohmann::json first = workerTrial(w, exp), second = workerTrial(w, exp);
        QVERIFY2(first.contains("startup") && second.contains("startup"), first.dump().c_str());
        QCOMPARE(first["startup"]["dataHashed"].get<bool>(), true);
        QCOMPARE(second["startup"]["dataHashed"].get<bool>(), false);  // true before
        QCOMPARE(QByteArray::fromStdString(second["provenance"]["dataSha256"].get<std::string>()),
                 shaOf());
        // The last bar half an hour later: the same size; then its modification time put back.
        struct stat before {};
        QCOMPARE(::stat(data.c_str(), &before), 0);
        std::string text;
        {
            std::ifstream in(data);
            text.assign(std::istreambuf_iterator<char>(in), {});
        }
        const size_t last = text.rfind(":00:00", text.size() - 2);
        QVERIFY(last != std::string::npos);
        text.replace(last, 6, ":30:00");
        std::ofstream(data, std::ios::trunc) << text;
        const timespec times[2] = {before.st_atim, before.st_mtim};
        QCOMPARE(::utimensat(AT_FDCWD, data.c_str(), times, 0), 0);
        const nlohmann::json third = workerTrial(w, exp);
        QVERIFY2(third.contains("provenance"), third.dump().c_str());
        const nlohmann::json& was = first["provenance"];
        const nlohmann::json& now = third["provenance"];
        QCOMPARE(now["dataSize"], was["dataSize"]);
        QCOMPARE(QByteArray::fromStdString(now["dataSha256"].get<std::string>()), shaOf());
        QVERIFY(now["dataSha256"] != was["dataSha256"]);
        // The bars it trained on are the new ones (the old worker kept the old data).
        QVERIFY2(now["dataLastBar"] != was["dataLastBar"], now.dump().c_str());
        QCOMPARE(third["startup"]["dataHashed"].get<bool>(), true);
        w.closeWriteChannel();
        QVERIFY(w.waitForFinished(30000));
        QCOMPARE(w.exitCode(), 0);
    }

    void aWorkerKilledMidTrialHasItsTrialRunAgain() {
        // Each worker kills itself in the second trial it serves (after its first epoch line):
        // trials 1 and 2 go back to the queue as a dying trial process's do, and run again on a
        // fresh worker; the sweep completes with every trial.
        const QString spec = writeSpec(3, 3, 96);
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NNWB_TEST_WORKER_DIE_IN_TRIAL", "2");
        p.setProcessEnvironment(env);
        start(p, {"sweep", "run", spec});
        QVERIFY(p.waitForFinished(60000));
        const QString out = p.readAllStandardOutput();
        QVERIFY2(p.exitCode() == 0, qPrintable(out));
        QCOMPARE(out.count("requeued"), 2);
        const auto all = trials();
        QCOMPARE(all.size(), size_t(3));
        for (const auto& t : all) {
            QVERIFY2(t.state == nnwb::sweep::TrialState::Complete, t.error.c_str());
            QCOMPARE(t.epochsDone, 3);
            QCOMPARE(t.attempts, t.number == 0 ? 1 : 2);
        }
        QCOMPARE(processes(db_), 3);  // the first two workers died
    }
};

QTEST_MAIN(CliSweepLifecycleTest)
#include "tst_cli_sweep_lifecycle.moc"
