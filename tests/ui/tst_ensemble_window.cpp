// A seed ensemble in the window (docs/ensembles.md, "In the window"): the Predict window runs
// an ensemble bundle (made by nnwb-cli train --ensemble) and the price chart shows its
// agreement in the strip under the candles, hidden for one model; the Runs tab's Open Model on
// an ensemble's run opens the Predict window with its bundle instead of refusing it, its
// members' curves thin under its own in the Metrics charts, and the kept ensemble's confusion
// matrix says when the price file has changed since training; the ensemble is then the window's
// model: Export ONNX and Export for MetaTrader 5 write exactly the
// bytes `nnwb-cli export --model` writes for its bundle (the expert under the open experiment's
// trading settings, the CLI's with --experiment), Export Model its bundle. The ensemble the
// Training pane trains is the window's model as that opened run's is (the same exported bytes;
// no Continue). A walk-forward with training.ensemble 2 trains an ensemble per fold, its
// stitched figures, its table against its members and its fold curves those of `nnwb-cli
// walkforward --population 2 --vary seed=S..S+1 --ensemble`, and Stop ends it.
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/core/ExperimentDocument.h"
#include "app/core/TradingPresenter.h"
#include "app/core/TrainingController.h"
#include "app/core/WalkForwardTypes.h"
#include "app/runs/RunStore.h"
#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"
#include "common/TestWindow.h"
#include "model/Experiment.h"
#include "model/FigureText.h"
#include "model/data/DataConfig.h"
#include "model/ensemble/EnsembleBundle.h"
#include "ui/AgreementStrip.h"
#include "ui/ConfusionTable.h"
#include "ui/EnsembleMembersTable.h"
#include "ui/FileDialogs.h"
#include "ui/MainWindow.h"
#include "ui/MetricChart.h"
#include "ui/MetricCharts.h"
#include "ui/ModelActions.h"
#include "ui/PredictDialog.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"
#include "ui/RunsView.h"
#include "ui/WalkForwardView.h"

using namespace nnwb;
using nlohmann::json;

