// The window offers Continue by the run engine's one rule (app/engine/ContinueRule.h): after a
// run, changing only the epoch count or the learning rate still offers to continue; changing
// the batch size or the device makes Train start a fresh run without asking (the worker would
// refuse to continue it); putting the setting back offers Continue again. After Continue, the
// Price Chart's "the best epoch" is the run's best epoch, also when an earlier run's epoch
// (issue 41: it picked among the continued epochs only, and disagreed with Metrics).
#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/RunPresenter.h"
#include "app/core/TrainingController.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "ui/MainWindow.h"
#include "ui/MetricCharts.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"

#include <fstream>

using namespace nnwb;

namespace {

// Train (the action), answering a Continue question with Cancel; returns the question asked
// ("" when Train asked nothing and started a run).
QString trainAsking(MainWindow& w, QObject* context) {
    QString asked;
    QTimer::singleShot(100, context, [&asked] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        asked = box->text();
        box->button(QMessageBox::Cancel)->click();
    });
    w.trainRequested();
    return asked;
}

void setTraining(MainWindow& w, const std::function<void(TrainingConfig&)>& change) {
    TrainingConfig t = w.document()->experiment().training;
    change(t);
    QVERIFY(w.document()->setTraining(t));
}

}  // namespace

class TestContinueRule : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theBestEpochOfAContinuedRunIsPicked() {
        const std::string file = test::tempDir() + "/bars.csv";
        {
            std::ifstream in(defaultDataFile());
            std::ofstream out(file);
            std::string line;
            for (int i = 0; i < 900 && std::getline(in, line); ++i) out << line << '\n';
        }
        nlohmann::json j = test::tinyExperimentJson(2);
        j["formatVersion"] = 2;
        j["data"] = {{"file", file}, {"window", 8}, {"validationShare", 0.3}};
        // minDelta 1000: epoch 1 stays the best of every epoch, the continued ones too.
        j["training"]["earlyStopping"] = {{"enabled", false}, {"minDelta", 1000.0}};
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        w.document()->reset(Experiment::fromJson(j));
        w.show();
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(finished.wait(60000));
        QTRY_VERIFY(!w.controller()->isBusy());
        finished.clear();  // Continue: two more epochs, numbered 3 and 4
        QVERIFY(w.startTraining(0, StartMode::ContinueCurrent));
        QVERIFY(finished.wait(60000));
        QTRY_VERIFY(!w.controller()->isBusy());
        QCOMPARE(w.charts()->reports().size(), size_t(4));
        QCOMPARE(w.charts()->reports().back().bestEpoch, 1);
        QComboBox* picker = w.priceChartPane()->signalPicker();
        QCOMPARE(picker->count(), 2 + 4);  // latest, best, epochs 1..4
        picker->setCurrentIndex(1);        // the best epoch
        const QString label = w.priceChartPane()->chart()->signalLabel();
        QVERIFY2(label.startsWith(QStringLiteral("epoch 1 ")), qPrintable(label));
    }

    void batchSizeOrDeviceStartsAFreshRun() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString(), false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(1, 16)));
        w.show();
        QSignalSpy started(w.controller(), &TrainingController::runStarted);
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(finished.wait(60000));
        QTRY_VERIFY(!w.controller()->isBusy());
        QVERIFY(w.canContinue());

        // The epoch count and the learning rate: Continue is offered.
        setTraining(w, [](TrainingConfig& t) { t.epochs = 3; });
        QVERIFY(w.canContinue());
        QVERIFY(!trainAsking(w, this).isEmpty());
        setTraining(w, [](TrainingConfig& t) { t.optimizer.learningRate = 0.002; });
        QVERIFY(w.canContinue());
        QVERIFY(!trainAsking(w, this).isEmpty());
        QVERIFY(!w.controller()->isBusy());

        // The device: no Continue, and the presenter says why in the engine's words.
        setTraining(w, [](TrainingConfig& t) { t.device = "opencl:9:9"; });
        QVERIFY(!w.canContinue());
        QVERIFY(w.presenter()->continueRefusal(w.document()->experiment()).find("device") !=
                std::string::npos);
        setTraining(w, [](TrainingConfig& t) { t.device = "cpu"; });
        QVERIFY(w.canContinue());

        // The batch size: Train asks nothing and starts over at epoch 1.
        setTraining(w, [](TrainingConfig& t) { t.batchSize = 8; });
        QVERIFY(!w.canContinue());
        started.clear();
        finished.clear();
        QCOMPARE(trainAsking(w, this), QString());
        QVERIFY(finished.count() > 0 || finished.wait(60000));
        QCOMPARE(started.count(), 1);
        const RunInfo info = started.first().at(0).value<RunInfo>();
        QCOMPARE(info.firstEpoch, 1);
        QVERIFY(!info.continued);
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);
        QTRY_VERIFY(!w.controller()->isBusy());
        QVERIFY(w.canContinue());  // the new run's weights, batch size 8
    }
};

QTEST_MAIN(TestContinueRule)
#include "tst_continue_rule.moc"
