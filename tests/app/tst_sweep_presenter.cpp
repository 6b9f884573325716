// The Sweeps tab's presenter (app/core/SweepPresenter) drives the CLI's coordinator: a real
// small random sweep (3 trials of a tiny synthetic experiment, 2 epochs, child processes of
// nnwb-cli) runs on its thread while the shown sweep is read live; every trial ends complete
// with its run and the run's model; the list has the sweep; stop then resume finishes a sweep; a
// bad spec gives the loader's FILE:LINE or path error; the form's draft writes a spec the loader
// takes (app/core/SweepSpecDraft), and the experiment's sweepable fields include layer fields;
// a sweep on trading.sharpe over a price file carries the deflated Sharpe ratio in its report,
// and its trials' runs the data file's path, sha256, size, bars, the monitor and a uuid.
#include <QSignalSpy>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>

#include "app/core/SweepPresenter.h"
#include "app/core/SweepSpecDraft.h"
#include "app/runs/RunRecorder.h"
#include "app/runs/RunStore.h"
#include "app/runs/Sha256.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

namespace {

const char* kTiny = R"({"formatVersion":1,"name":"tiny","data":{
    "source":"synthetic","samples":96,"units":2,"window":3},"model":{"layers":[
    {"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
    "training":{"epochs":2,"batchSize":8,"optimizer":{"type":"adam","learningRate":0.01}}})";

}  // namespace

class TestSweepPresenter : public QObject {
    Q_OBJECT
    QString dir_, db_;

    QString spec(int runCap) const {
        return QString(R"({"name":"tab","experiment":"%1/tiny.json","method":"random","seed":5,
  "runCap":%2,"parameters":[
    {"path":"training.optimizer.learningRate","min":0.001,"max":0.3,"log":true},
    {"path":"model.layers[0].neurons","min":2,"max":8}]})")
            .arg(dir_)
            .arg(runCap);
    }
    // Waits for the presenter's sweep to end; its status ("" on a timeout).
    static QString waitFinished(SweepPresenter& p, int ms = 120000) {
        QString status;
        auto c = QObject::connect(&p, &SweepPresenter::finished,
                                  [&](qint64, const QString& s) { status = s; });
        QElapsedTimer t;
        t.start();
        while (p.isRunning() && t.elapsed() < ms) QTest::qWait(50);
        QObject::disconnect(c);
        return status;
    }

