// GUI: the Sweeps tab (issue 27 item 5). A spec typed into its editor starts a real small
// sweep (6 trials of a tiny synthetic experiment, 2 epochs, ASHA, nnwb-cli child processes)
// from the Start button; the trials table then shows every trial with its state, epochs and
// parameters, the learning curves have one line per trial with the pruned ones grey, the
// parallel coordinates have an axis per parameter plus the objective, the Pareto tab shows the
// front of the two objectives, importance ranks the parameters, the sweep list has the sweep.
// Brushing an axis (by mouse and by setBrush) filters the table and the curves, a click clears
// it. A trial opens as a run in the Experiment tab (its experiment, curves and model). A bad
// spec shows the loader's FILE:LINE or path error under it. The form offers the experiment's
// fields and writes a spec that loads, naming the experiment's file, or a saved copy of an
// experiment that has none. The tab fits a 1280×720 screen.
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <memory>

#include "app/core/ExperimentDocument.h"
#include "app/core/RunPresenter.h"
#include "app/core/SweepPresenter.h"
#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"
#include "ui/FileDialogs.h"
#include "ui/MainWindow.h"
#include "ui/MetricCharts.h"
#include "ui/ParallelCoordinates.h"
#include "ui/SweepCurvesChart.h"
#include "ui/SweepImportanceChart.h"
#include "ui/SweepList.h"
#include "ui/SweepParetoChart.h"
#include "ui/SweepSpecEditor.h"
#include "ui/SweepSpecForm.h"
#include "ui/SweepTrialsTable.h"
#include "ui/SweepsView.h"

using namespace nnwb;

class TestSweepsView : public QObject {
    Q_OBJECT
    QString dir_, tiny_;
    std::unique_ptr<MainWindow> w_;

