// GUI: the Comparison tab on runs of one price file (issue 41): the summary's trading columns
// have the figures the run store has (they read "n/a": the finished run's trading figures were
// not kept), and two experiments that name the same file and settings differently (a relative
// path, a default written out) are the same data, with no "≠ data" warning.
#include <QSignalSpy>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "app/compare/ComparisonSummary.h"
#include "app/core/ComparisonController.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "ui/ComparisonRunsTable.h"
#include "ui/ComparisonSummaryTable.h"
#include "ui/ComparisonView.h"
#include "ui/MainWindow.h"

using namespace nnwb;

class TestComparisonData : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameFileAndTradingFigures() {
        const std::string dir = test::tempDir();
        const std::string file = dir + "/bars.csv";
        {
            std::ifstream in(defaultDataFile());
            std::ofstream out(file);
            std::string line;
            for (int i = 0; i < 900 && std::getline(in, line); ++i) out << line << '\n';
        }
        nlohmann::json j = test::tinyExperimentJson(1);
        j["data"] = {{"file", file}, {"window", 8}, {"validationShare", 0.3}};
        const Experiment a = Experiment::fromJson(j);
        j["data"]["file"] = "bars.csv";         // relative to the experiment's folder
        j["data"]["normalization"] = "zscore";  // the default, written out
        const Experiment b = Experiment::fromJson(j, dir);
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString::fromStdString(dir + "/runs.sqlite"), true);
        w.show();
        ComparisonController* cmp = w.comparison();
        QCOMPARE(cmp->addRun(a, {}), 0);
        QCOMPARE(cmp->addRun(b, {}), 1);
        ComparisonRunsTable* runs = w.comparisonView()->runsTable();
        const QString data = runs->item(1, ComparisonRunsTable::kData)->text();
        QVERIFY2(!data.startsWith(QStringLiteral("≠")), qPrintable(data));
        QSignalSpy done(cmp, &ComparisonController::allFinished);
        QVERIFY(w.comparisonView()->trainAll(1));
        QVERIFY(done.wait(120000));
        for (int r = 0; r < 2; ++r) {
            const nlohmann::json& t = cmp->record(r).trading;
            QVERIFY2(t.is_object() && t.contains("strategy"), t.dump().c_str());
        }
        ComparisonSummaryTable* summary = w.comparisonView()->summaryTable();
        const int trades = 4 + kTrades;  // after run, device, status, epochs
        for (int r = 0; r < 2; ++r) {
            const QString cell = summary->item(r, trades)->text();
            QVERIFY2(cell != QStringLiteral("n/a") && !cell.isEmpty(), qPrintable(cell));
        }
    }
};

QTEST_MAIN(TestComparisonData)
#include "tst_comparison_data.moc"