class TestEnsembleWindow : public QObject, test::CliFixture {
    Q_OBJECT
    QString data_, ensemble_, db_;

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(test::tempDir());
        data_ = writeCut("EURUSD_H1.csv", 700);
        const json e = test::barExperiment("ens", {{"file", data_.toStdString()}, {"window", 6}},
                                           test::denseLayers(16),
                                           {{"epochs", 2}, {"batchSize", 16}, {"seed", 5}});
        ensemble_ = dir_ + "/ens.safetensors";
        db_ = dir_ + "/runs.sqlite";
        const auto r =
            run({"train", "--experiment", write("e.json", e.dump()), "--population", "3", "--vary",
                 "seed=1..3", "--ensemble", "--save-model", ensemble_, "--runs-db", db_});
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
    }

    void predictShowsTheAgreementUnderTheCandles() {
        const auto e =
            std::make_shared<const EnsembleBundle>(EnsembleBundle::load(ensemble_.toStdString()));
        PredictDialog dialog(std::make_shared<const ModelBundle>(e->common), "cpu");
        dialog.setEnsemble(e);
        dialog.show();
        QSignalSpy done(&dialog, &PredictDialog::finished);
        dialog.predictFile(data_);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        std::atomic<bool> cancelled{false};
        const PredictOutcome o = predictPriceFile(e->common, "cpu", data_.toStdString(), cancelled,
                                                  {}, TradingSettings(), e.get());
        QVERIFY2(o.ok, qPrintable(o.error));
        const PredictionResult& r = *o.result;
        QCOMPARE(r.members, size_t(3));
        AgreementStrip* strip = dialog.chart()->agreementStrip();
        QVERIFY(strip->isVisibleTo(&dialog));
        QCOMPARE(strip->agreement().size(), r.rows.size());
        QCOMPARE(strip->firstBar(), r.rows.front().bar);
        bool partial = false;
        for (size_t k = 0; k < r.rows.size(); ++k) {
            QCOMPARE(strip->agreement()[k], r.rows[k].agreement);
            partial = partial || r.rows[k].agreement < 1.0f;
        }
        QVERIFY(partial);  // three seeds disagree somewhere: the strip is not all full
        QVERIFY(strip->belowShare(1.0f) > 0.0);
        QVERIFY(dialog.chart()->signalLabel().contains("ensemble of 3"));
        // NNWB_DOC_SHOTS=DIR: the picture docs/ensembles.md shows (the last 150 bars).
        if (!qEnvironmentVariableIsEmpty("NNWB_DOC_SHOTS")) {
            dialog.resize(1200, 800);
            dialog.chart()->showRange(double(r.rows.back().bar) - 150, double(r.rows.back().bar));
            dialog.chart()->replotNow();
            strip->replot();
            QTest::qWait(200);
            dialog.grab().save(qEnvironmentVariable("NNWB_DOC_SHOTS") + "/ensemble-agreement.png");
        }

        // One model (member 1 alone): no strip.
        PredictDialog single(std::make_shared<const ModelBundle>(e->member(0)), "cpu");
        single.show();
        QSignalSpy again(&single, &PredictDialog::finished);
        single.predictFile(data_);
        QVERIFY(again.wait(60000));
        QVERIFY(again.first().at(0).toBool());
        QVERIFY(!single.chart()->agreementStrip()->isVisibleTo(&single));
    }

    void openModelOnAnEnsembleRunPredictsWithIt() {
        MainWindow w;
        showRunsOf(w, db_);
        RunsView* view = w.runsView();
        int64_t id = 0;
        {
            RunStore store(db_.toStdString());
            id = store.list().front().id;
            QCOMPARE(store.list().front().ensembleMembers, 3);
        }
        view->selectIds({id});
        // Figures and note names its members' seeds (it said "Seed: 1", its first member's).
        auto* details = view->findChild<QLabel*>("runsDetails");
        QVERIFY(details);
        QTRY_VERIFY(details->text().contains(QStringLiteral("#%1 ").arg(id)));
        QVERIFY2(details->text().contains(QStringLiteral("Seeds: 1–3 (ensemble of 3)")),
                 qPrintable(details->text()));
        QVERIFY(!details->text().contains(QStringLiteral("Seed: ")));
        auto* open = view->findChild<QPushButton*>("runsOpenModel");
        QVERIFY(open);
        QTRY_VERIFY(open->isEnabled());
        // Open Model asks for a price file: the bundled cut.
        setFileDialogAnswer([this](const FileDialogQuestion&) { return data_; });
        open->click();
        QTRY_VERIFY_WITH_TIMEOUT(w.modelActions()->predictDialog() != nullptr, 30000);
        PredictDialog* d = w.modelActions()->predictDialog();
        QTRY_VERIFY_WITH_TIMEOUT(d->chart()->agreementStrip()->isVisibleTo(d), 60000);
        QVERIFY(d->chart()->signalLabel().contains("ensemble of 3"));
        QVERIFY(!d->chart()->agreementStrip()->agreement().empty());
        setFileDialogAnswer({});
        // The Metrics charts show the ensemble's curves with its members' as thin lines, each
        // member's the epochs its run stored, as after training it (before, no member lines).
        {
            const std::vector<StoredRun> members = RunStore(db_.toStdString()).members(id);
            QCOMPARE(members.size(), size_t(3));
            MetricChart* loss = w.charts()->lossChart();
            QCOMPARE(loss->memberCount(), 3);
            for (int m = 0; m < 3; ++m) {
                const std::vector<StoredEpoch>& epochs = members[size_t(m)].epochs;
                QCPGraph* g = loss->memberValidationGraph(m);
                QCOMPARE(g->dataCount(), int(epochs.size()));
                for (size_t k = 0; k < epochs.size(); ++k)
                    QCOMPARE(g->data()->at(int(k))->value, epochs[k].report.validation.loss);
            }
        }
        // The confusion matrix is the kept ensemble's on the validation part, as after the
        // Training pane's ensemble: the counts nnwb-cli predict --model gives for the run's
        // bundle over that part (it showed "epoch 2": the ensemble curve's last epoch).
        ConfusionTable* confusion = w.confusionTable();
        QTRY_COMPARE_WITH_TIMEOUT(
            confusion->caption(),
            QStringLiteral("Confusion matrix · the kept ensemble of 3 seeds, validation part"),
            30000);
        const auto meta = EnsembleBundle::load(ensembleFileOf(id)).common.metadata();
        const json t = json::parse(meta.at("training"));
        const auto p =
            run({"predict", "--model", QString::fromStdString(ensembleFileOf(id)), "--data", data_,
                 "--from", QString::fromStdString(t["validationFirst"].get<std::string>()), "--to",
                 QString::fromStdString(t["validationLast"].get<std::string>()), "--json"});
        QVERIFY2(p.code == 0, qPrintable(p.err));
        const json predicted = json::parse(p.out.toStdString())["metrics"]["confusion"];
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c)
                QCOMPARE(confusion->table()
                             ->item(a, c)
                             ->text()
                             .section('\n', 0, 0)
                             .remove(',')
                             .toLongLong(),
                         predicted[size_t(a)][size_t(c)].get<long long>());
        exportsAreTheClis(w, id);
    }

    // Open Model on an ensemble run whose price file has changed since training: the kept
    // ensemble's confusion matrix is measured on the file as it is now, and its caption says
    // so (it said nothing; unchanged, the caption is openModelOnAnEnsembleRunPredictsWithIt's).
    void openModelSaysThePriceFileChanged() {
        const QString data = writeCut("changed.csv", 700);
        const json e = test::barExperiment("changed", {{"file", data.toStdString()}, {"window", 6}},
                                           test::denseLayers(8),
                                           {{"epochs", 1}, {"batchSize", 16}, {"seed", 5}});
        const QString db = dir_ + "/changed.sqlite";
        const auto r = run({"train", "--experiment", write("changed.json", e.dump()),
                            "--population", "2", "--vary", "seed=1..2", "--ensemble",
                            "--save-model", dir_ + "/changed.safetensors", "--runs-db", db});
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        {  // the first bar's spread 15 becomes 16: the same bars to predict, another file
            QFile f(data);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QByteArray text = f.readAll();
            f.close();
            const qsizetype at = text.indexOf("\t0\t0\t15\n");
            QVERIFY(at > 0);
            text.replace(at, 8, "\t0\t0\t16\n");
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            QCOMPARE(f.write(text), text.size());
        }
        MainWindow w;
        showRunsOf(w, db);
        w.runsView()->selectIds({RunStore(db.toStdString()).list().front().id});
        auto* open = w.runsView()->findChild<QPushButton*>("runsOpenModel");
        QTRY_VERIFY(open && open->isEnabled());
        setFileDialogAnswer([data](const FileDialogQuestion&) { return data; });
        open->click();
        QTRY_VERIFY_WITH_TIMEOUT(w.modelActions()->predictDialog() != nullptr, 30000);
        setFileDialogAnswer({});
        QTRY_COMPARE_WITH_TIMEOUT(
            w.confusionTable()->caption(),
            QStringLiteral("Confusion matrix · the kept ensemble of 2 seeds, validation part of "
                           "the price file as it is now: it has changed since training"),
            30000);
    }

    // Issue 44: the Runs tab's details of an ensemble run compare it with its best and median
    // member run side by side, each cell the figure `nnwb-cli runs show ID --json` gives for
    // that run, the best member the one of the lowest validation loss and the median the middle
    // one of the 3. Before, only the ensemble's own figures.
    void runsTabComparesTheEnsembleWithItsMembers() {
        MainWindow w;
        showRunsOf(w, db_);
        RunsView* view = w.runsView();
        const int64_t id = RunStore(db_.toStdString()).list().front().id;
        const auto r = run({"runs", "show", QString::number(id), "--json", "--runs-db", db_});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json shown = json::parse(r.out.toStdString());
        QCOMPARE(shown["members"].size(), size_t(3));
        view->selectIds({id});
        EnsembleMembersTable* table = view->ensembleMembers();
        QTRY_VERIFY(!table->isHidden());
        QCOMPARE(table->rowCount(), 3);
        const double eps = 1e-12;
        for (int row = 0; row < 3; ++row) {
            const QString label = table->verticalHeaderItem(row)->text();
            const int64_t rowId = label.section(' ', 0, 0).mid(1).toLongLong();
            const json* j = rowId == id ? &shown : nullptr;
            int lower = 0;  // members of a lower validation loss than this row's run
            for (const json& m : shown["members"]) {
                if (m["id"].get<int64_t>() == rowId) j = &m;
            }
            QVERIFY2(j, qPrintable(label));
            for (const json& m : shown["members"])
                lower += m["bestValidationLoss"].get<double>() <
                         (*j)["bestValidationLoss"].get<double>();
            QCOMPARE(rowId == id, row == 0);
            if (row > 0) QVERIFY2(lower == row - 1, qPrintable(label));  // best, then median
            const auto at = [](const json& o, const char* key) {
                return o.is_object() && o.contains(key) ? o[key] : json();
            };
            const json t = at(at(*j, "trading"), "strategy");
            const json want[EnsembleMembersTable::kColumnCount] = {at(*j, "bestValidationLoss"),
                                                                   at(*j, "bestValidationAccuracy"),
                                                                   at(*j, "bestValidationMissed"),
                                                                   at(t, "trades"),
                                                                   at(t, "netPoints"),
                                                                   at(t, "winRate")};
            QVERIFY(want[0].is_number() && want[3].is_number());  // figures, not nulls
            for (int c = 0; c < EnsembleMembersTable::kColumnCount; ++c) {
                const QVariant v = table->item(row, c)->data(Qt::UserRole);
                if (want[c].is_null()) {
                    QVERIFY(!v.isValid());
                    QCOMPARE(table->item(row, c)->text(), QString("n/a"));
                } else {
                    QVERIFY2(std::fabs(v.toDouble() - want[c].get<double>()) <= eps,
                             qPrintable(QStringLiteral("%1 column %2").arg(label).arg(c)));
                    if (c == 4)  // net points grouped, as in the Runs table ("-2,482.0")
                        QCOMPARE(table->item(row, c)->text(),
                                 QString::fromStdString(groupedFixed(want[c].get<double>(), 1)));
                }
            }
        }
    }

    // Issue 44: the ensemble the Training pane trains (training.ensemble 2) is the window's
    // model, as when its run is opened from the Runs tab: Predict runs it (agreement under the
    // candles), ONNX, MetaTrader 5 and Export Model write the bytes Open Model on its run then
    // writes, Export Weights stays off, and Train offers no Continue (a population cannot be
    // continued). Before, Predict and the exports used member 1's network, and Continue was
    // offered and then failed ("a population cannot be continued").
    void trainedEnsembleIsTheWindowsModel() {
        const json e = test::barExperiment(
            "trained", {{"file", data_.toStdString()}, {"window", 6}}, test::denseLayers(16),
            {{"epochs", 2}, {"batchSize", 16}, {"seed", 5}, {"ensemble", 2}});
        const QString db = dir_ + "/trained.sqlite";
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(db, true);
        w.document()->reset(Experiment::fromJson(e));
        w.show();
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.first().at(0).value<RunEnd>() == RunEnd::Completed,
                 qPrintable(finished.first().at(1).toString()));
        QVERIFY(!w.modelActions()->ensembleFile().isEmpty());
        QCOMPARE(EnsembleBundle::load(w.modelActions()->ensembleFile().toStdString()).size(),
                 size_t(2));
        int weights = 0;  // Export Weights… (an ensemble is no one network's weights)
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text().contains("Export &Weights") && ++weights) QVERIFY(!a->isEnabled());
        QVERIFY(weights > 0);
        QString question;
        QVERIFY(continueIsRefused(w, &question));
        QVERIFY2(question.contains("Restart trains a new ensemble of 2 seeds"),
                 qPrintable(question));
        {  // Ensemble of N seeds set to 1: Restart trains one model (it said "a new ensemble")
            auto* seeds = w.findChild<QSpinBox*>(QStringLiteral("ensemble"));
            QVERIFY(seeds);
            seeds->setValue(1);
            QCOMPARE(w.document()->experiment().training.ensemble, 1);
            QVERIFY(continueIsRefused(w, &question));
            QVERIFY2(question.contains("Restart trains one model"), qPrintable(question));
            seeds->setValue(2);
        }
        QVERIFY(!w.startTraining(0, StartMode::ContinueCurrent));  // nor without the question
        QVERIFY(!w.controller()->isBusy());
        exportAll(w, dir_ + "/trained");
        if (QTest::currentTestFailed()) return;
        // Predict…: the ensemble's combined signals and agreement.
        w.modelActions()->predictFile(data_);
        QTRY_VERIFY_WITH_TIMEOUT(w.modelActions()->predictDialog() != nullptr, 30000);
        PredictDialog* d = w.modelActions()->predictDialog();
        QTRY_VERIFY_WITH_TIMEOUT(d->chart()->agreementStrip()->isVisibleTo(d), 60000);
        QVERIFY(d->chart()->signalLabel().contains("ensemble of 2"));
        // The Trading tab trades the prediction, as after a single model's Predict….
        QTRY_VERIFY(w.tradingPresenter()->what().startsWith("the prediction on"));
        d->close();
        // The same run opened from the Runs tab, exported again: the same bytes.
        int64_t id = 0;
        QString stored;
        {
            RunStore store(db.toStdString());
            id = store.list().front().id;
            stored = QString::fromStdString(store.get(id)->bundle("best")->path);
        }
        w.showRuns();
        QTRY_COMPARE(w.runsView()->shownCount(), 1);
        w.runsView()->selectIds({id});
        auto* open = w.runsView()->findChild<QPushButton*>("runsOpenModel");
        QTRY_VERIFY(open && open->isEnabled());
        setFileDialogAnswer([this](const FileDialogQuestion&) { return data_; });
        open->click();
        QTRY_COMPARE(w.modelActions()->ensembleFile(), stored);
        setFileDialogAnswer({});
        exportAll(w, dir_ + "/opened");
        if (QTest::currentTestFailed()) return;
        for (const char* f :
             {"/model.onnx", "/mt5/model.onnx", "/mt5/nnwb_expert.mq5", "/model.safetensors"}) {
            QVERIFY2(!bytes(dir_ + "/trained" + f).isEmpty(), f);
            QVERIFY2(bytes(dir_ + "/trained" + f) == bytes(dir_ + "/opened" + f), f);
        }
        QVERIFY(bytes(dir_ + "/trained/model.safetensors") == bytes(stored));
    }

    void walkForwardTrainsAnEnsemblePerFold() {
        json e = test::barExperiment("wfens", {{"file", data_.toStdString()}, {"window", 6}},
                                     test::denseLayers(8),
                                     {{"epochs", 2}, {"batchSize", 16}, {"seed", 5}});
        e["validation"] = {{"mode", "walkforward"}, {"scheme", "anchored"}, {"folds", 2}};
        const QString file = write("wf.json", e.dump());
        json ensemble = e;
        ensemble["training"]["ensemble"] = 2;
        test::TestWindow x;
        QSignalSpy done(x.w.controller(), &TrainingController::walkForwardFinished);
        QVERIFY(x.train(Experiment::fromJson(ensemble)));
        QVERIFY2(x.w.lastError().isEmpty(), qPrintable(x.w.lastError()));
        QCOMPARE(done.count(), 1);
        const auto o = done.first().at(0).value<WalkForwardOutcome>();
        QCOMPARE(o.folds.size(), size_t(2));
        QVERIFY(o.outOfSample && !o.outOfSample->agreement.empty());  // the ensemble's
        QCOMPARE(o.outOfSample->agreement.size(), o.outOfSample->size());
        // Under the candles (the two test windows follow one another).
        AgreementStrip* strip = x.w.priceChartPane()->chart()->agreementStrip();
        QCOMPARE(strip->agreement(), o.outOfSample->agreement);
        QCOMPARE(strip->firstBar(), o.outOfSample->bar.front());
        // The flags, and the experiment file with the setting (as the window has it).
        const QString withSetting = write("wf-ensemble.json", ensemble.dump());
        for (const QStringList& how :
             {QStringList{file, "--population", "2", "--vary", "seed=5..6", "--ensemble"},
              QStringList{withSetting}}) {
            const auto r =
                run(QStringList{"walkforward", "--json", "--no-record", "--experiment"} + how);
            QVERIFY2(r.code == 0, qPrintable(r.err));
            json stitched;
            for (const QString& line : r.out.split('\n', Qt::SkipEmptyParts)) {
                const json j = json::parse(line.toStdString(), nullptr, false);
                if (j.is_object() && j.contains("stitched"))
                    stitched = j["stitched"]["outOfSample"];
            }
            QVERIFY2(stitched.is_object(), qPrintable(r.out));
            QCOMPARE(o.stitched.samples, stitched["samples"].get<size_t>());
            QCOMPARE(o.stitched.signalCount, stitched["signals"].get<size_t>());
            const double theirs = stitched["loss"].get<double>();
            QVERIFY2(std::fabs(o.stitched.loss - theirs) <= 1e-6,
                     qPrintable(QString("%1 against %2").arg(o.stitched.loss).arg(theirs)));
        }
    }

    // The window's ensemble walk-forward shows what nnwb-cli walkforward prints for it: the
    // table of the ensemble against its members (single seed, median and best member, the
    // agreement thresholds) cell for cell, and in the Metrics charts the fold's curves as for
    // a plain walk-forward: the ensemble's epochs (those the CLI records for the fold's
    // ensemble run) with its 2 members' as thin lines. Before, no table and empty charts.
    void walkForwardShowsTheClisMemberComparison() {
        json e = test::barExperiment("wfcmp", {{"file", data_.toStdString()}, {"window", 6}},
                                     test::denseLayers(8),
                                     {{"epochs", 2}, {"batchSize", 16}, {"seed", 3}});
        e["validation"] = {{"mode", "walkforward"}, {"scheme", "anchored"}, {"folds", 2}};
        e["training"]["ensemble"] = 2;
        test::TestWindow x;
        QVERIFY(x.train(Experiment::fromJson(e)));
        QVERIFY2(x.w.lastError().isEmpty(), qPrintable(x.w.lastError()));
        const QString db = dir_ + "/wfcmp.sqlite";
        const auto r =
            run({"walkforward", "--experiment", write("wfcmp.json", e.dump()), "--runs-db", db});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // The CLI's table: the lines after its title, spaces squeezed.
        const QStringList lines = r.out.split('\n');
        const qsizetype title = lines.indexOf(
            "the ensemble against its members, out of sample "
            "(stitched folds):");
        QVERIFY2(title >= 0, qPrintable(r.out));
        QTableWidget* table = x.w.walkForwardView()->ensembleTable();
        QVERIFY(!table->isHidden());
        QCOMPARE(table->rowCount(), 10);  // ensemble, 4 thresholds, 3 members' rows, 2 baselines
        QCOMPARE(table->horizontalHeaderItem(1)->text(), QString("loss"));
        for (int row = 0; row < table->rowCount(); ++row) {
            QStringList cells;
            for (int c = 0; c < table->columnCount(); ++c)
                cells << table->item(row, c)->text().simplified();
            QCOMPARE(cells.join(' '), lines.value(title + 2 + row).simplified());
        }
        // The charts: the last fold's ensemble epochs, as the CLI recorded them.
        RunStore store(db.toStdString());
        std::optional<StoredRun> fold;
        for (const StoredRun& s : store.list())
            if (s.name == "wfcmp fold 2/2 ensemble of 2") fold = store.get(s.id);
        QVERIFY(fold && !fold->epochs.empty());
        MetricChart* loss = x.w.charts()->lossChart();
        QCOMPARE(loss->validationGraph()->dataCount(), int(fold->epochs.size()));
        for (size_t k = 0; k < fold->epochs.size(); ++k)
            QVERIFY(std::fabs(loss->validationGraph()->data()->at(int(k))->value -
                              fold->epochs[k].report.validation.loss) <= 1e-9);
        QCOMPARE(loss->memberCount(), 2);
    }

    // Stop reaches the fold's ensemble as it reaches a single fold's run.
    void stopEndsAnEnsembleWalkForward() {
        json e = test::barExperiment("wfstop", {{"file", data_.toStdString()}, {"window", 6}},
                                     test::denseLayers(8),
                                     {{"epochs", 5000}, {"batchSize", 16}, {"ensemble", 2}});
        e["validation"] = {{"mode", "walkforward"}, {"scheme", "rolling"}, {"folds", 4}};
        e["training"]["earlyStopping"] = {{"enabled", false}};  // each fold its 5000 epochs
        test::TestWindow x;
        x.w.document()->reset(Experiment::fromJson(e));
        int started = 0;
        x.stopAfterTheFirstFold(started);
        if (QTest::currentTestFailed()) return;
        QVERIFY(started < 4);
    }