private Q_SLOTS:
    void init() {
        dir_ = QString::fromStdString(test::tempDir());
        db_ = dir_ + "/store/runs.sqlite";
        std::ofstream((dir_ + "/tiny.json").toStdString()) << kTiny;
        qputenv("NNWB_CLI", NNWB_CLI_PATH);
    }

    void runsASweepAndShowsItsTrials() {
        SweepPresenter p;
        p.setDatabase(db_);
        std::optional<SweepSnapshot> last;
        int liveReads = 0;
        connect(&p, &SweepPresenter::shown, this, [&](const SweepSnapshot& s) {
            last = s;
            liveReads += p.isRunning();
        });
        QSignalSpy started(&p, &SweepPresenter::started);
        QVERIFY(p.start(spec(3), {}, 1));
        QVERIFY(started.wait(60000));
        QVERIFY(!p.start(spec(3), {}, 1));  // one at a time
        QCOMPARE(waitFinished(p), QStringLiteral("completed"));
        QTRY_VERIFY_WITH_TIMEOUT(last && last->sweep.status == "completed", 10000);
        QVERIFY2(liveReads > 0, "the sweep was read while it ran");
        QCOMPARE(int(last->trials.size()), 3);
        QCOMPARE(last->parameters.size(), size_t(2));
        QCOMPARE(last->objective, std::string("validation.loss"));
        RunStore store(db_.toStdString(), false);
        for (const TrialRow& t : last->trials) {
            QCOMPARE(t.state, sweep::TrialState::Complete);
            QCOMPARE(t.epochsDone, 2);
            QCOMPARE(int(t.epochs.size()), 2);
            QVERIFY(t.runId > 0);
            const auto run = store.get(t.runId);
            QCOMPARE(run->source, std::string("sweep"));
            // Its kept weights are the run's model (synthetic data: plain weights).
            const StoredBundle* model =
                run->bundle("best") ? run->bundle("best") : run->bundle("last");
            QVERIFY2(model, "a trial's run has its model");
            QVERIFY(QFileInfo::exists(QString::fromStdString(model->path)));
            QVERIFY(model->epoch >= 1 && model->epoch <= 2);
        }
        QVERIFY(QFileInfo::exists(QString::fromStdString(last->sweep.specFile)));
        std::vector<SweepRow> listed;
        connect(&p, &SweepPresenter::listed, this,
                [&](const std::vector<SweepRow>& rows, const QString&) { listed = rows; });
        p.refreshList();
        QTRY_COMPARE(int(listed.size()), 1);
        QCOMPARE(listed[0].id, last->sweep.id);
    }

    void tradingSweepCarriesTheDeflatedSharpe() {
        // The first 500 bars of the bundled file, a tiny dense network.
        std::ifstream in(defaultDataFile());
        std::string cut, line;
        for (int i = 0; i < 501 && std::getline(in, line); ++i) cut += line + "\n";
        std::ofstream((dir_ + "/cut.csv").toStdString()) << cut;
        std::ofstream((dir_ + "/priced.json").toStdString())
            << R"({"formatVersion":2,"name":"priced","data":{"file":"cut.csv","window":6},
                 "model":{"layers":[{"type":"dense","neurons":8,"activation":"tanh"},
                 {"type":"dense","neurons":3,"activation":"sigmoid"}]},
                 "training":{"epochs":2,"batchSize":16,"seed":5},"trading":{"threshold":0.0}})";
        SweepPresenter p;
        p.setDatabase(db_);
        std::optional<SweepSnapshot> last;
        connect(&p, &SweepPresenter::shown, this, [&](const SweepSnapshot& s) { last = s; });
        const QString spec = QString(R"({"name":"dsr","experiment":"%1/priced.json",
            "method":"random","seed":2,"runCap":3,"objective":{"metric":"trading.sharpe"},
            "parameters":[{"path":"training.optimizer.learningRate","min":0.0005,"max":0.05,
                           "log":true}]})")
                                 .arg(dir_);
        QVERIFY(p.start(spec, {}, 2));
        QCOMPARE(waitFinished(p), QStringLiteral("completed"));
        QTRY_VERIFY_WITH_TIMEOUT(last && last->sweep.status == "completed", 10000);
        const nlohmann::json& d = last->report["deflatedSharpe"];
        QVERIFY2(d.is_object(), last->report.dump().c_str());
        QCOMPARE(d["trials"].get<int>(), 3);
        QCOMPARE(d["bestTrial"].get<int>(), last->report["best"]["number"].get<int>());
        QVERIFY(d.contains("probability") && d.contains("meaning"));
        // Each trial's run carries its data's provenance as a window-trained run does (issue
        // 41: `runs show` printed "data size 0 bytes, sha256 (empty), data bars 0" and "best
        // epoch 2 ()").
        uint64_t size = 0;
        const std::string sha = sha256File((dir_ + "/cut.csv").toStdString(), &size);
        RunStore store(db_.toStdString(), false);
        std::set<std::string> uuids;
        for (const TrialRow& t : last->trials) {
            const auto run = store.get(t.runId);
            QVERIFY(run);
            QCOMPARE(run->dataSha256, sha);
            QCOMPARE(run->dataSize, int64_t(size));
            QCOMPARE(run->dataBars, int64_t(500));
            QVERIFY(!run->dataFirstBar.empty() && !run->dataLastBar.empty());
            QCOMPARE(run->dataFile, std::filesystem::absolute((dir_ + "/cut.csv").toStdString())
                                        .lexically_normal()
                                        .string());
            QCOMPARE(run->monitor, std::string("validation_loss"));  // as RunEngine records it
            QCOMPARE(run->uuid.size(), newRunUuid().size());         // a run's own uuid
            QVERIFY(uuids.insert(run->uuid).second);
        }
    }

    void stopThenResume() {
        SweepPresenter p;
        p.setDatabase(db_);
        QSignalSpy started(&p, &SweepPresenter::started);
        // A run cap that tiny trials cannot reach within the coordinator's stop latency (it
        // reads the stop request every 0.5 s; 6 trials once all ended within it under load).
        const int cap = 100;
        QVERIFY(p.start(spec(cap), {}, 1));
        QVERIFY(started.wait(60000));
        const qint64 id = started.first().at(0).toLongLong();
        p.stop();
        QCOMPARE(waitFinished(p), QStringLiteral("stopped"));
        {
            RunStore store(db_.toStdString(), false);
            int done = 0;
            for (const TrialRow& t : SweepStore(store).trials(id))
                done += t.state == sweep::TrialState::Complete;
            QVERIFY2(done < cap, "stop ended the sweep before its run cap");
        }
        QVERIFY(p.resume(id, 2));
        QCOMPARE(waitFinished(p), QStringLiteral("completed"));
        RunStore store(db_.toStdString(), false);
        const auto trials = SweepStore(store).trials(id);
        QCOMPARE(int(trials.size()), cap);
        for (const TrialRow& t : trials) QCOMPARE(t.state, sweep::TrialState::Complete);
    }

    void aStopWhenNothingIsLeftEndsCompleted() {
        // Issue 41: a sweep whose every trial finished ended "stopped" when the stop came as the
        // last trial ran. One trial of one long epoch: the stop is seen while it trains, the
        // trial completes (a last epoch is not cut), nothing is left to run.
        std::ofstream((dir_ + "/long.json").toStdString())
            << R"({"formatVersion":1,"name":"long","data":{"source":"synthetic","samples":200000,
            "units":2,"window":3},"model":{"layers":[{"type":"dense","neurons":4},
            {"type":"dense","neurons":3}]},"training":{"epochs":1,"batchSize":1}})";
        SweepPresenter p;
        p.setDatabase(db_);
        bool running = false;  // the trial is training
        connect(&p, &SweepPresenter::shown, this, [&](const SweepSnapshot& s) {
            for (const TrialRow& t : s.trials)
                running = running || t.state == sweep::TrialState::Running;
        });
        QSignalSpy started(&p, &SweepPresenter::started);
        QVERIFY(p.start(QString(R"({"name":"one","experiment":"%1/long.json","method":"random",
            "seed":1,"runCap":1,"parameters":[
            {"path":"training.optimizer.learningRate","min":0.001,"max":0.01}]})")
                            .arg(dir_),
                        {}, 1));
        QVERIFY(started.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(running, 60000);
        p.stop();
        QCOMPARE(waitFinished(p), QStringLiteral("completed"));
        RunStore store(db_.toStdString(), false);
        const auto trials = SweepStore(store).trials(started.first().at(0).toLongLong());
        QCOMPARE(trials.size(), size_t(1));
        QCOMPARE(trials[0].state, sweep::TrialState::Complete);
    }

    void badSlotsAreRefusedBeforeAnythingRuns() {
        SweepPresenter p;
        p.setDatabase(db_);
        QSignalSpy failed(&p, &SweepPresenter::failed);
        QVERIFY(!p.start(spec(3), {}, QStringLiteral("gpu=2")));
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.last().at(0).toString().startsWith(
                     "Slots: 'gpu' is not cpu, opencl:P:D or opencl:P:*"),
                 qPrintable(failed.last().at(0).toString()));
        QVERIFY(!p.start(spec(3), {}, QStringLiteral("cpu=0")));
        QVERIFY(!p.resume(1, QStringLiteral("opencl:0:0")));
        QCOMPARE(failed.count(), 3);
        QVERIFY(!p.isRunning());
        // The CLI's list form runs like a bare count.
        QVERIFY(p.start(spec(2), {}, QStringLiteral("cpu=1")));
        QCOMPARE(waitFinished(p), QStringLiteral("completed"));
    }

    void badSpecsShowTheLoadersError() {
        SweepPresenter p;
        p.setDatabase(db_);
        QSignalSpy checked(&p, &SweepPresenter::specChecked);
        const QString file = dir_ + "/bad.json";
        p.check(QStringLiteral("{\n  \"name\": \"x\",\n  \"method\" \"tpe\"\n}"), file);
        QVERIFY(checked.wait(20000));
        QVERIFY2(checked.last().at(0).toString().startsWith(file + ":3:"),
                 qPrintable(checked.last().at(0).toString()));
        QString s = spec(3);
        s.replace("model.layers[0].neurons", "model.layers[7].heads");
        p.check(s, file);
        QVERIFY(checked.wait(20000));
        QVERIFY2(checked.last().at(0).toString().contains("parameters[1]"),
                 qPrintable(checked.last().at(0).toString()));
        // A spec nested 100,000 deep: refused at its 65th level with the position (the
        // depth-bounded reader the CLI uses), not walked by nlohmann's recursive copy or dump.
        p.check(QString(100000, '[') + QString(100000, ']'), file);
        QVERIFY(checked.wait(20000));
        QVERIFY2(checked.last().at(0).toString() == file + ":1:65: nested deeper than 64 levels",
                 qPrintable(checked.last().at(0).toString().left(300)));
        p.check(spec(3), file);
        QVERIFY(checked.wait(20000));
        QCOMPARE(checked.last().at(0).toString(), QString());
        QSignalSpy failed(&p, &SweepPresenter::failed);
        QVERIFY(p.start(QStringLiteral("{\"name\": 1"), {}, 1));  // fails on its thread
        QVERIFY(failed.wait(20000));
        QVERIFY(failed.last().at(0).toString().contains("not valid JSON"));
        QTRY_VERIFY(!p.isRunning());
    }

    void theFormsDraftIsASpecTheLoaderTakes() {
        const auto fields = sweepableFields(nlohmann::json::parse(kTiny));
        std::vector<std::string> paths;
        for (const SweepField& f : fields) paths.push_back(f.path);
        for (const char* want : {"training.batchSize", "training.optimizer.learningRate",
                                 "model.layers[0].neurons", "data.window"})
            QVERIFY2(std::find(paths.begin(), paths.end(), want) != paths.end(), want);
        QVERIFY(std::find(paths.begin(), paths.end(), "data.source") == paths.end());
        SweepDraft d;
        d.experiment = (dir_ + "/tiny.json").toStdString();
        d.method = "tpe";
        d.earlyTerminate = "asha";
        d.secondObjective = "parameters";
        d.runCap = 9;
        QVERIFY(!specOfDraft(d).contains("population"));  // 1: each trial its own process
        d.population = 4;
        d.params.push_back({"training.optimizer.learningRate", true, 1e-4, 1e-1, false, true, ""});
        d.params.push_back({"model.layers[0].neurons", true, 2, 6, true, false, ""});
        d.params.push_back({"training.batchSize", false, 0, 0, false, false, "4, 8, 16"});
        const sweep::SweepSpec s =
            sweep::SweepSpec::fromJson(nlohmann::json::parse(specOfDraft(d).dump()), "form", ".");
        QVERIFY(specOfDraft(d).dump().find(R"({"name":"sweep","experiment":)") == 0);
        QCOMPARE(s.method, std::string("tpe"));
        QCOMPARE(s.pruner, std::string("asha"));
        QVERIFY(s.second && s.second->metric == "parameters");
        QCOMPARE(s.runCap, 9);
        QCOMPARE(s.population, 4);
        QCOMPARE(int(s.params.size()), 3);
        QCOMPARE(s.params[0].def.kind, sweep::ParamKind::LogFloat);
        QCOMPARE(s.params[1].def.kind, sweep::ParamKind::Int);
        QCOMPARE(s.params[2].def.kind, sweep::ParamKind::Categorical);
        QCOMPARE(s.params[2].def.choices.size(), size_t(3));
        QCOMPARE(draftValues("adam, sgd, 3, true").dump(), std::string(R"(["adam","sgd",3,true])"));
    }
};

QTEST_GUILESS_MAIN(TestSweepPresenter)
#include "tst_sweep_presenter.moc"
