// GUI: the window records its runs (Train and every Comparison run) into the run store, and
// the Runs tab shows them: a sortable, filterable table; several runs selected overlay their
// curves and summary; name, tags and note edits are stored; Open Experiment loads a run's
// experiment into the editor with its curves; Open Model loads its stored best model, which
// Export Weights then saves and the attention view shows; reopening an experiment file shows its
// last run's curves; Delete removes runs with their files; --no-record records nothing; a corrupt
// store gives one warning and training goes on. Open Model on a price-file run shows that
// model's signals on the Price Chart; the details write its bar count grouped ("1,499"). The ID
// column's sort indicator points down (▼) for the newest-first order the list opens in.
#include <QHeaderView>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "app/runs/RunStore.h"
#include "common/TestUtil.h"
#include "model/FigureText.h"
#include "model/Safetensors.h"
#include "model/data/DataConfig.h"
#include "ui/AppStyle.h"
#include "ui/AttentionView.h"
#include "ui/ComparisonChart.h"
#include "ui/ComparisonSummaryTable.h"
#include "ui/ComparisonView.h"
#include "ui/DataPanel.h"
#include "ui/MainWindow.h"
#include "ui/MetricChart.h"
#include "ui/MetricCharts.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"
#include "ui/RunsTableModel.h"
#include "ui/RunsView.h"

using namespace nnwb;

namespace {

Experiment tiny(int epochs, const std::string& name = "tiny") {
    Experiment e = Experiment::fromJson(test::tinyExperimentJson(epochs));
    e.name = name;
    return e;
}

bool train(MainWindow& w, int epochs) {
    QSignalSpy finished(w.controller(), &TrainingController::runFinished);
    if (!w.startTraining(epochs)) return false;
    return finished.wait(60000) && finished.first().at(0).value<RunEnd>() == RunEnd::Completed;
}

}  // namespace

class TestRunsView : public QObject {
    Q_OBJECT
    std::string dir_, db_;
private slots:
    void initTestCase() { applyAppStyle(); }  // the window's style, as main() sets it

    void init() {
        dir_ = test::tempDir();
        db_ = dir_ + "/runs.sqlite";
    }

