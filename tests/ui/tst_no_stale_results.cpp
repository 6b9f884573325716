// GUI: nothing stale stays on show (issue 13, finding 2): a failed import keeps the previous
// file's header and its error goes with a source switch or File > New; File > New and opening
// another experiment clear the charts, the confusion matrix and the heatmaps; results of a
// run made on other data or another stack are marked as such; File > New takes the previous
// run's signals off the price chart.
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/LayerStackModel.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"
#include "ui/AttentionView.h"
#include "ui/DataPanel.h"
#include "ui/MainWindow.h"
#include "ui/MetricCharts.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"

using namespace nnwb;

namespace {
QString fixtureFile(const char* name) {
    return QString(NNWB_TEST_FIXTURES) + "/" + name;
}

Experiment attentionRun() {
    Experiment e = Experiment::fromJson(test::tinyExperimentJson(1));
    e.model["layers"] = {
        {{"type", "conv"}, {"window", 6}, {"step", 6}, {"filters", 8}, {"activation", "tanh"}},
        {{"type", "attention"}, {"units", 0}, {"window", 0}, {"key_size", 4}},
        {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}};
    return e;
}

void trainOnce(MainWindow& w) {
    QSignalSpy done(w.controller(), &TrainingController::runFinished);
    QVERIFY(w.startTraining());
    QVERIFY(done.wait(60000));
    QTRY_VERIFY(w.attentionView()->snapshot() != nullptr);
}
}  // namespace

class TestNoStaleResults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_no_stale_results"));
    }

    void failedImportKeepsHeaderAndErrorGoes() {
        MainWindow w;
        w.setConfirmDiscard(false);
        DataPanel* data = w.dataPanel();
        auto* header = data->findChild<QLabel*>(QStringLiteral("dataFileName"));
        data->openPriceFile(fixtureFile("mt4.csv"));
        QTRY_VERIFY(!data->isLoading());
        QCOMPARE(header->text(), QStringLiteral("mt4.csv"));
        data->openPriceFile(fixtureFile("bad_high_low.csv"));
        QTRY_VERIFY(!data->isLoading());
        QCOMPARE(header->text(), QStringLiteral("mt4.csv"));  // was "Reading bad_high_low.csv …"
        QVERIFY(data->errorText().contains("bad_high_low.csv:"));
        // A switch to the synthetic source: the error was about the price file.
        auto* source = data->findChild<QComboBox*>(QStringLiteral("dataSource"));
        source->setCurrentIndex(1);
        QVERIFY(data->errorText().isEmpty());
        source->setCurrentIndex(0);
        data->openPriceFile(fixtureFile("bad_high_low.csv"));
        QTRY_VERIFY(!data->isLoading());
        QVERIFY(!data->errorText().isEmpty());
        w.newExperiment();  // File > New
        QVERIFY(data->errorText().isEmpty());
        QTRY_VERIFY(!data->isLoading());
        QVERIFY(data->errorText().isEmpty());
        QVERIFY(!header->text().startsWith(QStringLiteral("Reading")));
    }

    void newAndOpenClearResults() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(attentionRun());
        trainOnce(w);
        QVERIFY(w.hasResults());
        QVERIFY(!w.charts()->reports().empty());
        w.newExperiment();
        QVERIFY(!w.hasResults());
        QVERIFY(w.charts()->reports().empty());
        QVERIFY(!w.attentionView()->snapshot());

        w.document()->reset(attentionRun());
        trainOnce(w);
        const QString path = QString::fromStdString(test::tempDir()) + "/other.json";
        Experiment other = Experiment::fromJson(test::tinyExperimentJson(1));
        other.save(path.toStdString());
        QVERIFY(w.openExperiment(path));
        QVERIFY(!w.hasResults());
        QVERIFY(!w.attentionView()->snapshot());
    }

    void newClearsThePriceChartsSignals() {
        MainWindow w;
        w.setConfirmDiscard(false);
        Experiment e =
            Experiment::load(std::string(NNWB_RESOURCES_DIR) + "/experiments/default.json");
        e.training.epochs = 1;
        w.document()->reset(e);
        QSignalSpy done(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(done.wait(120000));
        PriceChart* chart = w.priceChartPane()->chart();
        QTRY_VERIFY(chart->hitCount() + chart->falseSignalCount() > 0);
        QCOMPARE(w.priceChartPane()->signalPicker()->count(), 3);  // latest, best, epoch 1
        w.newExperiment();
        QCOMPARE(chart->hitCount() + chart->falseSignalCount(), size_t(0));
        QCOMPARE(w.priceChartPane()->signalPicker()->count(), 2);
    }

    void resultsOfAnotherStackAreMarked() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(attentionRun());
        trainOnce(w);
        QVERIFY(!w.resultsAreStale());
        QVERIFY(w.staleNote()->isHidden());
        w.stackModel()->setParameter(0, "filters", 10);
        QVERIFY(w.resultsAreStale());
        QVERIFY(!w.staleNote()->isHidden());
        w.document()->undoStack()->undo();
        QVERIFY(!w.resultsAreStale());
        QVERIFY(w.staleNote()->isHidden());
        nlohmann::json d = w.document()->experiment().data;
        d["samples"] = 300;
        w.document()->setData(d);
        QVERIFY(!w.staleNote()->isHidden());
    }
};

QTEST_MAIN(TestNoStaleResults)
#include "tst_no_stale_results.moc"
