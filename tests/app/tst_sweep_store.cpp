// The sweep tables' guards (app/sweep/SweepStore.cpp, issue 42 §3): a sweep is claimed by a
// live coordinator whatever host name the claimer has (its heartbeat decides), a stale
// heartbeat is taken over, a configuration's replicates are stored together or not at all, and
// the run of a running trial cannot be removed from the run store; every update of a trial is
// guarded by the state and attempt it expects, so a finished trial never changes.
#include <QtTest>

#include <unistd.h>

#include <functional>

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
        const int attempt = sweeps.startTrial(id, 0, "cpu#1");
        StoredRun run;
        run.name = "s trial 0";
        run.source = "sweep";
        run.experiment = test::tinyExperimentJson(1);
        const int64_t rid = store.insertRun(run, [&](SQLite::Database& db, int64_t r) {
            SweepStore::linkRun(db, id, 0, attempt, r);
        });
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
            SweepStore::endTrial(db, id, 0, attempt, {sweep::TrialState::Complete, 0.5});
        });
        QVERIFY(store.remove(rid));
        QCOMPARE(sweeps.trials(id)[0].runId, int64_t(0));
    }

    // A late line (an epoch or end after the trial ended) or a second coordinator's update
    // changes nothing of a finished trial: each guarded update throws, the row stays.
    void aFinishedTrialNeverChanges() {
        RunStore store(db_);
        SweepStore sweeps(store);
        const int64_t id = sweeps.create("s", nlohmann::json::object(), "");
        sweeps.addTrials(id, {trial(0, 0, 0)});
        const int attempt = sweeps.startTrial(id, 0, "cpu#1");
        QCOMPARE(attempt, 1);
        auto write = [&](const std::function<void(SQLite::Database&)>& f) {
            store.write("test", f);
        };
        write([&](SQLite::Database& db) { SweepStore::addEpoch(db, id, 0, attempt, 1, 0.4, 0.4); });
        write([&](SQLite::Database& db) { SweepStore::addEpoch(db, id, 0, attempt, 2, 0.6, 0.4); });
        QCOMPARE(*sweeps.trial(id, 0)->value, 0.4);  // the best so far, not the last epoch's
        QCOMPARE(sweeps.trial(id, 0)->epochs.rbegin()->second, 0.6);
        write([&](SQLite::Database& db) {
            SweepStore::endTrial(db, id, 0, attempt, {sweep::TrialState::Complete, 0.4});
        });
        const TrialRow done = *sweeps.trial(id, 0);
        auto refused = [&](const char* what, const std::function<void()>& f) {
            try {
                f();
                QFAIL(qPrintable(QString("a finished trial took ") + what));
            } catch (const RunStoreError& e) {
                QVERIFY2(QString(e.what()).contains("trial 0 of sweep 1 is complete after 1 "
                                                    "attempts"),
                         e.what());
            }
        };
        refused("a late epoch", [&] {
            write([&](SQLite::Database& db) {
                SweepStore::addEpoch(db, id, 0, attempt, 3, 0.1, 0.1);
            });
        });
        refused("a late end", [&] {
            write([&](SQLite::Database& db) {
                SweepStore::endTrial(db, id, 0, attempt, {sweep::TrialState::Failed});
            });
        });
        refused("a late epoch count", [&] {
            write([&](SQLite::Database& db) { SweepStore::setEpochsDone(db, id, 0, attempt, 3); });
        });
        refused("another run", [&] {
            write([&](SQLite::Database& db) { SweepStore::linkRun(db, id, 0, attempt, 99); });
        });
        refused("a second start", [&] { sweeps.startTrial(id, 0, "cpu#2"); });
        refused("a requeue", [&] { sweeps.requeueTrial(id, 0, "coordinator gone"); });
        refused("a failure", [&] { sweeps.failTrial(id, 0, "late"); });
        const TrialRow after = *sweeps.trial(id, 0);
        QCOMPARE(after.state, sweep::TrialState::Complete);
        QCOMPARE(*after.value, 0.4);
        QCOMPARE(after.epochs, done.epochs);
        QCOMPARE(after.epochsDone, 2);
        QCOMPARE(after.attempts, 1);
        QCOMPARE(after.slot, std::string("cpu#1"));
        QCOMPARE(after.runId, int64_t(0));
    }

    // The lines of an attempt that another attempt replaced (its process outlived a
    // coordinator) change nothing of the new attempt.
    void aLateLineOfAnEarlierAttemptChangesNothing() {
        RunStore store(db_);
        SweepStore sweeps(store);
        const int64_t id = sweeps.create("s", nlohmann::json::object(), "");
        sweeps.addTrials(id, {trial(0, 0, 0)});
        const int first = sweeps.startTrial(id, 0, "cpu#1");
        sweeps.requeueTrial(id, 0, "its coordinator ended");
        const int second = sweeps.startTrial(id, 0, "cpu#2");
        QCOMPARE(second, first + 1);
        QVERIFY_THROWS_EXCEPTION(RunStoreError, store.write("test", [&](SQLite::Database& db) {
            SweepStore::addEpoch(db, id, 0, first, 1, 0.3, 0.3);
        }));
        QVERIFY(sweeps.trial(id, 0)->epochs.empty());
        QCOMPARE(sweeps.trial(id, 0)->epochsDone, 0);
        // A sweep stop ends an attempt that is none: the count goes back.
        store.write("test", [&](SQLite::Database& db) {
            TrialEnd stop{sweep::TrialState::Queued};
            stop.error = "stopped by sweep stop";
            stop.attemptCounts = false;
            SweepStore::endTrial(db, id, 0, second, stop);
        });
        QCOMPARE(sweeps.trial(id, 0)->attempts, 1);
        QCOMPARE(sweeps.trial(id, 0)->state, sweep::TrialState::Queued);
    }

    // A coordinator whose sweep another one took over renews no heartbeat (it then ends).
    void aHeartbeatIsRenewedOnlyByTheOwner() {
        RunStore store(db_);
        SweepStore sweeps(store);
        const int64_t id = sweeps.create("s", nlohmann::json::object(), "");
        QVERIFY(sweeps.heartbeat(id));
        coordinatedElsewhere(store, id, 16 * 60);
        const double before = sweeps.sweep(id)->heartbeatAt;
        QVERIFY(!sweeps.heartbeat(id));
        QCOMPARE(sweeps.sweep(id)->heartbeatAt, before);
    }
};

QTEST_MAIN(SweepStoreTest)
#include "tst_sweep_store.moc"