    // The ID column's sort indicator shows the order the rows are in: newest first is
    // descending, a downward arrow (Fusion drew an upward one, ▲, for it). The arrow's direction
    // is read from the header as drawn: its pixels with the indicator shown less those without.
    void sortIndicatorShowsNewestFirst() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString::fromStdString(db_), true);
        w.resize(1264, 672);
        w.show();
        w.showRuns();
        QHeaderView* header = w.runsView()->table()->horizontalHeader();
        QCOMPARE(header->sortIndicatorSection(), int(RunsTableModel::kId));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        QTRY_VERIFY(header->isVisible() && header->sectionSize(RunsTableModel::kId) > 0);
        const QRect section(header->sectionViewportPosition(RunsTableModel::kId), 0,
                            header->sectionSize(RunsTableModel::kId), header->height());
        const QImage with = header->grab(section).toImage();
        header->setSortIndicatorShown(false);
        const QImage without = header->grab(section).toImage();
        header->setSortIndicatorShown(true);
        QCOMPARE(with.size(), without.size());
        // The arrow is the rightmost run of changed columns (the label moves left of it).
        const auto changed = [&](int x, int y) { return with.pixel(x, y) != without.pixel(x, y); };
        const auto columnChanged = [&](int x) {
            for (int y = 0; y < with.height(); ++y)
                if (changed(x, y)) return true;
            return false;
        };
        int right = with.width() - 1;
        while (right >= 0 && !columnChanged(right)) --right;
        int left = right;
        while (left > 0 && columnChanged(left - 1)) --left;
        QVERIFY2(right >= 0, "no sort indicator drawn");
        int top = -1, bottom = -1;
        std::vector<int> widths(size_t(with.height()), 0);
        for (int y = 0; y < with.height(); ++y)
            for (int x = left; x <= right; ++x)
                if (changed(x, y)) ++widths[size_t(y)];
        for (int y = 0; y < with.height(); ++y)
            if (widths[size_t(y)] > 0) {
                if (top < 0) top = y;
                bottom = y;
            }
        QVERIFY2(top >= 0 && bottom > top, "no sort indicator drawn");
        QVERIFY2(widths[size_t(top)] > widths[size_t(bottom)],
                 qPrintable(QStringLiteral("the arrow is %1 px wide at its top, %2 at its bottom")
                                .arg(widths[size_t(top)])
                                .arg(widths[size_t(bottom)])));
    }

    void windowAndComparisonRunsAreShownAndOverlaid() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString::fromStdString(db_), true);
        QCOMPARE(w.runsDatabasePath(), QString::fromStdString(db_));
        const std::string file = dir_ + "/tiny.json";
        tiny(2).save(file);
        QVERIFY(w.openExperiment(QString::fromStdString(file)));
        w.show();
        QVERIFY(train(w, 2));

        ComparisonController* cmp = w.comparison();
        QCOMPARE(cmp->addRun(tiny(1, "left"), {}), 0);
        QCOMPARE(cmp->addRun(tiny(1, "right"), {}), 1);
        QSignalSpy done(cmp, &ComparisonController::allFinished);
        QVERIFY(w.comparisonView()->trainAll(1));
        QVERIFY(done.wait(60000));

        RunsView* view = w.runsView();
        w.showRuns();
        QTRY_COMPARE(view->shownCount(), 3);
        RunStore store(db_);
        const auto runs = store.list();
        QCOMPARE(runs.size(), size_t(3));
        int window = 0, compare = 0;
        for (const StoredRun& r : runs) {
            QCOMPARE(r.status, std::string("completed"));
            window += r.source == "window";
            compare += r.source == "window-compare";
        }
        QCOMPARE(window, 1);
        QCOMPARE(compare, 2);
        const StoredRun trained = *store.get(runs.back().id);  // the first, the window's
        // Reopened, the experiment shows its last run's curves and the message names the
        // experiment: with a comparison on show "Curves of run #1" read as a compared run.
        QVERIFY(w.openExperiment(QString::fromStdString(file)));
        QTRY_VERIFY2(w.statusBar()->currentMessage().startsWith(
                         QStringLiteral("Curves of run #%1 of tiny.json (").arg(trained.id)),
                     qPrintable(w.statusBar()->currentMessage()));
        QCOMPARE(trained.epochsDone, 2);
        QCOMPARE(trained.experimentFile, std::filesystem::absolute(file).string());
        QVERIFY(trained.bundle("best") && trained.bundle("last"));
        QCOMPARE(runs[0].comparison, runs[1].comparison);
        QVERIFY(!runs[0].comparison.empty());

        // Select all three: their curves and summary rows overlaid
        view->selectIds({runs[0].id, runs[1].id, runs[2].id});
        QCOMPARE(view->selectedIds().size(), size_t(3));
        QTRY_COMPARE(view->chart(0)->runCount(), 3);  // loaded by the RunHistory's thread
        QCOMPARE(view->chart(0)->trainGraph(2)->dataCount() +
                     view->chart(0)->trainGraph(1)->dataCount() +
                     view->chart(0)->trainGraph(0)->dataCount(),
                 4);
        QCOMPARE(view->summary()->rowCount(), 3);

        // Sorting by a column and filtering
        view->table()->sortByColumn(RunsTableModel::kEpochs, Qt::DescendingOrder);
        const QModelIndex top = view->table()->model()->index(0, RunsTableModel::kId);
        QCOMPARE(top.data().toString(), QString::number(trained.id));
        view->filterEdit()->setText("source:window-compare");
        QCOMPARE(view->shownCount(), 2);
        view->filterEdit()->setText("colour:red");  // an unknown key shows everything, marked
        QCOMPARE(view->shownCount(), 3);
        QVERIFY(view->filterEdit()->toolTip().contains("unknown filter key"));
        view->filterEdit()->clear();

        // Editing name and tags in the table and the note
        RunsTableModel* model = view->model();
        const int row = model->rowOf(trained.id);
        QVERIFY(model->setData(model->index(row, RunsTableModel::kName), "renamed", Qt::EditRole));
        QVERIFY(model->setData(model->index(row, RunsTableModel::kTags), " a , b ", Qt::EditRole));
        view->selectIds({trained.id});
        view->findChild<QPlainTextEdit*>("runsNote")->setPlainText("looks fine");
        view->findChild<QPushButton*>("runsSaveNote")->click();
        QTRY_COMPARE(store.get(trained.id)->note, std::string("looks fine"));  // written last
        const StoredRun edited = *store.get(trained.id);
        QCOMPARE(edited.name, std::string("renamed"));
        QCOMPARE(edited.tags, std::string("a,b"));
        QCOMPARE(edited.note, std::string("looks fine"));

        // Open Experiment: the run's experiment in the editor, its curves on the charts
        w.document()->reset(tiny(5, "something else"));
        view->findChild<QPushButton*>("runsOpenExperiment")->click();
        QTRY_COMPARE(w.document()->experiment().name, std::string("tiny"));
        QCOMPARE(w.document()->experiment().training.epochs, 2);
        QCOMPARE(w.charts()->reports().size(), size_t(2));

        // Reopening the experiment file shows its last run's curves
        w.document()->reset(tiny(5, "other"));
        w.charts()->clear();
        QVERIFY(w.openExperiment(QString::fromStdString(file)));
        QTRY_COMPARE(w.charts()->reports().size(), size_t(2));
        QCOMPARE(w.charts()->reports()[1].train.loss, trained.epochs[1].report.train.loss);
        QCOMPARE(w.charts()->reports()[1].learningRate, 0.01);  // the rate chart has it
        QCOMPARE(w.charts()->reports()[1].bestEpoch, *trained.bestEpoch);
        QVERIFY(!w.resultsAreStale());  // the run's own stack and data (path made absolute)

        // Delete (confirmation off for the test): the run and its files go
        const std::string folder = store.runFolder(runs[0].id);
        QVERIFY(std::filesystem::exists(folder));
        view->setConfirmDelete(false);
        view->selectIds({runs[0].id});
        view->findChild<QPushButton*>("runsDelete")->click();
        QTRY_COMPARE(view->shownCount(), 2);
        QVERIFY(!store.get(runs[0].id));
        QVERIFY(!std::filesystem::exists(folder));
    }

    void openModelLoadsTheRunsBestWeights() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString::fromStdString(db_), true);
        nlohmann::json j = test::tinyExperimentJson(3);
        j["model"]["layers"].insert(j["model"]["layers"].begin() + 1,
                                    nlohmann::json{{"type", "attention"}});
        w.document()->reset(Experiment::fromJson(j));
        w.show();
        QVERIFY(train(w, 3));
        RunStore store(db_);
        const auto runs = store.list();
        QCOMPARE(runs.size(), size_t(1));
        const StoredRun run = *store.get(runs[0].id);
        const StoredBundle* best = run.bundle("best");
        QVERIFY(best);

        // Another experiment and no results on show; then Open Model on the run
        w.document()->reset(tiny(5, "something else"));
        QVERIFY(!w.attentionView()->snapshot());
        RunsView* view = w.runsView();
        w.showRuns();
        view->refresh();
        view->selectIds({run.id});
        auto* open = view->findChild<QPushButton*>("runsOpenModel");
        QTRY_VERIFY(open->isEnabled());  // once listed
        QSignalSpy loaded(w.controller(), &TrainingController::weightsLoaded);
        open->click();
        QVERIFY(loaded.wait(30000));
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(loaded.first().at(1).toString()));
        QCOMPARE(w.document()->experiment().model, run.experiment["model"]);
        QCOMPARE(w.charts()->reports().size(), size_t(3));  // the run's curves stay
        QTRY_VERIFY_WITH_TIMEOUT(w.attentionView()->snapshot() != nullptr, 30000);
        QCOMPARE(w.attentionView()->snapshot()->epoch, best->epoch);

        // Export Weights writes the loaded (best) weights, bit for bit the stored file's
        const std::string out = dir_ + "/opened.safetensors";
        QSignalSpy saved(w.controller(), &TrainingController::weightsSaved);
        w.controller()->saveWeights(QString::fromStdString(out));
        QVERIFY(saved.wait(30000));
        QVERIFY2(saved.first().at(0).toBool(), qPrintable(saved.first().at(1).toString()));
        const TensorMap a = loadSafetensors(out), b = loadSafetensors(best->path);
        QCOMPARE(a.size(), b.size());
        for (const auto& [name, t] : b) {
            QVERIFY(a.count(name));
            QCOMPARE(a.at(name).values, t.values);
        }

        // A run whose model files are gone: a clear error, the experiment still opens
        std::filesystem::remove(best->path);
        if (const StoredBundle* last = run.bundle("last")) std::filesystem::remove(last->path);
        w.document()->reset(tiny(5, "something else"));
        view->selectIds({run.id});
        open->click();
        QTRY_COMPARE(w.document()->experiment().model, run.experiment["model"]);
        auto* banner = w.findChild<QLabel*>("errorBanner");
        QVERIFY(banner->isVisibleTo(&w));
        QVERIFY2(banner->text().contains("no stored model file"), qPrintable(banner->text()));
    }

    // Open Model on a price-file run: the Price Chart shows the opened model's signals on the
    // run's validation part, the very outputs the run's epoch gave (it said "no model signals
    // yet" although the model was open).
    void openModelShowsItsSignalsOnThePriceChart() {
        const std::string file = dir_ + "/bars.csv";
        {
            std::ifstream in(defaultDataFile());
            std::ofstream out(file);
            std::string line;
            for (int i = 0; i < 1500 && std::getline(in, line); ++i) out << line << '\n';
        }
        nlohmann::json j = test::tinyExperimentJson(1);
        j["data"] = {{"file", file}, {"window", 8}, {"validationShare", 0.3}};
        j["model"]["layers"][0] = {{"type", "conv"}, {"window", 12}, {"step", 12}, {"filters", 4}};
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString::fromStdString(db_), true);
        w.document()->reset(Experiment::fromJson(j));
        w.show();
        QVERIFY(train(w, 1));
        PriceChart* chart = w.priceChartPane()->chart();
        QTRY_VERIFY(!chart->signalLabel().isEmpty());
        const size_t hits = chart->hitCount(), falses = chart->falseSignalCount();
        QStringList tips;  // each holds the bar's three outputs
        for (size_t bar = 1100; bar < 1490; bar += 13) tips << chart->tooltipText(bar);
        QVERIFY2(tips.first().contains("model: none"), qPrintable(tips.first()));

        w.document()->reset(tiny(5, "something else"));
        QVERIFY(chart->signalLabel().isEmpty());
        RunsView* view = w.runsView();
        w.showRuns();
        view->refresh();
        QTRY_VERIFY(view->shownCount() >= 1);
        view->selectIds({view->model()->index(0, 0).data(Qt::UserRole).toLongLong()});
        // The details write the bar count grouped like the rest of the window ("1,499").
        const StoredRun stored = RunStore(db_).list().front();
        QVERIFY(stored.dataBars >= 1000);
        const QString bars = QStringLiteral("Data bars: %1,")
                                 .arg(QString::fromStdString(groupedCount(stored.dataBars)));
        auto* details = view->findChild<QLabel*>("runsDetails");
        QTRY_VERIFY2(details->text().contains(bars), qPrintable(details->text()));
        auto* open = view->findChild<QPushButton*>("runsOpenModel");
        QTRY_VERIFY(open->isEnabled());
        QSignalSpy loaded(w.controller(), &TrainingController::weightsLoaded);
        open->click();
        QVERIFY(loaded.wait(30000));
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(loaded.first().at(1).toString()));
        QTRY_VERIFY_WITH_TIMEOUT(!chart->signalLabel().isEmpty(), 30000);
        QVERIFY2(chart->signalLabel().contains("the opened model, epoch 1"),
                 qPrintable(chart->signalLabel()));
        const QString header = chart->findChild<QLabel*>("priceChartHeader")->text();
        QVERIFY2(!header.contains("no model signals"), qPrintable(header));
        QCOMPARE(chart->hitCount(), hits);
        QCOMPARE(chart->falseSignalCount(), falses);
        QStringList again;
        for (size_t bar = 1100; bar < 1490; bar += 13) again << chart->tooltipText(bar);
        QCOMPARE(again, tips);
        // The Data pane reading the run's file afterwards keeps them.
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QTest::qWait(100);
        QVERIFY(!chart->signalLabel().isEmpty());
    }

    // An ensemble is one run in the list (docs/ensembles.md); selected, its members' curves
    // are drawn thin under its own, and the summary has the ensemble's row only.
    void anEnsembleRunShowsItsMembersThin() {
        std::vector<int64_t> ids;
        {
            RunStore store(db_);
            for (const char* name : {"ens seed=1", "ens seed=2", "ens ensemble of 2"}) {
                StoredRun r;
                r.name = name;
                r.source = "cli-train";
                r.experiment = tiny(2).toJson();
                r.validationSamples = 10;
                const int64_t id = store.insertRun(r);
                for (int e = 1; e <= 2; ++e) {
                    StoredEpoch se;
                    se.report.epoch = e;
                    se.report.train.loss = 0.3 - 0.01 * e - 0.001 * double(ids.size());
                    se.report.validation.loss = se.report.train.loss + 0.02;
                    se.report.validation.samples = 10;
                    store.addEpoch(id, se, 2);
                }
                store.finishRun(id, runstatus::kCompleted, "", 2);
                ids.push_back(id);
            }
            store.setEnsembleMembers(ids[2], {ids[0], ids[1]});
        }
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString::fromStdString(db_), true);
        RunsView* view = w.runsView();
        w.showRuns();
        QTRY_COMPARE(view->shownCount(), 1);  // the members are not listed
        view->selectIds({ids[2]});
        QTRY_COMPARE(view->chart(0)->runCount(), 3);
        QVERIFY(!view->chart(0)->runThin(0));
        QVERIFY(view->chart(0)->runThin(1) && view->chart(0)->runThin(2));
        QCOMPARE(view->chart(0)->trainGraph(1)->dataCount(), 2);
        QCOMPARE(view->summary()->rowCount(), 1);
    }

    void noRecordAndCorruptStore() {
        {
            MainWindow w;
            w.setConfirmDiscard(false);
            w.setRunsDatabase(QString::fromStdString(db_), false);
            w.document()->reset(tiny(1));
            QVERIFY(train(w, 1));
            QVERIFY(!std::filesystem::exists(db_));
        }
        std::ofstream(db_) << std::string(4096, 'q');
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString::fromStdString(db_), true);
        w.document()->reset(tiny(1));
        QSignalSpy warn(w.controller(), &TrainingController::recordingWarning);
        w.show();
        QVERIFY(train(w, 1));  // training goes on
        QCOMPARE(warn.count(), 1);
        auto* banner = w.findChild<QLabel*>("errorBanner");
        QVERIFY(banner->isVisibleTo(&w));
        QVERIFY2(banner->text().contains("corrupt"), qPrintable(banner->text()));
        QCOMPARE(w.charts()->reports().size(), size_t(1));
        QVERIFY(train(w, 1));
        QCOMPARE(warn.count(), 2);  // the worker says it per run; the window shows it once
        QVERIFY(!banner->isVisibleTo(&w));
    }
};

QTEST_MAIN(TestRunsView)
#include "tst_runs_view.moc"
