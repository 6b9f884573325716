// The sweep tables' guards (app/sweep/SweepStore.cpp, issue 42 §3): a sweep is claimed by a
// live coordinator whatever host name the claimer has (its heartbeat decides), a stale
// heartbeat is taken over, a configuration's replicates are stored together or not at all, and
// the run of a running trial cannot be removed from the run store.
#include <QtTest>

#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include "app/runs/HostClock.h"
#include "app/runs/RunStore.h"
#include "app/sweep/SweepStore.h"
#include "common/TestUtil.h"

using namespace nnwb;

class SweepStoreTest : public QObject {
    Q_OBJECT
    std::string db_;

    // Makes sweep `id`'s coordinator another host's, with its last heartbeat `ago` seconds ago.
    void coordinatedElsewhere(RunStore& store, int64_t id, double ago) {
        store.write("test", [&](SQLite::Database& db) {
            SQLite::Statement u(db,
                                "UPDATE sweeps SET host = 'another-host', pid = 1, pid_start = 1, "
                                "heartbeat_at = ? WHERE id = ?");
            u.bind(1, unixSeconds() - ago);
            u.bind(2, id);
            u.exec();
        });
    }
    static TrialRow trial(int number, int config, int replicate) {
        TrialRow t;
        t.number = number;
        t.config = config;
        t.replicate = replicate;
        t.params = {{"training.batchSize", 8}};
        return t;
    }

private slots:
    void init() { db_ = test::tempDir() + "/runs.sqlite"; }

    void claimRefusesALiveCoordinatorOnAnotherHost() {
        RunStore store(db_);
        SweepStore sweeps(store);
        const int64_t id = sweeps.create("s", nlohmann::json::object(), "");
        coordinatedElsewhere(store, id, 3);  // beating 3 s ago: alive
        QCOMPARE(sweeps.sweep(id)->status, std::string(sweepstatus::kRunning));
        try {
            sweeps.claim(id);
            QFAIL("a sweep whose coordinator on another host is alive was claimed");
        } catch (const RunStoreError& e) {
            QVERIFY2(QString(e.what()).contains("is still run by pid 1 on another-host"), e.what());
        }
        // Nothing changed: the live coordinator still owns it.
        QCOMPARE(sweeps.sweep(id)->host, std::string("another-host"));
        // The same with the sweep stopping (`sweep stop` asked, its coordinator still ends it).
        QCOMPARE(sweeps.requestStop(id), std::string(sweepstatus::kRunning));
        QVERIFY_THROWS_EXCEPTION(RunStoreError, sweeps.claim(id));
    }

    void claimTakesOverAStaleHeartbeat() {
        RunStore store(db_);
        SweepStore sweeps(store);
        const int64_t id = sweeps.create("s", nlohmann::json::object(), "");
        coordinatedElsewhere(store, id, 16 * 60);  // silent for 16 minutes: gone
        QCOMPARE(sweeps.claim(id), std::string(sweepstatus::kInterrupted));
        const auto s = sweeps.sweep(id);
        QCOMPARE(s->host, thisHostName());
        QCOMPARE(s->pid, int64_t(::getpid()));
        QCOMPARE(s->status, std::string(sweepstatus::kRunning));
        // Its own claimer may claim it again (the window resumes in its own process).
        QCOMPARE(sweeps.claim(id), std::string(sweepstatus::kRunning));
    }

    void replicatesAreStoredTogetherOrNotAtAll() {
        RunStore store(db_);
        SweepStore sweeps(store);
        const int64_t id = sweeps.create("s", nlohmann::json::object(), "");
        // A failure between a configuration's two replicates (what a kill there would cut).
        store.write("test", [](SQLite::Database& db) {
            db.exec(
                "CREATE TRIGGER cut BEFORE INSERT ON trials WHEN NEW.replicate = 1 BEGIN "
                "SELECT RAISE(ABORT, 'cut between the replicates'); END");
        });
        QVERIFY_THROWS_EXCEPTION(RunStoreError,
                                 sweeps.addTrials(id, {trial(0, 0, 0), trial(1, 0, 1)}));
        QVERIFY(sweeps.trials(id).empty());  // not one replicate of the two
        store.write("test", [](SQLite::Database& db) { db.exec("DROP TRIGGER cut"); });
        sweeps.addTrials(id, {trial(0, 0, 0), trial(1, 0, 1)});
        const auto trials = sweeps.trials(id);
        QCOMPARE(trials.size(), size_t(2));
        QCOMPARE(trials[1].config, 0);
        QCOMPARE(trials[1].replicate, 1);
        QCOMPARE(trials[1].state, sweep::TrialState::Queued);
    }

    void theRunOfARunningTrialCannotBeRemoved() {
        RunStore store(db_);
        SweepStore sweeps(store);
        const int64_t id = sweeps.create("s", nlohmann::json::object(), "");
        sweeps.addTrials(id, {trial(0, 0, 0)});
        sweeps.startTrial(id, 0, "cpu#1");
        StoredRun run;
        run.name = "s trial 0";
        run.source = "sweep";
        run.experiment = test::tinyExperimentJson(1);
        const int64_t rid = store.insertRun(
            run, [&](SQLite::Database& db, int64_t r) { SweepStore::linkRun(db, id, 0, r); });
        try {
            store.remove(rid);
            QFAIL("the run of a running trial was removed");
        } catch (const RunInUseError& e) {
            QVERIFY2(QString(e.what()).contains("is trial 0 of sweep 1, which is still running"),
                     e.what());
        }
        QVERIFY(store.get(rid));
        QCOMPARE(sweeps.trials(id)[0].runId, rid);
        // Once the trial ended, its run is an ordinary run to remove.
        store.finishRun(rid, "completed", "", std::nullopt, [&](SQLite::Database& db, int64_t) {
            SweepStore::endTrial(db, id, 0, sweep::TrialState::Complete, 0.5, std::nullopt,
                                 std::nullopt, "");
        });
        QVERIFY(store.remove(rid));
        QCOMPARE(sweeps.trials(id)[0].runId, int64_t(0));
    }
};

QTEST_MAIN(SweepStoreTest)
#include "tst_sweep_store.moc"
