// GUI: saving from the window (issue 24, part 4). The save dialogs add the suffix the user did
// not type (.json, .safetensors, .csv); Export Model and Predict ▸ Export CSV say what they
// wrote; Open Set takes away the "Saved …" of the set on show before. The dialogs are answered
// through setFileDialogAnswer (ui/FileDialogs.h), the seam every file dialog of ui/ goes through.
#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "app/export/Mql5Expert.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "ui/ComparisonView.h"
#include "ui/FileDialogs.h"
#include "ui/MainWindow.h"
#include "ui/ModelActions.h"
#include "ui/PredictDialog.h"

using namespace nnwb;

namespace {

// Answers every file dialog with `path` and keeps what was asked.
void answerWith(const QString& path, QStringList* captions = nullptr) {
    setFileDialogAnswer([path, captions](const FileDialogQuestion& q) {
        if (captions) *captions << q.caption;
        return path;
    });
}

// A one-epoch model of a short price file (a run of a moment), trained in `w`.
bool trainOnPrices(MainWindow& w, const QString& prices) {
    nlohmann::json j = {
        {"formatVersion", 1},
        {"name", "save dialogs"},
        {"data", {{"file", prices.toStdString()}, {"window", 8}, {"validationShare", 0.2}}},
        {"model",
         {{"layers",
           {{{"type", "conv"}, {"window", 12}, {"step", 12}, {"filters", 4}},
            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
        {"training", {{"epochs", 1}, {"batchSize", 32}, {"seed", 7}, {"device", "cpu"}}}};
    w.setConfirmDiscard(false);
    w.document()->reset(Experiment::fromJson(j));
    w.show();
    QSignalSpy finished(w.controller(), &TrainingController::runFinished);
    if (!QTest::qWaitFor([&w] { return w.trainAction()->isEnabled(); }, 20000)) return false;
    return w.startTraining() && finished.wait(60000);
}

// The first `lines` lines of the bundled price file, so that a run takes a moment.
QString shortPriceFile(const QTemporaryDir& dir, int lines) {
    std::ifstream in(defaultDataFile());
    const QString path = dir.filePath(QStringLiteral("short.csv"));
    std::ofstream out(path.toStdString());
    std::string line;
    for (int i = 0; i < lines && std::getline(in, line); ++i) out << line << '\n';
    return path;
}

}  // namespace

class TestSaveDialogs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_save_dialogs"));
    }
    void cleanup() { setFileDialogAnswer({}); }

    void suffixOfTheFilter() {
        const QString json = QStringLiteral("nnwb experiments (*.json)");
        QCOMPARE(withDefaultSuffix(QStringLiteral("/a/exp"), json), QStringLiteral("/a/exp.json"));
        QCOMPARE(withDefaultSuffix(QStringLiteral("/a/exp.json"), json),
                 QStringLiteral("/a/exp.json"));
        QCOMPARE(withDefaultSuffix(QStringLiteral("/a.b/w"), QStringLiteral("s (*.safetensors)")),
                 QStringLiteral("/a.b/w.safetensors"));
        QCOMPARE(withDefaultSuffix(QString(), json), QString());  // Cancel stays Cancel
    }

    void saveAsAddsJson() {
        QTemporaryDir dir;
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(1)));
        answerWith(dir.filePath(QStringLiteral("mine")));
        QVERIFY(w.saveAs());
        const QString saved = dir.filePath(QStringLiteral("mine.json"));
        QVERIFY(QFileInfo::exists(saved));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("mine"))));
        QCOMPARE(w.document()->filePath(), QFileInfo(saved).absoluteFilePath());
    }

    void exportModelAndPredictionsSayWhatTheyWrote() {
        QTemporaryDir dir;
        const QString prices = shortPriceFile(dir, 400);
        MainWindow w;
        QVERIFY(trainOnPrices(w, prices));

        answerWith(dir.filePath(QStringLiteral("model")));
        QSignalSpy exported(w.modelActions(), &ModelActions::modelExported);
        w.modelActions()->exportAction()->trigger();
        QVERIFY(exported.wait(20000));
        QVERIFY2(exported.first().at(0).toBool(), qPrintable(exported.first().at(1).toString()));
        const QString model = dir.filePath(QStringLiteral("model.safetensors"));
        QVERIFY(QFileInfo::exists(model));
        QVERIFY2(w.statusBar()->currentMessage().contains(model),
                 qPrintable(w.statusBar()->currentMessage()));

        w.modelActions()->predictFile(prices);
        QTRY_VERIFY_WITH_TIMEOUT(w.modelActions()->predictDialog(), 20000);
        PredictDialog* d = w.modelActions()->predictDialog();
        QTRY_VERIFY_WITH_TIMEOUT(!d->busy() && !d->metricsText().isEmpty(), 60000);
        answerWith(dir.filePath(QStringLiteral("rows")));
        d->exportCsvDialog();
        const QString csv = dir.filePath(QStringLiteral("rows.csv"));
        QVERIFY(QFileInfo::exists(csv));
        auto* saved = d->findChild<QLabel*>(QStringLiteral("predictSaved"));
        QVERIFY(saved);
        QVERIFY(!saved->isHidden());
        QVERIFY2(saved->text().contains(QDir::toNativeSeparators(csv)), qPrintable(saved->text()));
        d->close();
    }

    // File ▸ Export ▸ Export for MetaTrader 5… writes what `nnwb-cli export --mql5 DIR` writes:
    // DIR/model.onnx and the expert generated for the run's model (mql5ExpertSource).
    void metaTraderExportFromTheWindow() {
        QTemporaryDir dir;
        const QString prices = shortPriceFile(dir, 400);
        MainWindow w;
        QAction* mql5 = w.findChild<QAction*>(QStringLiteral("exportMql5Action"));
        QVERIFY(mql5);
        QVERIFY(!mql5->isEnabled());  // no weights yet
        QVERIFY(trainOnPrices(w, prices));
        QVERIFY(mql5->isEnabled());
        const QString out = dir.filePath(QStringLiteral("mt5"));  // made by the export
        QStringList asked;
        answerWith(out, &asked);
        QSignalSpy written(w.controller(), &TrainingController::mql5Exported);
        mql5->trigger();
        QVERIFY(written.wait(30000));
        QVERIFY2(written.first().at(0).toBool(), qPrintable(written.first().at(1).toString()));
        QCOMPARE(asked.size(), 1);
        const QString expert = out + QStringLiteral("/") + onnxexport::kMql5ExpertFile;
        QCOMPARE(QDir::cleanPath(written.first().at(1).toString()), QDir::cleanPath(expert));
        QVERIFY(QFileInfo(out + QStringLiteral("/") + onnxexport::kMql5ModelFile).size() > 0);
        QVERIFY2(w.statusBar()->currentMessage().contains(onnxexport::kMql5ExpertFile),
                 qPrintable(w.statusBar()->currentMessage()));

        // The expert is the one generated for this run's model.
        QSignalSpy bundled(w.controller(), &TrainingController::bundleReady);
        w.controller()->requestBundle();
        QVERIFY(bundled.wait(20000));
        const auto bundle = bundled.first().at(0).value<std::shared_ptr<const ModelBundle>>();
        QVERIFY(bundle);
        QFile f(expert);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().toStdString(), onnxexport::mql5ExpertSource(*bundle));
    }

    void openSetTakesTheSavedNoteAway() {
        QTemporaryDir dir;
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(1)));
        w.show();
        ComparisonView* view = w.comparisonView();
        view->controller()->addRun(w.document()->experiment(), {});
        answerWith(dir.filePath(QStringLiteral("set")));
        view->saveSetDialog();
        const QString set = dir.filePath(QStringLiteral("set.json"));
        QVERIFY(QFileInfo::exists(set));
        auto* message = view->findChild<QLabel*>(QStringLiteral("comparisonMessage"));
        QVERIFY(message);
        QVERIFY2(!message->isHidden() && message->text().contains(set),
                 qPrintable(message->text()));
        answerWith(set);
        view->openSetDialog();
        QCOMPARE(view->controller()->runCount(), 1);
        QVERIFY2(message->isHidden(), qPrintable(message->text()));
    }
};

QTEST_MAIN(TestSaveDialogs)
#include "tst_save_dialogs.moc"
