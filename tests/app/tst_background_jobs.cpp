// The window's background jobs of app/core, without widgets: a prediction (PredictJob) and a
// file read (FileInspectJob) report on the owner's thread; cancel() and the owner's end drop
// an outcome still to come; the run store's queries (RunHistory) run in the order asked, an
// edit seen by the list asked after it, and an answer whose context object is gone is dropped.
#include <QSignalSpy>
#include <QtTest>

#include <memory>

#include "app/core/BackgroundJobs.h"
#include "app/core/FileInspectJob.h"
#include "app/core/PredictJob.h"
#include "app/core/RunHistory.h"
#include "app/runs/RunStore.h"
#include "common/TestUtil.h"
#include "common/UntrainedBundle.h"
#include "model/NetworkWeights.h"
#include "model/TrainingSession.h"
#include "model/data/DataConfig.h"

using namespace nnwb;

namespace {

// An untrained bundle of a small stack on the bundled EURUSD H1 bars (predicting needs weights,
// not good ones).
std::shared_ptr<const ModelBundle> smallBundle() {
    return test::untrainedBundle("jobs test");
}

void waitForJobs() {
    QTRY_COMPARE_WITH_TIMEOUT(BackgroundJobs::instance().pending(), 0, 60000);
    QCoreApplication::processEvents();  // an outcome posted last is delivered (or dropped) now
}

}  // namespace

class BackgroundJobsTest : public QObject {
    Q_OBJECT
    std::shared_ptr<const ModelBundle> bundle_;
    QString file_;
private Q_SLOTS:
    void initTestCase() {
        bundle_ = smallBundle();
        file_ = QString::fromStdString(defaultDataFile());
    }

    void predictionReportsOnTheOwnersThread() {
        PredictJob job(bundle_, QStringLiteral("cpu"));
        QSignalSpy finished(&job, &PredictJob::finished);
        QVERIFY(job.start(file_));
        QVERIFY(job.busy());
        QVERIFY(!job.start(file_));  // one at a time
        QVERIFY(finished.wait(60000));
        const auto o = finished.first().at(0).value<PredictOutcome>();
        QVERIFY2(o.ok, qPrintable(o.error));
        QVERIFY(!o.result->rows.empty());
        QCOMPARE(o.path, file_);
        QVERIFY(!job.busy());
    }

    void cancelDropsTheOutcome() {
        PredictJob job(bundle_, QStringLiteral("cpu"));
        QSignalSpy finished(&job, &PredictJob::finished);
        QVERIFY(job.start(file_));
        job.cancel();
        QVERIFY(!job.busy());
        waitForJobs();
        QCOMPARE(finished.count(), 0);
        QVERIFY(job.start(file_));  // the job is usable again
        QVERIFY(finished.wait(60000));
        QVERIFY(finished.first().at(0).value<PredictOutcome>().ok);
    }

    void anOwnerGoneDropsTheOutcome() {
        int delivered = 0;
        {
            QObject owner;
            auto* job = new PredictJob(bundle_, QStringLiteral("cpu"), TradingSettings(), &owner);
            connect(job, &PredictJob::finished, qApp, [&delivered] { ++delivered; });
            QVERIFY(job->start(file_));
            auto* inspect = new FileInspectJob(&owner);
            inspect->inspect(file_, [&delivered](const PriceFileInfo&) { ++delivered; });
            QCOMPARE(inspect->pending(), 1);
        }  // owner, jobs and their queues gone while the work goes on
        waitForJobs();
        QCOMPARE(delivered, 0);
    }

    void fileInspection() {
        FileInspectJob job;
        int calls = 0;
        PriceFileInfo got;
        job.inspect(file_, [&](const PriceFileInfo& info) {
            ++calls;
            got = info;
        });
        QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 30000);
        QVERIFY2(got.ok, got.error.c_str());
        QVERIFY(got.bars > 0);
        QCOMPARE(job.pending(), 0);
        job.inspect(file_, [&](const PriceFileInfo&) { ++calls; });
        job.cancelAll();
        waitForJobs();
        QCOMPARE(calls, 1);
    }

    void runHistoryAnswersInOrder() {
        const std::string db = test::tempDir() + "/runs.sqlite";
        int64_t id = 0;
        {
            RunStore store(db);
            StoredRun r;
            r.name = "first";
            r.experiment = test::tinyExperimentJson(1);
            id = store.insertRun(r);
        }
        RunHistory history;
        history.setDatabase(QString::fromStdString(db));
        QObject context;
        std::vector<StoredRun> listed;
        int answers = 0;
        auto list = [&] {
            history.list(&context, [&](const RunHistory::Runs& runs, const QString& error) {
                QVERIFY2(error.isEmpty(), qPrintable(error));
                listed = runs;
                ++answers;
            });
        };
        list();
        QTRY_COMPARE(answers, 1);
        QCOMPARE(listed.size(), size_t(1));
        QCOMPARE(listed[0].name, std::string("first"));
        // An edit, then a list: the list sees the edit (one thread, in the order asked).
        history.setMeta(id, "renamed", "t", "a note");
        list();
        QTRY_COMPARE(answers, 2);
        QCOMPARE(listed[0].name, std::string("renamed"));
        QCOMPARE(listed[0].note, std::string("a note"));
        // A context gone before its answer: the answer is dropped.
        {
            QObject gone;
            history.list(&gone, [&](const RunHistory::Runs&, const QString&) { ++answers; });
        }
        history.remove({id}, &context, [&](const QString& error) { QVERIFY(error.isEmpty()); });
        list();
        QTRY_COMPARE(answers, 3);
        QVERIFY(listed.empty());
        QCOMPARE(history.pending(), 0);
        // No database file: no runs, no error, and no file made.
        history.setDatabase(QString::fromStdString(test::tempDir() + "/none.sqlite"));
        list();
        QTRY_COMPARE(answers, 4);
        QVERIFY(listed.empty());
    }
};

QTEST_MAIN(BackgroundJobsTest)
#include "tst_background_jobs.moc"
