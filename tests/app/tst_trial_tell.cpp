// How an attempt of a sweep trial ends (app/sweep/TrialTell.cpp, issue 42 §3): the one
// decision the coordinator, the bundle import and the bundle task share, case by case: a
// completed trial and its best value, an end objective the result lacks (failed, saying why),
// pruned, stopped by `sweep stop` (queued, no attempt), a process that died (queued while
// attempts are left, else failed), a bundle's rung (pruned, or running until the next one), and
// the second objective of a trial with and without epochs.
#include <QtTest>

#include "app/sweep/TrialTell.h"

using namespace nnwb;
using sweep::TrialState;

namespace {

sweep::SweepSpec lossSpec() {
    sweep::SweepSpec s;
    s.objective.metric = "validation.loss";
    s.objective.minimize = true;
    return s;
}

sweep::SweepSpec sharpeSpec() {
    sweep::SweepSpec s;
    s.objective.metric = "trading.sharpe";
    s.objective.minimize = false;
    return s;
}

TrialRow trialWithEpochs() {
    TrialRow t;
    t.number = 3;
    t.epochs = {{1, 0.5}, {2, 0.3}, {3, 0.4}};
    t.epochsDone = 3;
    return t;
}

AttemptEnd endedAs(const std::string& status) {
    AttemptEnd a;
    a.ended = true;
    a.status = status;
    a.epochs = 3;
    return a;
}

}  // namespace

class TrialTellTest : public QObject {
    Q_OBJECT

private slots:
    void completedTakesTheBestEpoch() {
        for (const char* word : {"completed", "stopped_early"}) {
            const TrialOutcome o = tellTrial(lossSpec(), trialWithEpochs(), endedAs(word));
            QCOMPARE(o.end.state, TrialState::Complete);
            QCOMPARE(*o.end.value, 0.3);  // the best epoch's, not the last's
            QCOMPARE(o.runStatus, std::string(word));
            QVERIFY(o.end.error.empty());
            QVERIFY(o.end.attemptCounts);
        }
    }

    void anEndObjectiveTheResultLacksFailsSayingWhy() {
        AttemptEnd a = endedAs("completed");
        a.result = {{"trading", {{"error", "no price file"}}}};
        TrialOutcome o = tellTrial(sharpeSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Failed);
        QVERIFY(!o.end.value);
        QCOMPARE(o.end.error, std::string("the objective trading.sharpe is not in the trial's "
                                          "result (trading: no price file)"));
        QCOMPARE(o.runStatus, std::string("failed"));
        a.result = nullptr;
        o = tellTrial(sharpeSpec(), trialWithEpochs(), a);
        QVERIFY2(o.end.error.find("(nothing to trade:") != std::string::npos, o.end.error.c_str());
        a.result = {{"trading", {{"strategy", {{"sharpe", 0.25}}}}}};
        o = tellTrial(sharpeSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Complete);
        QCOMPARE(*o.end.value, 0.25);
    }

    void prunedKeepsItsValueAndEpoch() {
        AttemptEnd a = endedAs("pruned");
        a.prunedAt = 2;
        const TrialOutcome o = tellTrial(lossSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Pruned);
        QCOMPARE(*o.end.prunedAt, 2);
        QCOMPARE(*o.end.value, 0.3);
        QCOMPARE(o.end.error, std::string("pruned after epoch 2"));
        QCOMPARE(o.runStatus, std::string("stopped"));
    }

    void aSweepStopRequeuesWithoutAnAttempt() {
        AttemptEnd a = endedAs("stopped");
        a.stopRequested = true;
        TrialOutcome o = tellTrial(lossSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Queued);
        QVERIFY(!o.end.attemptCounts);
        QVERIFY(!o.end.value);
        QCOMPARE(o.runStatus, std::string("stopped"));
        a.stopRequested = false;  // stopped without a sweep stop: the trial ended itself
        o = tellTrial(lossSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Failed);
        QVERIFY(o.end.attemptCounts);
    }

    void aProcessThatDiedIsRetriedWhileAttemptsAreLeft() {
        AttemptEnd a;
        a.died = "the trial process ended without finishing (exit status 9; see trial-3.err)";
        a.mayRetry = true;
        TrialOutcome o = tellTrial(lossSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Queued);
        QVERIFY(o.end.attemptCounts);
        QCOMPARE(o.end.error, a.died);
        a.mayRetry = false;
        o = tellTrial(lossSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Failed);
        QCOMPARE(*o.end.value, 0.3);
        a = endedAs("failed");
        a.error = "out of memory";
        o = tellTrial(lossSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Failed);
        QCOMPARE(o.end.error, std::string("out of memory"));
        a.failure = "a bad epoch line from the trial: ...";  // the coordinator's own reason wins
        o = tellTrial(lossSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.error, a.failure);
    }

    void aBundleRungPrunesOrWaits() {
        AttemptEnd a = endedAs("stopped");
        a.pausedAtRung = true;
        TrialOutcome o = tellTrial(lossSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Running);  // the next generation goes on
        QCOMPARE(*o.end.value, 0.3);
        QVERIFY(o.end.error.empty());
        a.prunedAt = 1;
        o = tellTrial(lossSpec(), trialWithEpochs(), a);
        QCOMPARE(o.end.state, TrialState::Pruned);
        QCOMPARE(*o.end.prunedAt, 1);
        QCOMPARE(o.runStatus, std::string("stopped"));
    }

    // The coordinator and the import computed the second objective apart and differed: the
    // import gave a walk-forward trial (end figures, no epochs) no second value.
    void theSecondObjective() {
        sweep::SweepSpec spec = lossSpec();
        spec.second = sweep::Objective{"samplesPerSecond", false};
        AttemptEnd a = endedAs("completed");
        a.spsSum = 300;
        a.epochs = 3;
        QCOMPARE(*tellTrial(spec, trialWithEpochs(), a).end.second, 100.0);
        a.epochs = 0;
        QVERIFY(!tellTrial(spec, trialWithEpochs(), a).end.second);
        sweep::SweepSpec wf = sharpeSpec();
        wf.second = sweep::Objective{"trading.maxDrawdown", true};
        AttemptEnd w = endedAs("completed");
        w.epochs = 0;
        w.result = {{"trading", {{"strategy", {{"sharpe", 0.1}, {"maxDrawdownPoints", 42.0}}}}}};
        const TrialOutcome o = tellTrial(wf, TrialRow{}, w);
        QCOMPARE(o.end.state, TrialState::Complete);
        QCOMPARE(*o.end.second, 42.0);
    }
};

QTEST_MAIN(TrialTellTest)
#include "tst_trial_tell.moc"
