// The one vocabulary of how runs end (app/engine/RunOutcome.cpp, issue 42 §1): stored
// statuses, the trial protocol's end words, fold words and their inverse, the texts shown to a
// user and the exit statuses of `train --trial` for one run and a packed population.
#include <QtTest>

#include "app/engine/RunOutcome.h"
#include "app/runs/StoredRun.h"

using namespace nnwb;

class RunOutcomeTest : public QObject {
    Q_OBJECT

private slots:
    void wordsAndTexts() {
        struct Case {
            RunOutcome o;
            const char *stored, *word, *text;
        };
        const Case cases[] = {
            {{RunEnd::Completed}, "completed", "completed", "completed"},
            {{RunEnd::Completed, true}, "stopped_early", "stopped_early", "stopped early"},
            {{RunEnd::Stopped}, "stopped", "stopped", "stopped"},
            {{RunEnd::Stopped, false, true}, "stopped", "pruned", "pruned"},
            {{RunEnd::Failed}, "failed", "failed", "failed"},
            {{RunEnd::Failed, false, true}, "failed", "failed", "failed"},
        };
        for (const Case& c : cases) {
            QCOMPARE(storedRunStatus(c.o), c.stored);
            QCOMPARE(trialEndWord(c.o), c.word);
            QCOMPARE(runEndText(c.o), c.text);
        }
        QVERIFY(trialEndWordComplete(runstatus::kCompleted));
        QVERIFY(trialEndWordComplete(runstatus::kStoppedEarly));
        for (const char* w : {"pruned", "stopped", "failed", ""}) QVERIFY(!trialEndWordComplete(w));
    }

    void foldWordsRoundTrip() {
        for (RunEnd e : {RunEnd::Completed, RunEnd::Stopped, RunEnd::Failed})
            QCOMPARE(runEndOfFoldWord(foldEndWord(e)), e);
        QCOMPARE(std::string(foldEndWord(RunEnd::Completed)), std::string("completed"));
        QCOMPARE(runEndOfFoldWord("anything else"), RunEnd::Stopped);
    }

    void trialExitStatuses() {
        QCOMPARE(trialExitStatus({{RunEnd::Completed}}), kTrialCompleted);
        QCOMPARE(trialExitStatus({{RunEnd::Completed, true}}), kTrialCompleted);
        QCOMPARE(trialExitStatus({{RunEnd::Stopped, false, true}}), kTrialPruned);
        QCOMPARE(trialExitStatus({{RunEnd::Stopped}}), kTrialStopped);
        QCOMPARE(trialExitStatus({{RunEnd::Failed}}), kTrialFailed);
        // A packed population: failed over stopped over pruned over completed.
        const RunOutcome done{RunEnd::Completed}, pruned{RunEnd::Stopped, false, true},
            stopped{RunEnd::Stopped}, failed{RunEnd::Failed};
        QCOMPARE(trialExitStatus({done, pruned}), kTrialPruned);
        QCOMPARE(trialExitStatus({pruned, stopped, done}), kTrialStopped);
        QCOMPARE(trialExitStatus({stopped, failed, pruned}), kTrialFailed);
        QCOMPARE(int(kTrialBadInput), 2);
    }
};

QTEST_MAIN(RunOutcomeTest)
#include "tst_run_outcome.moc"
