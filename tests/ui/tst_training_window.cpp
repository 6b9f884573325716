// GUI: training from the window on the CPU backend and (when listDevices() has one) on
// OpenCL — one chart point per epoch, the confusion table filled — pause and stop acting within
// one batch, a worker error shown in the window, and closing the window during training; the
// Training pane's "Ensemble of N seeds" (one ensemble run with its members, as the CLI's; the
// price chart's "Signals of" names the kept ensemble; the heatmaps are its best member's).
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <iterator>
#include <thread>

#include "app/core/ExperimentDocument.h"
#include "app/core/PredictJob.h"
#include "app/core/TradingPresenter.h"
#include "app/core/TrainingController.h"
#include "app/ensemble/EnsembleKeep.h"
#include "app/runs/RunStore.h"
#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/FaultProbe.h"
#include "common/FifoReader.h"
#include "common/TestUtil.h"
#include "model/ensemble/EnsembleBundle.h"
#include "ui/AgreementStrip.h"
#include "ui/AttentionHeatmap.h"
#include "ui/AttentionView.h"
#include "ui/ConfusionTable.h"
#include "ui/LearningRateChart.h"
#include "ui/MainWindow.h"
#include "ui/MetricChart.h"
#include "ui/MetricCharts.h"
#include "ui/ModelActions.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"

using namespace nnwb;

namespace {

Experiment tinyOn(int epochs, const std::string& device = "cpu") {
    Experiment e = Experiment::fromJson(test::tinyExperimentJson(epochs));
    e.training.device = device;
    return e;
}

// Long epochs of tiny batches: each batch is microseconds, an epoch takes seconds.
Experiment slow() {
    Experiment e = tinyOn(3);
    e.data["samples"] = 400000;
    e.training.batchSize = 1;
    return e;
}

bool waitForEnd(QSignalSpy& finished, int ms) {
    return finished.count() > 0 || finished.wait(ms);
}

// The confusion table's counts, [actual][predicted].
nlohmann::json shownConfusion(ConfusionTable* table) {
    nlohmann::json m = nlohmann::json::array();
    for (int a = 0; a < 3; ++a) {
        m.push_back(nlohmann::json::array());
        for (int p = 0; p < 3; ++p)
            m[size_t(a)].push_back(
                table->table()->item(a, p)->text().section('\n', 0, 0).remove(',').toLongLong());
    }
    return m;
}

// What nnwb-cli predict --json gives for model bundle `model` over its validation part
// (--from/--to its training's validationFirst and validationLast) on `data`: its metrics.
nlohmann::json predictedValidation(test::CliFixture& cli, const std::string& model,
                                   const QString& data) {
    const auto meta = EnsembleBundle::load(model).common.metadata();
    const nlohmann::json t = nlohmann::json::parse(meta.at("training"));
    const auto r =
        cli.run({"predict", "--model", QString::fromStdString(model), "--data", data, "--from",
                 QString::fromStdString(t["validationFirst"].get<std::string>()), "--to",
                 QString::fromStdString(t["validationLast"].get<std::string>()), "--json"});
    if (r.code != 0) return {{"error", r.err.toStdString()}};
    return nlohmann::json::parse(r.out.toStdString())["metrics"];
}

}  // namespace

class TestTrainingWindow : public QObject {
    Q_OBJECT

