// Sweep trials that are seed ensembles (docs/sweeps.md "Ensemble trials"): with "ensemble": 2
// each trial trains 2 seeds of its configuration as one population and is stored as one
// ensemble run with its 2 member runs; its objective is the ensemble's own figure, the one
// `train --population 2 --vary seed=5..6 --ensemble` prints and records for the same
// configuration; the child's protocol lines are the ensemble's (with its members' reports); a
// kill -9 of the coordinator then `sweep resume` completes every trial as an ensemble run; the
// base experiment's training.ensemble N makes the same ensemble trials without the key; bad
// specs (and a conflict with training.ensemble) are refused naming "ensemble".
#include <QtTest>

#include <QProcess>

#include <signal.h>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "app/core/SweepPresenter.h"
#include "app/runs/RunStore.h"
#include "app/sweep/SweepStore.h"
#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"

using nlohmann::json;

class TstCliSweepEnsemble : public QObject, nnwb::test::CliFixture {
    Q_OBJECT
    json experiment_;
    QString exp_;

    // A grid sweep over the learning rates `rates`, each trial an ensemble of 2.
    QString spec(const QString& name, const QString& rates, const QString& extra = {}) const {
        return write(name, QString(R"({"name":"se","experiment":"e.json","method":"grid",
            "ensemble":2,"parameters":[{"path":"training.optimizer.learningRate","values":[%1]}]%2})")
                               .arg(rates, extra)
                               .toStdString());
    }
    static std::string read(const QString& file) {
        std::ifstream in(file.toStdString());
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    static std::vector<nnwb::TrialRow> trials(const QString& db) {
        nnwb::RunStore store(db.toStdString(), false);
        return nnwb::SweepStore(store).trials(1);
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        const QString data = writeCut("cut.csv", 1200);
        experiment_ = nnwb::test::barExperiment(
            "ens", {{"file", data.toStdString()}, {"window", 6}}, nnwb::test::denseLayers(16),
            {{"epochs", 3},
             {"batchSize", 16},
             {"seed", 5},
             {"optimizer", {{"type", "adam"}, {"learningRate", 0.01}}}});
        exp_ = write("e.json", experiment_.dump(2));
    }

    void theTrialsLinesAreTheEnsembles() {
        QProcess p;
        p.start(NNWB_CLI_PATH,
                {"train", "--experiment", exp_, "--trial", "--population", "2", "--vary",
                 "seed=5..6", "--ensemble", "--save-model", path("t.safetensors")});
        p.write("continue\ncontinue\n");
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const auto lines = parsedLines(QString::fromUtf8(p.readAllStandardOutput()));
        QCOMPARE(lines.size(), size_t(6));  // started, 3 epochs, result, end
        QCOMPARE(lines[0]["event"], json("started"));
        QCOMPARE(lines[0]["ensemble"], json::array({5, 6}));
        for (int e = 1; e <= 3; ++e) {
            QCOMPARE(lines[size_t(e)]["epoch"].get<int>(), e);
            QVERIFY(!lines[size_t(e)].contains("member"));
            QCOMPARE(lines[size_t(e)]["members"].size(), size_t(2));
            QCOMPARE(lines[size_t(e)]["members"][1]["model"].get<int>(), 1);
        }
        QCOMPARE(lines[4]["event"], json("result"));
        QCOMPARE(lines[5]["status"], json("completed"));
        QCOMPARE(lines[5]["modelEpoch"].get<int>(), 3);
        // Without --ensemble a trial is not a population.
        const auto r = run({"train", "--experiment", exp_, "--trial", "--population", "2"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--ensemble"), qPrintable(r.err));
    }

    void aTrialIsAnEnsembleRunAndItsObjectiveTheEnsembles() {
        const QString db = path("s/runs.sqlite");
        const auto r = run({"sweep", "run",
                            spec("net.json", "0.01,0.003",
                                 R"(,"objective":{"metric":"trading.net","goal":"max"})"),
                            "--runs-db", db, "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        // The same configuration trained as an ensemble by train.
        const QString tdb = path("t/runs.sqlite");
        const auto t =
            run({"train", "--experiment", exp_, "--population", "2", "--vary", "seed=5..6",
                 "--ensemble", "--save-model", path("e.safetensors"), "--json", "--runs-db", tdb});
        QVERIFY2(t.code == 0, qPrintable(t.err));
        const json ens = parsedLines(t.out).back()["ensemble"];
        nnwb::RunStore trained(tdb.toStdString(), false);
        const nnwb::StoredRun want = *trained.get(ens["run"].get<int64_t>());

        const auto rows = trials(db);
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[0].params["training.optimizer.learningRate"].get<double>(), 0.01);
        QVERIFY(rows[0].value);
        QCOMPARE(*rows[0].value, ens["validation"]["trading"]["netPoints"].get<double>());
        nnwb::RunStore store(db.toStdString(), false);
        QCOMPARE(store.list().size(), size_t(2));  // the members are not listed
        for (const auto& row : rows) {
            const nnwb::StoredRun got = *store.get(row.runId);
            QCOMPARE(QString::fromStdString(got.name),
                     QString("se trial %1 ensemble of 2").arg(row.number));
            QCOMPARE(got.status, std::string("completed"));
            QCOMPARE(got.ensembleMembers, 2);
            QVERIFY(got.bundle("best"));
            const auto members = store.members(got.id);
            QCOMPARE(members.size(), size_t(2));
            for (size_t m = 0; m < 2; ++m) {
                QCOMPARE(members[m].seed, uint64_t(5 + m));
                QCOMPARE(members[m].epochs.size(), size_t(3));
                QCOMPARE(members[m].status, std::string("completed"));
            }
        }
        // Trial 0's run is the ensemble train records: its epochs, its members' epochs and
        // its trading.
        const nnwb::StoredRun got = *store.get(rows[0].runId);
        QCOMPARE(got.epochs.size(), want.epochs.size());
        for (size_t e = 0; e < got.epochs.size(); ++e)
            QCOMPARE(got.epochs[e].report.validation.loss, want.epochs[e].report.validation.loss);
        const auto wantMembers = trained.members(want.id);
        const auto gotMembers = store.members(got.id);
        for (size_t m = 0; m < 2; ++m)
            QCOMPARE(gotMembers[m].epochs.back().report.validation.loss,
                     wantMembers[m].epochs.back().report.validation.loss);
        QCOMPARE(got.trading["strategy"]["netPoints"], want.trading["strategy"]["netPoints"]);

        // The base experiment's training.ensemble 2 (the window's Ensemble of N seeds) without
        // the spec's "ensemble": the same ensemble trial (before: one model without a word).
        json two = experiment_;
        two["training"]["ensemble"] = 2;
        write("e2.json", two.dump());
        const QString sdb = path("setting/runs.sqlite");
        const auto s = run({"sweep", "run",
                            write("setting.json",
                                  R"({"name":"se","experiment":"e2.json","method":"grid",
            "objective":{"metric":"trading.net","goal":"max"},
            "parameters":[{"path":"training.optimizer.learningRate","values":[0.01]}]})"),
                            "--runs-db", sdb, "--slots", "cpu=1"});
        QVERIFY2(s.code == 0, qPrintable(s.out + s.err));
        const auto settingRows = trials(sdb);
        QCOMPARE(settingRows.size(), size_t(1));
        QVERIFY(settingRows[0].value);
        QCOMPARE(*settingRows[0].value, *rows[0].value);
        nnwb::RunStore settingStore(sdb.toStdString(), false);
        QCOMPARE(settingStore.get(settingRows[0].runId)->ensembleMembers, 2);
        QCOMPARE(settingStore.members(settingRows[0].runId).size(), size_t(2));
    }

    void killThenResumeCompletesEveryEnsemble() {
        const QString db = path("k/runs.sqlite");
        QProcess p;
        p.start(NNWB_CLI_PATH, {"sweep", "run",
                                spec("kill.json", "0.01,0.003,0.02,0.005,0.001", R"(,"epochs":40)"),
                                "--runs-db", db, "--slots", "cpu=1"});
        QElapsedTimer timer;
        timer.start();
        QByteArray out;
        while (!out.contains("trial 0 complete") && timer.elapsed() < 60000) {
            p.waitForReadyRead(100);
            out += p.readAllStandardOutput();
        }
        ::kill(pid_t(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(10000));
        const auto before = trials(db);
        QVERIFY(before.at(0).value);
        int unfinished = 5 - int(before.size());  // configurations not yet asked for
        for (const auto& t : before)
            unfinished += nnwb::sweep::trialStateName(t.state) != std::string("complete");
        QVERIFY(unfinished > 0);  // the kill cut the sweep short
        const auto r = run({"sweep", "resume", "1", "--runs-db", db, "--slots", "cpu=1"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("resuming"), qPrintable(r.out));
        const auto after = trials(db);
        QCOMPARE(after.size(), size_t(5));
        QCOMPARE(*after[0].value, *before[0].value);  // nothing lost, nothing rerun
        QCOMPARE(after[0].runId, before[0].runId);
        nnwb::RunStore store(db.toStdString(), false);
        for (const auto& t : after) {
            QCOMPARE(nnwb::sweep::trialStateName(t.state), std::string("complete"));
            const nnwb::StoredRun run = *store.get(t.runId);
            // 40 epochs: early stopping may end an ensemble (every member stopped early).
            QVERIFY2(run.status == "completed" || run.status == "stopped_early",
                     run.status.c_str());
            QCOMPARE(run.ensembleMembers, 2);
            for (const auto& m : store.members(run.id)) {
                QCOMPARE(m.status, run.status);  // the members end with the trial's run
                QVERIFY(!m.epochs.empty() && m.epochs.size() <= run.epochs.size());
            }
        }
        QCOMPARE(QString::fromStdString(store.integrityCheck()), QString("ok"));
    }

    // The window's Sweeps tab starts the spec it is given through the same coordinator.
    void theSweepsTabRunsEnsembleTrials() {
        qputenv("NNWB_CLI", NNWB_CLI_PATH);
        const QString db = path("tab/runs.sqlite");
        nnwb::SweepPresenter p;
        p.setDatabase(db);
        QString status;
        connect(&p, &nnwb::SweepPresenter::finished, this,
                [&](qint64, const QString& s) { status = s; });
        const QString file = spec("tab.json", "0.01");
        QVERIFY(p.start(QString::fromStdString(read(file)), file, 1));
        QElapsedTimer t;
        t.start();
        while (status.isEmpty() && t.elapsed() < 120000) QTest::qWait(50);
        QCOMPARE(status, QString("completed"));
        const auto rows = trials(db);
        QCOMPARE(rows.size(), size_t(1));
        nnwb::RunStore store(db.toStdString(), false);
        QCOMPARE(store.get(rows[0].runId)->ensembleMembers, 2);
        QCOMPARE(store.members(rows[0].runId).size(), size_t(2));
    }

    void badSpecsNameTheKey() {
        json wf = experiment_;
        wf["validation"] = {{"mode", "walkforward"}, {"scheme", "anchored"}, {"folds", 2}};
        write("wf.json", wf.dump());
        json two = experiment_;
        two["training"]["ensemble"] = 2;
        write("e2.json", two.dump());
        wf["training"]["ensemble"] = 2;
        write("wf2.json", wf.dump());
        const std::vector<std::pair<QString, QString>> cases = {
            {R"({"name":"b","experiment":"e.json","runCap":2,"ensemble":1,"parameters":[{"path":"training.batchSize","values":[8,16]}]})",
             "ensemble: must be an integer in 2..4096"},
            {R"({"name":"b","experiment":"e.json","runCap":2,"ensemble":2,"population":2,"parameters":[{"path":"training.batchSize","values":[8,16]}]})",
             "ensemble: an ensemble trial is its own population"},
            {R"({"name":"b","experiment":"e.json","runCap":2,"ensemble":2,"seedsPerConfig":2,"parameters":[{"path":"training.batchSize","values":[8,16]}]})",
             "ensemble: not with seedsPerConfig > 1"},
            {R"({"name":"b","experiment":"wf.json","runCap":2,"ensemble":3,"objective":{"metric":"oos.loss"},"parameters":[{"path":"training.batchSize","values":[8,16]}]})",
             "ensemble: not with a walk-forward base experiment"},
            // The base experiment's training.ensemble: a conflicting "ensemble", a packed
            // population, a walk-forward base; training.ensemble searched.
            {R"({"name":"b","experiment":"e2.json","runCap":2,"ensemble":3,"parameters":[{"path":"training.batchSize","values":[8,16]}]})",
             "ensemble: 3 but the base experiment's training.ensemble 2"},
            {R"({"name":"b","experiment":"e2.json","runCap":2,"population":2,"parameters":[{"path":"training.batchSize","values":[8,16]}]})",
             "ensemble: the base experiment's training.ensemble 2 (every trial an ensemble of 2 "
             "seeds): an ensemble trial is its own population"},
            {R"({"name":"b","experiment":"wf2.json","runCap":2,"objective":{"metric":"oos.loss"},"parameters":[{"path":"training.batchSize","values":[8,16]}]})",
             "ensemble: the base experiment's training.ensemble 2 (every trial an ensemble of 2 "
             "seeds): not with a walk-forward base experiment"},
            {R"({"name":"b","experiment":"e.json","runCap":2,"parameters":[{"path":"training.ensemble","values":[2,3]}]})",
             "parameters[0]: training.ensemble cannot be searched"}};
        for (const auto& [text, message] : cases) {
            const QString file = write("bad.json", text.toStdString());
            const auto r = run({"sweep", "run", file, "--runs-db", path("bad/runs.sqlite")});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains(file + ": " + message), qPrintable(r.err));
        }
    }
};

QTEST_MAIN(TstCliSweepEnsemble)
#include "tst_cli_sweep_ensemble.moc"