private:
    // `w` shown on the Runs tab of store `db`, its one run listed.
    static void showRunsOf(MainWindow& w, const QString& db) {
        w.setConfirmDiscard(false);
        w.setRunsDatabase(db, true);
        w.show();
        w.showRuns();
        QTRY_COMPARE(w.runsView()->shownCount(), 1);
    }

    static QByteArray bytes(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    // Train with an ensemble as the window's model: the question's Continue buttons are off and
    // say why (Cancel answers it). `text`: the question's text.
    static bool continueIsRefused(MainWindow& w, QString* text = nullptr) {
        bool refused = false;
        QTimer::singleShot(100, &w, [&refused, text] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            if (text) *text = box->text();
            refused = box->text().contains("cannot be continued");
            for (QAbstractButton* b : box->buttons())
                if (b->text().startsWith("Continue"))
                    refused = refused && !b->isEnabled() && b->toolTip().contains("ensemble");
            box->button(QMessageBox::Cancel)->click();
        });
        w.trainRequested();
        return refused;
    }

    // The window's model's ONNX, MetaTrader 5 and Export Model files into `dir`.
    // The model file of stored run `id` (its "best" bundle).
    std::string ensembleFileOf(int64_t id) {
        RunStore store(db_.toStdString());
        const auto r = store.get(id);
        return r && r->bundle("best") ? r->bundle("best")->path : std::string();
    }

    void exportAll(MainWindow& w, const QString& dir) {
        QVERIFY(QDir().mkpath(dir));
        auto* onnx = w.findChild<QAction*>("exportOnnxAction");
        auto* mql5 = w.findChild<QAction*>("exportMql5Action");
        QVERIFY(onnx && mql5 && onnx->isEnabled() && mql5->isEnabled());
        QSignalSpy onnxDone(w.modelActions(), &ModelActions::onnxExported);
        QSignalSpy mql5Done(w.modelActions(), &ModelActions::mql5Exported);
        setFileDialogAnswer([&](const FileDialogQuestion&) { return dir + "/model.onnx"; });
        onnx->trigger();
        QVERIFY(onnxDone.wait(30000));
        QVERIFY2(onnxDone.first().at(0).toBool(), qPrintable(onnxDone.first().at(1).toString()));
        setFileDialogAnswer([&](const FileDialogQuestion&) { return dir + "/mt5"; });
        mql5->trigger();
        QVERIFY(mql5Done.wait(30000));
        QVERIFY2(mql5Done.first().at(0).toBool(), qPrintable(mql5Done.first().at(1).toString()));
        setFileDialogAnswer({});
        QSignalSpy saved(w.modelActions(), &ModelActions::modelExported);
        w.modelActions()->exportModel(dir + "/model.safetensors");
        QCOMPARE(saved.count(), 1);
        QVERIFY(saved.first().at(0).toBool());
    }

    // The window's exports of the opened ensemble against the CLI's of the run's bundle (before
    // they exported the training worker's network, or were disabled without one).
    void exportsAreTheClis(MainWindow& w, int64_t id) {
        QString bundle;
        {
            RunStore store(db_.toStdString());
            bundle = QString::fromStdString(store.get(id)->bundle("best")->path);
        }
        QCOMPARE(w.modelActions()->ensembleFile(), bundle);
        auto* onnx = w.findChild<QAction*>("exportOnnxAction");
        auto* mql5 = w.findChild<QAction*>("exportMql5Action");
        QVERIFY(onnx && mql5 && onnx->isEnabled() && mql5->isEnabled());
        QSignalSpy onnxDone(w.modelActions(), &ModelActions::onnxExported);
        QSignalSpy mql5Done(w.modelActions(), &ModelActions::mql5Exported);
        const QString mine = dir_ + "/window.onnx", theirs = dir_ + "/cli.onnx";
        setFileDialogAnswer([&](const FileDialogQuestion&) { return mine; });
        onnx->trigger();
        QVERIFY(onnxDone.wait(30000));
        QVERIFY2(onnxDone.first().at(0).toBool(), qPrintable(onnxDone.first().at(1).toString()));
        // The expert trades the open experiment's trading settings, the CLI's those of the
        // experiment given with --experiment: the same file for the same settings.
        QVERIFY(w.document()->setTrading({{"threshold", 0.625}, {"minAgreement", 0.75}}));
        const QString traded = dir_ + "/traded.json";
        w.document()->experiment().save(traded.toStdString());
        const QString mineDir = dir_ + "/window-mt5", theirDir = dir_ + "/cli-mt5";
        setFileDialogAnswer([&](const FileDialogQuestion&) { return mineDir; });
        mql5->trigger();
        QVERIFY(mql5Done.wait(30000));
        QVERIFY2(mql5Done.first().at(0).toBool(), qPrintable(mql5Done.first().at(1).toString()));
        setFileDialogAnswer({});
        auto r = run({"export", "--model", bundle, "--onnx", theirs});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = run({"export", "--model", bundle, "--experiment", traded, "--mql5", theirDir});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(!bytes(theirs).isEmpty());
        QVERIFY(bytes(mine) == bytes(theirs));  // one graph: the mean and the agreement
        for (const char* f : {"/model.onnx", "/nnwb_expert.mq5"})
            QVERIFY2(bytes(mineDir + f) == bytes(theirDir + f), f);
        QVERIFY(bytes(mineDir + "/nnwb_expert.mq5").contains("InpMinAgreement = 0.75;"));
        QVERIFY(bytes(mineDir + "/nnwb_expert.mq5").contains("InpThreshold = 0.625;"));
        // Export Model: the ensemble's bundle, the same 3 members.
        const QString saved = dir_ + "/window.safetensors";
        w.modelActions()->exportModel(saved);
        QCOMPARE(EnsembleBundle::load(saved.toStdString()).size(), size_t(3));
        QVERIFY(bytes(saved) == bytes(bundle));
    }
};

QTEST_MAIN(TestEnsembleWindow)
#include "tst_ensemble_window.moc"