    void trainOn(const std::string& device) {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(tinyOn(3, device));
        w.show();
        QSignalSpy epochs(w.controller(), &TrainingController::epochFinished);
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(!w.trainAction()->isEnabled());
        QVERIFY(w.stopAction()->isEnabled());
        QVERIFY(waitForEnd(finished, 60000));
        const auto end = finished.first().at(0).value<RunEnd>();
        const QString message = finished.first().at(1).toString();
        if (end == RunEnd::Failed && device != "cpu" && message.contains("no OpenCL device"))
            QSKIP("this build's OpenCL backend cannot open the device");
        QVERIFY2(end == RunEnd::Completed, qPrintable(message));
        QCOMPARE(epochs.count(), 3);
        MetricCharts* c = w.charts();
        for (MetricChart* chart : {c->lossChart(), c->missedChart(), c->accuracyChart()}) {
            QCOMPARE(chart->trainGraph()->dataCount(), 3);
            QCOMPARE(chart->validationGraph()->dataCount(), 3);
        }
        // the points are the reported figures, epoch by epoch
        const EpochReport last = epochs.last().at(0).value<EpochReport>();
        QCOMPARE(last.epoch, 3);
        QCOMPARE(c->lossChart()->trainGraph()->data()->at(2)->value, last.train.loss);
        QCOMPARE(c->lossChart()->validationGraph()->data()->at(2)->value, last.validation.loss);
        // the confusion table shows the last epoch's validation matrix
        QTableWidget* t = w.confusionTable()->table();
        int64_t total = 0;
        for (int a = 0; a < 3; ++a)
            for (int p = 0; p < 3; ++p) {
                const QString text = t->item(a, p)->text().section(QLatin1Char('\n'), 0, 0);
                total += QLocale().toLongLong(text);
                QCOMPARE(QLocale().toLongLong(text), last.validation.confusion[a][p]);
            }
        QCOMPARE(static_cast<size_t>(total), last.validation.samples);
        QVERIFY(w.trainAction()->isEnabled());
        QVERIFY(!w.stopAction()->isEnabled());
        // CSV export has a header and one row per epoch
        const QString csv = QString::fromStdString(test::tempDir()) + QStringLiteral("/m.csv");
        QString error;
        QVERIFY2(c->exportCsv(csv, &error), qPrintable(error));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().count('\n'), 4);
        // Issue 41: exports go through writeFileAtomic: a symlink keeps its link and a FIFO
        // stays one with the picture written through it (QSaveFile replaced it with a file).
        const QString dir = QString::fromStdString(test::tempDir());
        QVERIFY(QFile::link(csv, dir + "/link.csv"));
        QVERIFY2(c->exportCsv(dir + "/link.csv", &error), qPrintable(error));
        QVERIFY(QFileInfo(dir + "/link.csv").isSymLink());
        const std::string fifo = (dir + "/charts.png").toStdString();
        QCOMPARE(mkfifo(fifo.c_str(), 0600), 0);
        // Held open so that the reader never waits on a FIFO the export replaced: it reads to
        // the end once this and the export's descriptor are closed.
        const int held = ::open(fifo.c_str(), O_RDWR);
        QVERIFY(held >= 0);
        // The reading end is opened here, before the save, and read on a thread (a picture may be
        // more than the pipe holds).
        test::FifoReader reader(fifo);  // does not wait: `held` is a writer
        const bool exported = c->exportPng(QString::fromStdString(fifo), &error);
        ::close(held);
        const std::string got = reader.wait();
        QVERIFY2(exported, qPrintable(error));
        QCOMPARE(got.substr(0, 4), std::string("\x89PNG"));
        struct stat st {};
        QCOMPARE(lstat(fifo.c_str(), &st), 0);
        QVERIFY(S_ISFIFO(st.st_mode));
    }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_training_window"));
    }

    void trainsOnCpu() { trainOn("cpu"); }

    // Issue 44: training.ensemble 2 (the Training pane's "Ensemble of N seeds") trains seeds 5
    // and 6 as one population, recorded as one ensemble run with its 2 member runs whose
    // figures are those of nnwb-cli train --population 2 --vary seed=5..6 --ensemble; the
    // members' curves are thin lines in the Metrics charts and the kept ensemble's agreement
    // shows under the candles.
    void trainsAnEnsembleOfSeeds() {
        test::CliFixture cli;
        cli.dir_ = QString::fromStdString(test::tempDir());
        nlohmann::json e = test::barExperiment(
            "ens", {{"file", cli.writeCut("EURUSD_H1.csv", 700).toStdString()}, {"window", 6}},
            test::denseLayers(16), {{"epochs", 2}, {"batchSize", 16}, {"seed", 5}});
        const QString cliDb = cli.path("cli.sqlite"), windowDb = cli.path("window.sqlite");
        const auto r = cli.run({"train", "--experiment", cli.write("e.json", e.dump()),
                                "--population", "2", "--vary", "seed=5..6", "--ensemble",
                                "--save-model", cli.path("ens.safetensors"), "--runs-db", cliDb});
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        e["training"]["ensemble"] = 2;
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(windowDb, true);
        w.document()->reset(Experiment::fromJson(e));
        auto* field = w.findChild<QSpinBox*>(QStringLiteral("ensemble"));
        QVERIFY(field);
        QCOMPARE(field->value(), 2);
        QCOMPARE(field->minimum(), 1);  // 1 is one model: no ensemble of 1
        QCOMPARE(field->text(), QStringLiteral("2 seeds"));
        field->setValue(1);  // says so (it read "1 seeds")
        QCOMPARE(field->text(), QStringLiteral("1 = one model"));
        QCOMPARE(w.document()->experiment().training.ensemble, 1);
        field->setValue(2);
        QCOMPARE(w.document()->experiment().training.ensemble, 2);
        w.show();
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QSignalSpy memberEpochs(w.controller(), &TrainingController::memberEpochFinished);
        QVERIFY(w.startTraining());
        // While it trains, the attention pane says when its heatmaps come (it said "Waiting
        // for the first epoch…" through every epoch).
        auto* waiting = w.findChild<QLabel*>(QStringLiteral("attentionPlaceholder"));
        QVERIFY(waiting);
        QVERIFY2(waiting->text().contains(QStringLiteral("once its 2 seeds have trained")),
                 qPrintable(waiting->text()));
        QVERIFY(waitForEnd(finished, 60000));
        QCOMPARE(memberEpochs.count(), 4);  // 2 members, 2 epochs
        QVERIFY2(finished.first().at(0).value<RunEnd>() == RunEnd::Completed,
                 qPrintable(finished.first().at(1).toString()));
        RunStore windowStore(windowDb.toStdString()), cliStore(cliDb.toStdString());
        const auto shown = windowStore.list(), clis = cliStore.list();
        QCOMPARE(shown.size(), size_t(1));  // the ensemble's run; its members are not listed
        QCOMPARE(clis.size(), size_t(1));
        QCOMPARE(shown.front().ensembleMembers, 2);
        QCOMPARE(shown.front().name, clis.front().name);
        QVERIFY(shown.front().bestValLoss.has_value());
        QCOMPARE(*shown.front().bestValLoss, *clis.front().bestValLoss);
        QCOMPARE(shown.front().trading["strategy"], clis.front().trading["strategy"]);
        const auto run = windowStore.get(shown.front().id);
        QVERIFY(run && run->bundle("best"));
        const auto members = windowStore.members(shown.front().id);
        const auto cliMembers = cliStore.members(clis.front().id);
        QCOMPARE(members.size(), size_t(2));
        MetricCharts* c = w.charts();
        QCOMPARE(c->lossChart()->validationGraph()->dataCount(), 2);
        QCOMPARE(c->lossChart()->validationGraph()->data()->at(1)->value,
                 run->epochs[1].report.validation.loss);
        for (MetricChart* chart : {c->lossChart(), c->missedChart(), c->accuracyChart()}) {
            QCOMPARE(chart->memberCount(), 2);
            QVERIFY(!chart->legend->hasItemWithPlottable(chart->memberValidationGraph(0)));
        }
        for (size_t m = 0; m < 2; ++m) {
            QCOMPARE(members[m].seed, uint64_t(5 + m));
            QCOMPARE(*members[m].bestValLoss, *cliMembers[m].bestValLoss);
            const auto stored = windowStore.get(members[m].id);
            QCOMPARE(c->lossChart()->memberValidationGraph(int(m))->dataCount(), 2);
            QCOMPARE(c->lossChart()->memberValidationGraph(int(m))->data()->at(1)->value,
                     stored->epochs[1].report.validation.loss);
        }
        PriceChart* price = w.priceChartPane()->chart();
        QVERIFY(price->agreementStrip()->isVisibleTo(w.priceChartPane()));
        QCOMPARE(price->agreementStrip()->agreement().size(), size_t(run->validationSamples));
        QVERIFY(price->signalLabel().contains("ensemble of 2"));
        // "Signals of:" names what the chart shows (it said "the latest epoch"), and the
        // Trading tab trades those signals with their agreement; the epochs stay to pick.
        QComboBox* picker = w.priceChartPane()->signalPicker();
        QCOMPARE(picker->currentText(), QStringLiteral("the kept ensemble of 2 seeds"));
        QCOMPARE(w.tradingPresenter()->what(),
                 QStringLiteral("the kept ensemble of 2 seeds, validation part"));
        picker->setCurrentIndex(1);
        QCOMPARE(picker->currentText(), QStringLiteral("the latest epoch"));
        QVERIFY(price->signalLabel().startsWith("epoch 2"));
        QVERIFY(!price->agreementStrip()->isVisibleTo(w.priceChartPane()));
        picker->setCurrentIndex(0);
        QVERIFY(price->agreementStrip()->isVisibleTo(w.priceChartPane()));
        // The confusion matrix is that kept ensemble's on the validation part (it showed the
        // ensemble curve's last epoch, every member at epoch 2): the figures nnwb-cli predict
        // gives for the run's stored bundle over that part.
        ConfusionTable* confusion = w.confusionTable();
        QCOMPARE(
            confusion->caption(),
            QStringLiteral("Confusion matrix · the kept ensemble of 2 seeds, validation part"));
        const nlohmann::json predicted =
            predictedValidation(cli, run->bundle("best")->path, cli.path("EURUSD_H1.csv"));
        QVERIFY2(predicted.contains("confusion"), predicted.dump().c_str());
        QCOMPARE(shownConfusion(confusion), predicted["confusion"]);
        QVERIFY(!confusion->findChild<QComboBox*>()->isEnabled());  // validation only
    }

    // Issue 44: after an ensemble run of a stack with an attention layer the heatmaps are its
    // best member's (the lowest validation loss), named so; before, the pane said "This stack
    // has no attention layer" (a population sends no Score matrices).
    void anEnsemblesHeatmapsAreItsBestMembers() {
        test::CliFixture cli;
        cli.dir_ = QString::fromStdString(test::tempDir());
        const nlohmann::json layers =
            nlohmann::json::array({{{"type", "multihead_attention"}, {"key_size", 4}, {"heads", 2}},
                                   {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}});
        const nlohmann::json e = test::barExperiment(
            "att", {{"file", cli.writeCut("EURUSD_H1.csv", 700).toStdString()}, {"window", 6}},
            layers, {{"epochs", 2}, {"batchSize", 16}, {"seed", 5}, {"ensemble", 2}});
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(e));
        w.show();
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QSignalSpy kept(w.controller(), &TrainingController::ensembleKept);
        QVERIFY(w.startTraining());
        QVERIFY(waitForEnd(finished, 60000));
        QVERIFY2(finished.first().at(0).value<RunEnd>() == RunEnd::Completed,
                 qPrintable(finished.first().at(1).toString()));
        QCOMPARE(kept.count(), 1);
        const auto k = kept.first().at(0).value<EnsembleKept>();
        const EnsembleBundle bundle = EnsembleBundle::load(k.file);
        const size_t best = bestAndMedianMember(bundle).first;
        const QString who =
            QStringLiteral("member %1 of 2, seed %2").arg(best + 1).arg(bundle.members[best].seed);
        QCOMPARE(QString::fromStdString(k.attentionOf), who);
        QTRY_VERIFY(w.attentionView()->snapshot() != nullptr);
        const AttentionSnapshotPtr snap = w.attentionView()->snapshot();
        QCOMPARE(int(snap->layers.size()), 1);
        QCOMPARE(snap->layers[0].heads, 2);
        QCOMPARE(snap->epoch, bundle.members[best].epoch);
        bool named = false;
        for (QLabel* l : w.attentionView()->findChildren<QLabel*>())
            named = named || l->text().startsWith(who + ", kept epoch");
        QVERIFY(named);
        // Its outputs for the sample are that member's alone (the member as one model).
        std::atomic<bool> cancelled{false};
        const PredictOutcome alone = predictPriceFile(
            bundle.member(best), "cpu", cli.path("EURUSD_H1.csv").toStdString(), cancelled);
        QVERIFY2(alone.ok, qPrintable(alone.error));
        const auto& rows = alone.result->rows;
        const auto row = std::find_if(rows.begin(), rows.end(), [&](const PredictionRow& r) {
            return r.time == snap->sampleTime;
        });
        QVERIFY(row != rows.end());
        for (size_t c = 0; c < 3; ++c)
            QVERIFY(std::fabs(row->outputs[c] - snap->outputs[c]) < 1e-5);
        // Another sample: that member's too.
        w.attentionView()->showSample(3);
        QTRY_COMPARE(w.attentionView()->snapshot()->sample, 3);
        named = false;
        for (QLabel* l : w.attentionView()->findChildren<QLabel*>())
            named = named || l->text().startsWith(who);
        QVERIFY(named);
        // The latest/best epoch picker has nothing to pick (both are the member's kept epoch):
        // off, saying why (before, on and doing nothing).
        QComboBox* weights = w.attentionView()->weightsBox();
        QVERIFY(!weights->isEnabled());
        QVERIFY2(weights->toolTip().contains(who), qPrintable(weights->toolTip()));
        // Back to one model (Ensemble of N seeds 1): the ensemble state ends. The picker is back,
        // Continue is offered, Export Weights is on, the confusion matrix is the epoch's and
        // Predict… uses the network (no ensemble file).
        Experiment single = Experiment::fromJson(e);
        single.training.ensemble = 1;
        w.document()->reset(single);
        finished.clear();
        QVERIFY(w.startTraining());
        QVERIFY(waitForEnd(finished, 60000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);
        QTRY_VERIFY(!w.controller()->isBusy());
        QVERIFY(weights->isEnabled());
        QVERIFY(w.canContinue());
        QVERIFY(w.modelActions()->ensembleFile().isEmpty());
        int exportWeights = 0;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text().contains("Export &Weights") && ++exportWeights) QVERIFY(a->isEnabled());
        QVERIFY(exportWeights > 0);
        QTRY_VERIFY(w.attentionView()->snapshot() != nullptr);
        for (QLabel* l : w.attentionView()->findChildren<QLabel*>())
            QVERIFY2(!l->text().startsWith("member "), qPrintable(l->text()));
        QCOMPARE(w.confusionTable()->caption(), QStringLiteral("Confusion matrix · epoch 2"));
        QVERIFY(w.confusionTable()->findChild<QComboBox*>()->isEnabled());
    }

    // Continue training: two epochs, then two more on the same network and optimizer; the
    // charts go on numbering (epochs 3 and 4 join 1 and 2). Export Weights, restart (fresh
    // charts), then Model > Load Weights puts the exported weights back: Train can continue
    // from them, and a file that does not fit the model is refused with the reason.
    void continueAndLoadWeights() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(tinyOn(2));
        w.show();
        QVERIFY(!w.canContinue());
        QSignalSpy epochs(w.controller(), &TrainingController::epochFinished);
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(waitForEnd(finished, 60000));
        QTRY_VERIFY(!w.controller()->isBusy());
        QVERIFY(w.canContinue());
        finished.clear();
        QVERIFY(w.startTraining(0, StartMode::ContinueCurrent));
        QVERIFY(waitForEnd(finished, 60000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);
        QCOMPARE(epochs.count(), 4);
        QCOMPARE(epochs.at(2).at(0).value<EpochReport>().epoch, 3);
        QCOMPARE(epochs.at(3).at(0).value<EpochReport>().epoch, 4);
        QCOMPARE(w.charts()->lossChart()->trainGraph()->dataCount(), 4);
        QCOMPARE(w.charts()->lossChart()->trainGraph()->data()->at(3)->key, 4.0);
        QTRY_VERIFY(!w.controller()->isBusy());

        const QString path =
            QString::fromStdString(test::tempDir()) + QStringLiteral("/w.safetensors");
        QSignalSpy saved(w.controller(), &TrainingController::weightsSaved);
        w.controller()->saveWeights(path);
        QVERIFY(saved.wait(30000));
        QVERIFY(saved.first().at(0).toBool());

        finished.clear();
        QVERIFY(w.startTraining(0, StartMode::Restart));
        QVERIFY(waitForEnd(finished, 60000));
        QTRY_VERIFY(!w.controller()->isBusy());
        QCOMPARE(w.charts()->lossChart()->trainGraph()->dataCount(), 2);

        QSignalSpy loaded(w.controller(), &TrainingController::weightsLoaded);
        w.loadWeights(path);
        QVERIFY(loaded.wait(30000));
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(loaded.first().at(1).toString()));
        QVERIFY(w.canContinue());
        QCOMPARE(w.charts()->lossChart()->trainGraph()->dataCount(), 0);
        // A file for another model: refused, and the loaded weights stay.
        Experiment other = tinyOn(1);
        other.model["layers"][0]["filters"] = 5;
        const QString otherPath =
            QString::fromStdString(test::tempDir()) + QStringLiteral("/other.safetensors");
        {
            MainWindow o;
            o.setConfirmDiscard(false);
            o.document()->reset(other);
            QSignalSpy end(o.controller(), &TrainingController::runFinished);
            QVERIFY(o.startTraining());
            QVERIFY(waitForEnd(end, 60000));
            QTRY_VERIFY(!o.controller()->isBusy());
            QSignalSpy s2(o.controller(), &TrainingController::weightsSaved);
            o.controller()->saveWeights(otherPath);
            QVERIFY(s2.wait(30000));
        }
        loaded.clear();
        w.loadWeights(otherPath);
        QVERIFY(loaded.wait(30000));
        QVERIFY(!loaded.first().at(0).toBool());
        QVERIFY2(!loaded.first().at(1).toString().isEmpty(), "the reason is given");
        QVERIFY(w.statusBar()->currentMessage().startsWith(QStringLiteral("Load weights")));
        finished.clear();
        epochs.clear();
        QVERIFY(w.startTraining(0, StartMode::ContinueCurrent));
        QVERIFY(waitForEnd(finished, 60000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);
        QCOMPARE(epochs.first().at(0).value<EpochReport>().epoch, 1);  // a fresh network
    }

    // Early stopping from the window: minDelta 1000 makes no epoch after the first an
    // improvement, so patience 1 ends the run after epoch 2 of 6 with epoch 1 the best. Every
    // chart marks epoch 1, the learning-rate chart has a point per epoch, the status line
    // names the stop and the best epoch. The settings are made in the Training pane.
    void earlyStoppingMarksTheBestEpoch() {
        MainWindow w;
        w.setConfirmDiscard(false);
        nlohmann::json j = test::tinyExperimentJson(6);
        j["formatVersion"] = 2;
        w.document()->reset(Experiment::fromJson(j));
        w.show();
        auto* early = w.findChild<QCheckBox*>(QStringLiteral("earlyStopping"));
        auto* patience = w.findChild<QSpinBox*>(QStringLiteral("patience"));
        auto* minDelta = w.findChild<QLineEdit*>(QStringLiteral("minDelta"));
        auto* schedule = w.findChild<QComboBox*>(QStringLiteral("lrSchedule"));
        QVERIFY(early && patience && minDelta && schedule);
        QVERIFY(early->isChecked());  // the default of a new (version 2) experiment
        QVERIFY(!patience->toolTip().isEmpty() && !schedule->toolTip().isEmpty());
        patience->setValue(1);
        minDelta->setText(QStringLiteral("1000"));
        QMetaObject::invokeMethod(minDelta, "editingFinished");
        schedule->setCurrentIndex(schedule->findData(QStringLiteral("step")));
        const TrainingConfig& t = w.document()->experiment().training;
        QCOMPARE(t.earlyStopping.patience, 1);
        QCOMPARE(t.earlyStopping.minDelta, 1000.0);
        QCOMPARE(QString::fromStdString(t.lrSchedule.type), QStringLiteral("step"));

        QSignalSpy epochs(w.controller(), &TrainingController::epochFinished);
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(waitForEnd(finished, 60000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);
        QCOMPARE(epochs.count(), 2);
        MetricCharts* c = w.charts();
        QCOMPARE(c->bestEpoch(), 1);
        for (SeriesChart* chart : std::initializer_list<SeriesChart*>{
                 c->lossChart(), c->missedChart(), c->accuracyChart(), c->learningRateChart()}) {
            QCOMPARE(chart->markerEpoch(), 1.0);
            QCOMPARE(chart->markerLabel(), QStringLiteral("best 1"));
        }
        QCOMPARE(c->learningRateChart()->rateGraph()->dataCount(), 2);
        QCOMPARE(c->learningRateChart()->rateGraph()->data()->at(0)->value, 0.01);
        QTRY_VERIFY2(w.statusBar()->currentMessage().contains(
                         QStringLiteral("stopped early at epoch 2, best epoch 1")),
                     qPrintable(w.statusBar()->currentMessage()));
        // The CSV has the learning rate and the best epoch of each epoch.
        const QString csv = QString::fromStdString(test::tempDir()) + QStringLiteral("/m.csv");
        QString error;
        QVERIFY2(c->exportCsv(csv, &error), qPrintable(error));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList rows = QString::fromUtf8(f.readAll()).trimmed().split('\n');
        QCOMPARE(rows.size(), 3);
        QVERIFY(rows[0].endsWith(QStringLiteral("learning_rate,best_epoch")));
        QVERIFY2(rows[2].endsWith(QStringLiteral(",0.01,1")), qPrintable(rows[2]));
        w.grab().save(QString::fromStdString(test::tempDir()) + "/early-stopping.png");
    }

    // A real attention layer: at each epoch end the worker reads the Score matrices out of
    // the device buffers and the heatmap shows units x units values whose rows sum to 1.
    void heatmapFromRealAttentionRun() {
        for (const std::string& device : test::testDeviceIds()) {
            nlohmann::json j = test::tinyExperimentJson(2);
            j["model"]["layers"] = nlohmann::json::array(
                {{{"type", "conv"},
                  {"window", 6},
                  {"step", 6},
                  {"filters", 8},
                  {"activation", "tanh"}},
                 {{"type", "multihead_attention"}, {"key_size", 4}, {"heads", 3}},
                 {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}});
            Experiment e = Experiment::fromJson(j);
            e.training.device = device;
            MainWindow w;
            w.setConfirmDiscard(false);
            w.document()->reset(e);
            w.show();
            QSignalSpy snapshots(w.controller(), &TrainingController::attentionReady);
            QSignalSpy finished(w.controller(), &TrainingController::runFinished);
            QVERIFY(w.startTraining());
            QVERIFY(waitForEnd(finished, 60000));
            QVERIFY2(finished.first().at(0).value<RunEnd>() == RunEnd::Completed,
                     qPrintable(finished.first().at(1).toString()));
            QTRY_VERIFY(snapshots.count() >= 2);  // one per epoch end
            const auto snap = snapshots.last().at(0).value<AttentionSnapshotPtr>();
            QCOMPARE(snap->epoch, 2);
            QCOMPARE(int(snap->layers.size()), 1);
            QCOMPARE(snap->layers[0].heads, 3);
            QTRY_COMPARE(w.attentionView()->snapshot(), snap);
            AttentionHeatmap* map = w.attentionView()->heatmap();
            const int units = 4;  // synthetic samples of 4 elements, conv keeps them
            QCOMPARE(map->units(), units);
            const int nx = map->colorMap()->data()->keySize();
            const int ny = map->colorMap()->data()->valueSize();
            QCOMPARE(nx, units);
            QCOMPARE(ny, units);
            for (int q = 0; q < units; ++q) {
                double sum = 0;
                for (int k = 0; k < units; ++k) {
                    const double v = map->cellValue(q, k);
                    QVERIFY(v >= 0.0 && v <= 1.0);
                    sum += v;
                }
                QVERIFY2(std::fabs(sum - 1.0) < 1e-5,
                         qPrintable(
                             QString("%1: row %2 sums to %3").arg(device.c_str()).arg(q).arg(sum)));
            }
        }
    }

    void trainsOnOpenCl() {
        const auto ids = test::openClDeviceIds();
        if (ids.empty()) QSKIP("no OpenCL device");
        trainOn(ids.front());
    }

    void editingDuringTrainingLeavesTheRunAlone() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(tinyOn(2));
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        // break the document's stack while the worker trains its own copy
        w.document()->undoStack()->clear();
        QVERIFY(w.layerEditor() != nullptr);
        nlohmann::json broken = w.document()->layers();
        broken[1]["neurons"] = 7;
        w.document()->setLayers(broken, 1);
        QVERIFY(waitForEnd(finished, 60000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);
        QCOMPARE(w.charts()->lossChart()->pointCount(), 2);
        QVERIFY(!w.trainAction()->isEnabled());  // the edited stack is invalid
    }

    void pauseAndStopActWithinOneBatch() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(slow());
        QSignalSpy progress(w.controller(), &TrainingController::progress);
        QSignalSpy epochs(w.controller(), &TrainingController::epochFinished);
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(progress.wait(30000));
        QVERIFY(progress.count() > 0 || progress.wait(10000));

        w.pauseAction()->trigger();  // F6
        QCOMPARE(w.controller()->state(), TrainingController::State::Paused);
        QCOMPARE(w.pauseAction()->text(), QStringLiteral("&Resume"));
        QTest::qWait(400);  // reports already under way arrive
        const int paused = progress.count();
        const size_t doneAtPause = progress.last().at(0).value<TrainingProgress>().done;
        QTest::qWait(800);
        QCOMPARE(progress.count(), paused);  // nothing moves while paused

        w.pauseAction()->trigger();  // resume
        QCOMPARE(w.controller()->state(), TrainingController::State::Running);
        QVERIFY(progress.wait(5000));
        QVERIFY(progress.last().at(0).value<TrainingProgress>().done > doneAtPause);

        QElapsedTimer timer;
        timer.start();
        w.stopAction()->trigger();  // Shift+F5
        QVERIFY(waitForEnd(finished, 5000));
        QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Stopped);
        QCOMPARE(epochs.count(), 0);
        QCOMPARE(w.controller()->state(), TrainingController::State::Idle);
        QVERIFY(w.trainAction()->isEnabled());

        // stop while paused ends the run too
        progress.clear();
        finished.clear();
        QVERIFY(w.startTraining());
        QVERIFY(progress.wait(30000));
        w.controller()->pause();
        QTest::qWait(100);
        w.controller()->stop();
        QVERIFY(waitForEnd(finished, 5000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Stopped);
    }

    void workerErrorIsShownInTheWindow() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(tinyOn(2, "opencl:9:9"));
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(waitForEnd(finished, 30000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Failed);
        QVERIFY2(w.lastError().contains(QStringLiteral("opencl:9:9")), qPrintable(w.lastError()));
        auto* banner = w.findChild<QLabel*>(QStringLiteral("errorBanner"));
        QVERIFY(banner && !banner->isHidden());
        QVERIFY(banner->text().contains(QStringLiteral("opencl:9:9")));
        QVERIFY(w.trainAction()->isEnabled());  // the user may pick another device
    }

    // A device fault in the middle of epoch 2 (NNWB_CL_FAIL_AFTER): the window shows the
    // OpenCL error and the kept epoch, the epoch-1 point stays on the charts, the weights can
    // be exported, and the next run trains normally.
    void deviceFaultDuringTraining() {
        const auto ids = test::openClDeviceIds();
        if (ids.empty()) QSKIP("no OpenCL device");
        const std::string id = ids.front();
        const test::FaultProbe probe = test::probeMidEpochFault(tinyOn(3, id), id);
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(tinyOn(3, id));
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QSignalSpy saved(w.controller(), &TrainingController::weightsSaved);
        qputenv("NNWB_CL_FAIL_AFTER", QByteArray::number(qulonglong(probe.failAt)));
        QVERIFY(w.startTraining());
        QVERIFY(waitForEnd(finished, 120000));
        qunsetenv("NNWB_CL_FAIL_AFTER");
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Failed);
        QVERIFY2(w.lastError().contains(QStringLiteral("CL_OUT_OF_RESOURCES")),
                 qPrintable(w.lastError()));
        QVERIFY2(w.lastError().contains(QStringLiteral("epoch 1, the last good one")),
                 qPrintable(w.lastError()));
        QCOMPARE(w.charts()->lossChart()->trainGraph()->dataCount(), 1);
        QVERIFY(w.trainAction()->isEnabled());
        const QString path = QString::fromStdString(test::tempDir()) + "/kept.safetensors";
        w.controller()->saveWeights(path);
        QVERIFY(saved.wait(30000));
        QVERIFY2(saved.first().at(0).toBool(), qPrintable(saved.first().at(1).toString()));
        QVERIFY(loadSafetensors(path.toStdString()).at("layers.1.weight").values ==
                probe.epoch1Weights.at("layers.1.weight").values);
        finished.clear();
        QVERIFY(w.startTraining());
        QVERIFY(waitForEnd(finished, 120000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);
    }

    void closingDuringTrainingStopsTheWorker() {
        auto* w = new MainWindow;
        w->setConfirmDiscard(false);
        w->document()->reset(slow());
        w->show();
        QSignalSpy progress(w->controller(), &TrainingController::progress);
        QVERIFY(w->startTraining());
        QVERIFY(progress.wait(30000));
        QElapsedTimer timer;
        timer.start();
        QVERIFY(w->close());
        QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(w->controller()->state(), TrainingController::State::Idle);
        delete w;  // the destructor after close() must not hang or crash either

        // destroying a window mid-run without close() is clean as well
        auto* w2 = new MainWindow;
        w2->setConfirmDiscard(false);
        w2->document()->reset(slow());
        QSignalSpy progress2(w2->controller(), &TrainingController::progress);
        QVERIFY(w2->startTraining());
        QVERIFY(progress2.wait(30000));
        timer.restart();
        delete w2;
        QVERIFY(timer.elapsed() < 3000);
    }
};

QTEST_MAIN(TestTrainingWindow)
#include "tst_training_window.moc"
