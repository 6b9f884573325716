// GUI: combinatorial purged cross-validation in the window (issue 45, validation scheme cpcv).
// Train on a cpcv experiment (a cut of the bundled EURUSD file, a tiny network, 1 epoch; 4
// groups and 2 test groups: 6 splits, 3 paths) runs every split on the worker (a row per split,
// its test groups named), then the Walk-Forward tab shows the path table, the
// histogram of the chosen figure over the paths and the verdict line, each equal to what the
// engine computes for the same experiment on its own; Stop ends it between splits with no paths.
#include <fstream>
#include <memory>
#include <string>

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/WalkForwardPresenter.h"
#include "app/engine/Cpcv.h"
#include "app/engine/CpcvFigures.h"
#include "common/TestUtil.h"
#include "common/TestWindow.h"
#include "model/data/DataConfig.h"
#include "ui/CpcvView.h"
#include "ui/MainWindow.h"
#include "ui/WalkForwardView.h"

using namespace nnwb;

namespace {

std::string cutFile(int bars) {
    const std::string path = test::tempDir() + "/cpcv-window-" + std::to_string(bars) + ".csv";
    std::ifstream in(defaultDataFile());
    std::ofstream out(path);
    std::string line;
    for (int i = 0; i < bars + 1 && std::getline(in, line); ++i) out << line << "\n";
    return path;
}

Experiment cpcvExperiment(int epochs) {
    const nlohmann::json e = {
        {"formatVersion", 2},
        {"name", "cpcv window"},
        {"data", {{"file", cutFile(700)}, {"window", 5}}},
        {"model",
         {{"layers",
           {{{"type", "dense"}, {"neurons", 6}, {"activation", "tanh"}},
            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
        {"training", {{"epochs", epochs}, {"batchSize", 16}, {"seed", 3}}},
        {"validation",
         {{"mode", "walkforward"}, {"scheme", "cpcv"}, {"groups", 4}, {"testGroups", 2}}}};
    return Experiment::fromJson(e);
}

using Window = test::TestWindow;

struct Quiet : WalkForwardEvents {};

}  // namespace

class TestCpcvWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::useTestSettings("tst_cpcv_window"); }

    void trainShowsThePathsTheHistogramAndTheVerdict() {
        Window x;
        const Experiment e = cpcvExperiment(1);
        x.w.document()->reset(e);
        QSignalSpy splits(x.w.controller(), &TrainingController::foldEnded);
        QSignalSpy done(x.w.controller(), &TrainingController::runFinished);
        QVERIFY(x.w.startTraining());
        QVERIFY(done.wait(120000));
        QVERIFY2(x.w.lastError().isEmpty(), qPrintable(x.w.lastError()));
        QCOMPARE(done.first().at(0).value<RunEnd>(), RunEnd::Completed);
        QCOMPARE(splits.count(), 6);
        WalkForwardView* view = x.w.walkForwardView();
        QVERIFY2(view->captionLabel()->text().contains(QStringLiteral("6 splits, 3 paths")),
                 qPrintable(view->captionLabel()->text()));
        QVERIFY2(view->captionLabel()->text().contains(QStringLiteral("All 6 splits done")),
                 qPrintable(view->captionLabel()->text()));
        QCOMPARE(view->foldTable()->rowCount(), 6);
        QCOMPARE(view->foldTable()->item(0, 2)->text(), QStringLiteral("groups 1, 2"));

        // The same splits and paths from the engine on its own (same seed, same data).
        WalkForward wf(e);
        Quiet quiet;
        RecordingOptions off;
        off.enabled = false;
        const CpcvResult result = stitchCpcv(wf.data().cpcv, runCpcvSplits(wf, off, quiet));
        QCOMPARE(result.paths.size(), size_t(3));
        const CpcvEvaluation eval = evaluateCpcvPaths(result, *wf.data().bars, e.trading);

        auto* cpcv = view->findChild<CpcvView*>();
        QVERIFY(cpcv);
        QVERIFY(cpcv->isVisibleTo(view));
        QTableWidget* table = cpcv->pathTable();
        QCOMPARE(table->rowCount(), 3);
        const CpcvFigure* sharpe = cpcvFigure("sharpe");
        const CpcvFigure* net = cpcvFigure("netPoints");
        for (int p = 0; p < 3; ++p) {
            QCOMPARE(table->item(p, 0)->text(), QString::number(p + 1));
            QStringList groups;
            for (size_t s : result.paths[size_t(p)].splits) groups << QString::number(s + 1);
            QCOMPARE(table->item(p, 1)->text(), groups.join(QLatin1Char(',')));
            QCOMPARE(table->item(p, 2)->text(),
                     QString::number(eval.paths[size_t(p)].loss, 'f', 5));
            const double s = sharpe->of(eval.paths[size_t(p)]);
            QCOMPARE(table->item(p, 2 + 5)->text(),
                     std::isfinite(s) ? QString::number(s, 'f', 4) : QStringLiteral("n/a"));
            const double n = net->of(eval.paths[size_t(p)]);
            QCOMPARE(table->item(p, 2 + 4)->text(),
                     std::isfinite(n) ? QString::number(n, 'f', 1) : QStringLiteral("n/a"));
        }
        QCOMPARE(cpcv->verdictLabel()->text(), QString::fromStdString(cpcvVerdict(eval)));
        QVERIFY(!cpcv->verdictLabel()->text().isEmpty());

        // The histogram counts the chosen figure's finite values over the paths.
        auto counted = [&] {
            double sum = 0;
            for (double c : cpcv->histogramCounts()) sum += c;
            return sum;
        };
        QCOMPARE(cpcv->figurePicker()->currentData().toString(), QStringLiteral("sharpe"));
        QCOMPARE(counted(), double(eval.distribution(*sharpe).count));
        QVERIFY(cpcv->distributionLabel()->text().startsWith(QStringLiteral("Sharpe (per bar)")));
        cpcv->figurePicker()->setCurrentIndex(
            cpcv->figurePicker()->findData(QStringLiteral("loss")));
        QCOMPARE(cpcv->histogramCounts().size(), size_t(4));  // 3 paths: at least 4 bins
        QCOMPARE(counted(), 3.0);
        QVERIFY2(cpcv->distributionLabel()->text().startsWith(QStringLiteral("loss over 3 paths")),
                 qPrintable(cpcv->distributionLabel()->text()));
    }

    void stopEndsItBetweenSplitsWithoutPaths() {
        Window x;
        x.w.document()->reset(cpcvExperiment(200));
        int started = 0;
        x.stopAfterTheFirstFold(started);
        if (QTest::currentTestFailed()) return;
        QVERIFY(started < 6);
        WalkForwardView* view = x.w.walkForwardView();
        QVERIFY2(view->captionLabel()->text().contains(QStringLiteral("Stopped after")),
                 qPrintable(view->captionLabel()->text()));
        auto* cpcv = view->findChild<CpcvView*>();
        QVERIFY(cpcv);
        QCOMPARE(cpcv->pathTable()->rowCount(), 0);
        QCOMPARE(cpcv->verdictLabel()->text(),
                 QStringLiteral("No paths: not every split completed."));
    }
};

QTEST_MAIN(TestCpcvWindow)
#include "tst_cpcv_window.moc"