    SweepsView* view() const { return w_->sweepsView(); }
    QString spec() const {
        return QString(R"({"name":"gui","experiment":"%1","method":"random","seed":2,"runCap":6,
  "secondObjective":{"metric":"parameters"},
  "earlyTerminate":{"type":"asha","eta":2,"minResource":1,"maxResource":2},
  "parameters":[
    {"path":"training.optimizer.learningRate","min":0.0001,"max":0.5,"log":true},
    {"path":"model.layers[0].neurons","min":2,"max":8}]})")
            .arg(tiny_);
    }
    // Trials of the table in the state `state`.
    int rowsIn(const QString& state) const {
        int n = 0;
        for (int r = 0; r < view()->trials()->rowCount(); ++r)
            n += view()->trials()->item(r, 1)->text() == state;
        return n;
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(test::tempDir());
        tiny_ = dir_ + "/tiny.json";
        std::ofstream(tiny_.toStdString()) << R"({"formatVersion":1,"name":"tiny","data":{
            "source":"synthetic","samples":96,"units":2,"window":3},"model":{"layers":[
            {"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
            "training":{"epochs":2,"batchSize":8,"optimizer":{"type":"adam","learningRate":0.01}}})";
        qputenv("NNWB_CLI", NNWB_CLI_PATH);
        w_ = std::make_unique<MainWindow>();
        w_->setConfirmDiscard(false);
        w_->setRunsDatabase(dir_ + "/store/runs.sqlite", true);
        QVERIFY(w_->openExperiment(tiny_));
        w_->resize(1280, 720);
        w_->show();
        w_->showSweeps();
        view()->specTabs()->setCurrentWidget(view()->editor());
        view()->editor()->setText(spec());
        QTest::mouseClick(view()->startButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(w_->sweeps()->isRunning(), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!w_->sweeps()->isRunning(), 180000);
        QTRY_COMPARE_WITH_TIMEOUT(rowsIn("complete") + rowsIn("pruned"), 6, 10000);
    }

    // Open… starts in the example specs (issue 47): the source tree's resources/sweeps here.
    void openStartsInTheExampleSpecs() {
        const QString dir = SweepSpecEditor::examplesFolder();
        QVERIFY2(QFileInfo::exists(dir + "/tpe-asha-5x8.json"), qPrintable(dir));
        QVERIFY(view()->editor()->openFile(dir + "/random-5x8.json"));
        QVERIFY2(view()->editor()->text().contains("\"method\": \"random\""),
                 qPrintable(view()->editor()->text()));
        view()->editor()->setText(spec());
    }

    void theTableShowsEveryTrial() {
        SweepTrialsTable* t = view()->trials();
        QCOMPARE(t->rowCount(), 6);
        QVERIFY2(rowsIn("pruned") > 0, "ASHA with eta 2 prunes some of 6 trials");
        QVERIFY(view()->summary()->text().contains("completed"));
        QVERIFY(view()->summary()->text().contains("best validation.loss"));
        QStringList headers;
        for (int c = 0; c < t->columnCount(); ++c) headers << t->horizontalHeaderItem(c)->text();
        QVERIFY(headers.contains("layers[0].neurons"));
        QVERIFY(headers.contains("learningRate"));
        QCOMPARE(t->horizontalHeaderItem(6)->toolTip(), QString("model.layers[0].neurons"));
        QVERIFY(headers.contains("Pruned at"));
        for (int r = 0; r < t->rowCount(); ++r) {
            const bool pruned = t->item(r, 1)->text() == "pruned";
            QCOMPARE(t->item(r, 2)->text(), pruned ? QString("1") : QString("2"));
            QCOMPARE(t->item(r, 4)->text(), pruned ? QString("1") : QString());
            QVERIFY(t->runOfRow(r) > 0);
        }
    }

    void curvesGreyThePrunedTrials() {
        SweepTrialsTable* t = view()->trials();
        for (int r = 0; r < t->rowCount(); ++r) {
            const int number = t->item(r, 0)->text().toInt();
            QCPGraph* g = view()->curves()->curve(number);
            QVERIFY(g);
            const bool pruned = t->item(r, 1)->text() == "pruned";
            QCOMPARE(g->dataCount(), pruned ? 1 : 2);
            QCOMPARE(g->pen().color() == SweepCurvesChart::prunedColour(), pruned);
        }
        QCOMPARE(view()->parallel()->axisCount(), 3);
        // Importance needs 4 complete trials (model/sweep/Importance), then names both.
        const QStringList ranked = view()->importance()->parameters();
        QCOMPARE(ranked.size(), rowsIn("complete") >= 4 ? 2 : 0);
        if (!ranked.isEmpty()) QVERIFY(ranked.contains("model.layers[0].neurons"));
        QTRY_COMPARE(view()->sweepList()->rowCount(), 1);
        // The list is read again when the sweep ends, in the background: wait for that read.
        QTRY_COMPARE(view()->sweepList()->statusOf(view()->sweepList()->selectedId()),
                     QString("completed"));
        QVERIFY(view()->chartTabs()->isTabEnabled(view()->chartTabs()->indexOf(view()->pareto())));
        QVERIFY(view()->pareto()->frontSize() >= 1);
    }

    void brushingFiltersTableAndCurves() {
        ParallelCoordinates* pc = view()->parallel();
        view()->chartTabs()->setCurrentWidget(pc);
        const int objective = pc->axisCount() - 1;
        pc->setBrush(objective, 0.0, 0.5);  // the better half of the complete trials
        const std::set<int> kept = pc->visibleTrials();
        QVERIFY(!kept.empty());
        QVERIFY(int(kept.size()) < 6);
        QCOMPARE(view()->trials()->shownRows(), int(kept.size()));
        QVERIFY(view()->filterNote()->isVisibleTo(view()));
        QVERIFY(
            view()->filterNote()->text().startsWith(QString("%1 of 6 trials").arg(kept.size())));
        for (int n = 0; n < 6; ++n)
            QCOMPARE(view()->curves()->curve(n)->visible(), kept.count(n) > 0);
        QTest::mouseClick(pc, Qt::LeftButton, {}, QPoint(pc->axisX(objective), pc->plotTop() + 5));
        QVERIFY(!pc->brushed());
        QCOMPARE(view()->trials()->shownRows(), 6);
        QVERIFY(!view()->filterNote()->isVisibleTo(view()));
        // A drag along the first axis (learning rate) over its lower half, as a user would.
        const int x = pc->axisX(0), mid = (pc->plotTop() + pc->plotBottom()) / 2;
        QTest::mousePress(pc, Qt::LeftButton, {}, QPoint(x, pc->plotBottom()));
        QTest::mouseMove(pc, QPoint(x, (pc->plotBottom() + mid) / 2));
        QTest::mouseMove(pc, QPoint(x, mid));
        QTest::mouseRelease(pc, Qt::LeftButton, {}, QPoint(x, mid));
        QVERIFY(pc->brushed());
        int below = 0;
        for (int n = 0; n < 6; ++n) below += *pc->position(n, 0) <= 0.5 + 1e-6;
        QVERIFY(below < 6);  // the random learning rates are not all in the lower half
        QCOMPARE(view()->trials()->shownRows(), int(pc->visibleTrials().size()));
        QVERIFY(std::abs(int(pc->visibleTrials().size()) - below) <= 1);  // the pixel edge
        pc->clearBrush(0);
        QCOMPARE(view()->trials()->shownRows(), 6);
        // A brush belongs to its sweep: showing another sweep clears it.
        pc->setBrush(objective, 0.0, 0.2);
        SweepSnapshot other;
        other.sweep.id = 999;
        other.parameters = {"a", "b"};
        other.objective = "validation.loss";
        pc->setSnapshot(other);
        QVERIFY(!pc->brushed());
    }

    void aTrialOpensAsARun() {
        SweepTrialsTable* t = view()->trials();
        int row = -1;
        for (int r = 0; r < t->rowCount() && row < 0; ++r)
            if (t->item(r, 1)->text() == "complete") row = r;
        QVERIFY(row >= 0);
        const double rate = t->item(row, 5)->text().toDouble();
        t->selectRow(row);
        QVERIFY(view()->openTrialButton()->isEnabled());
        QTest::mouseClick(view()->openTrialButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(w_->charts()->reports().size(), size_t(2), 20000);
        QCOMPARE(w_->findChild<QTabWidget*>("centralTabs")->currentIndex(), 0);
        const Experiment& e = w_->document()->experiment();
        QVERIFY(std::abs(e.training.optimizer.learningRate - rate) <= 1e-3 * rate);
        QCOMPARE(e.model["layers"][0].value("neurons", 0), t->item(row, 6)->text().toInt());
        QTRY_VERIFY_WITH_TIMEOUT(w_->presenter()->haveWeights(), 20000);  // its model too
        QVERIFY2(w_->lastError().isEmpty(), qPrintable(w_->lastError()));
        w_->showSweeps();
    }

    void aBadSpecShowsItsError() {
        SweepSpecEditor* ed = view()->editor();
        view()->specTabs()->setCurrentWidget(ed);
        ed->setText(QStringLiteral("{\n  \"name\": \"x\",\n  \"runCap\": 3,,\n}"),
                    dir_ + "/bad.json");
        QTest::mouseClick(ed->checkButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!ed->error().isEmpty(), 20000);
        QVERIFY2(ed->error().startsWith(dir_ + "/bad.json:3:"), qPrintable(ed->error()));
        QString wrong = spec();
        wrong.replace("model.layers[0].neurons", "model.layers[0].colour");
        ed->setText(wrong, dir_ + "/bad.json");
        QTest::mouseClick(ed->checkButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!ed->error().isEmpty(), 20000);
        QVERIFY2(ed->error().contains("parameters[1]"), qPrintable(ed->error()));
    }

    void theFormWritesASpecThatLoads() {
        // The document is the opened trial's experiment now, in no file: the spec names a copy.
        view()->writeSpec();
        const auto copy = nlohmann::json::parse(view()->editor()->text().toStdString());
        const QString copyPath = QString::fromStdString(copy["experiment"].get<std::string>());
        QVERIFY2(copyPath.startsWith(w_->sweeps()->specFolder()), qPrintable(copyPath));
        QVERIFY(Experiment::load(copyPath.toStdString()).model ==
                w_->document()->experiment().model);
        QVERIFY(w_->openExperiment(tiny_));
        view()->refresh();
        SweepSpecForm* f = view()->form();
        QVERIFY(f->fieldPicker()->findText("model.layers[0].neurons") >= 0);
        QVERIFY(f->fieldPicker()->findText("training.batchSize") >= 0);
        QVERIFY(!f->addField("no.such.field"));
        QVERIFY(f->addField("model.layers[0].neurons"));
        QVERIFY(f->addField("training.batchSize"));
        f->setRow(1, {}, {}, false, "4, 8");
        f->runCapBox()->setValue(5);
        view()->specTabs()->setCurrentWidget(f);
        QTest::mouseClick(f->findChild<QPushButton*>("writeSpec"), Qt::LeftButton);
        QCOMPARE(view()->specTabs()->currentWidget(), view()->editor());
        const auto j = nlohmann::json::parse(view()->editor()->text().toStdString());
        QCOMPARE(j["experiment"].get<std::string>(), tiny_.toStdString());
        QCOMPARE(j["parameters"][1]["values"].dump(), std::string("[4,8]"));
        QCOMPARE(j["runCap"].get<int>(), 5);
        QTRY_VERIFY_WITH_TIMEOUT(view()->summary()->text().contains("ready to start"), 20000);
        QVERIFY(view()->editor()->error().isEmpty());
    }

    void fitsA1280x720Screen() {
        w_->showSweeps();
        w_->resize(1280, 680);  // a 720 px screen less title bar and panel
        QTest::qWait(50);
        const QSize least = w_->minimumSizeHint().expandedTo(w_->minimumSize());
        QVERIFY2(least.width() <= 1280 && least.height() <= 680,
                 qPrintable(QString("%1x%2").arg(least.width()).arg(least.height())));
        const std::vector<QWidget*> parts = {view()->startButton(), view()->resumeButton(),
                                             view()->openTrialButton(), view()->parallel()};
        for (QWidget* b : parts) {
            const QRect r(b->mapTo(w_.get(), QPoint(0, 0)), b->size());
            QVERIFY2(w_->rect().contains(r), qPrintable(b->objectName()));
        }
    }

    // (Last: it shows another sweep.) Import Bundle… (docs/slurm.md): a bundle whose tasks ran (two
    // of three results good, one truncated) comes into the store; the note says what was imported
    // and refused, the list and the trials table show the sweep. Importing again changes nothing.
    void importBundleShowsTheImportedSweep() {
        const QString specFile = dir_ + "/bundle-spec.json";
        std::ofstream(specFile.toStdString())
            << QString(R"({"name":"from slurm","experiment":"%1","method":"random","seed":5,
                "runCap":3,"parameters":[{"path":"model.layers[0].neurons","min":2,"max":8}]})")
                   .arg(tiny_)
                   .toStdString();
        const QString bundle = dir_ + "/bundle";
        QCOMPARE(test::runCli({"sweep", "export-bundle", specFile, bundle}).code, 0);
        for (const char* i : {"0", "1", "2"})
            QCOMPARE(test::runCli({"sweep", "task", bundle, i}).code, 0);
        const std::string bad = (bundle + "/results/2/result.json").toStdString();
        std::filesystem::resize_file(bad, std::filesystem::file_size(bad) / 2);
        setFileDialogAnswer([&](const FileDialogQuestion&) { return bundle; });
        QTest::mouseClick(view()->importButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view()->importNote()->text().contains("trials imported"), 30000);
        const QString note = view()->importNote()->text();
        QVERIFY2(note.contains("(new): 2 trials imported, 0 unchanged, 0 without a result yet, 1 "
                               "refused"),
                 qPrintable(note));
        // The half copy is refused where it ends (FILE:LINE:COL, as every JSON file is read:
        // model/JsonRead.h); the two whole results are imported.
        QVERIFY2(note.contains(QRegularExpression(
                     QRegularExpression::escape(QString::fromStdString(bad)) +
                     ":\\d+:\\d+: not valid JSON .*\\(a truncated or partial copy\\?\\)")),
                 qPrintable(note));
        QTRY_COMPARE_WITH_TIMEOUT(view()->trials()->rowCount(), 3, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(rowsIn("complete"), 2, 10000);
        QVERIFY(view()->summary()->text().contains("from slurm"));
        QTest::mouseClick(view()->importButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view()->importNote()->text().contains("0 trials imported, 2 "
                                                                       "unchanged"),
                                 30000);
        setFileDialogAnswer({});
    }

    void cleanupTestCase() { w_.reset(); }
};

QTEST_MAIN(TestSweepsView)
#include "tst_sweeps_view.moc"
